//! Editing and moving a message (`PATCH /messages/{message_id}`): Zulip's
//! `check_update_message` + `do_update_message`.
//!
//! Round trips: one read batch (the message's access, the caller's permission groups, what
//! new content references, the topics and channels a move involves, the message's rows;
//! the settings and linkifiers are the isolate's copy); the write (one batch, moved messages
//! named in chunks, with the notifications of a move and the upload links of a content
//! edit); then the events.

mod moves;
mod reads;
mod update_event;
mod write;

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::Value;

use crate::actions::message_notifications::{self, MoveNotice, PlannedNotices};
use crate::actions::uploads::{EditRelink, Relinked};
use crate::context::RequestContext;
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::message_edits::{self as q, MoveChannelRow, RecipientRow, SubscriberRow, TopicMessageRow};
use crate::db::messages::MessageRow;
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::user_groups::{self, IsMemberRow};
use crate::db::users::UserRow;
use crate::domain::channels::access;
use crate::domain::edit_rendering::{self, Rendered};
use crate::domain::message_edit::{self as rules, EditParams, EditPlan, EditorRights, PropagateMode, TopicMessage};
use crate::domain::messages::accessed_from;
use crate::domain::rendering::ResolutionReads;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, UpdateMessageEvent};
use crate::events::{self, EventUser};
use crate::markdown;
use crate::model::ids::{ChannelId, MessageId, RealmId, UserId};
use crate::model::message_flags::{flag_names, READ};
use crate::platform::realm_cache::RealmState;

use moves::*;
use reads::*;
use update_event::*;
use write::*;

/// What the edit answers: the editor's uploads that the edit left unlinked.
pub struct EditResult {
    pub detached_uploads: Vec<Value>,
}

/// Validates the edit, checks permissions, applies it and sends its events.
pub async fn check_update_message(
    ctx: &RequestContext,
    user: &UserRow,
    message_id: MessageId,
    params: EditParams,
) -> ApiResult<EditResult> {
    let db = &ctx.db;
    // The isolate's copy, current for this request (its version came with authentication).
    let state = ctx.realm_state(user.realm_id).await?;
    let settings = state.settings.clone();
    let mut batch = Batch::new();
    let reads = EditReads::add(&mut batch, user, &state, message_id, &params)?;
    let results = batch.run(db).await?;
    let message = accessed_from(user, results.first(reads.access)?)?.message;
    let plan = rules::plan_edit(&message, &params, &settings)?;
    let now = crate::db::now();
    let grace_seconds = ctx.settings.edit_limit_grace_seconds;

    let rights = reads.rights.take(&results, user)?;
    rules::check_edit_permission(user, &message, &plan, &settings, rights, rules::EditClock { now, grace_seconds })?;

    let (rendered, topic_participants) = match (&plan.content, reads.content) {
        (Some(content), Some(content_reads)) => {
            let (rendered, participants) = render_checked(&ctx.base_url, user, &message, content, content_reads, &results)?;
            (Some(rendered), participants)
        }
        (Some(_), None) => return Err(ApiError::internal("edited content without its reads")),
        (None, _) => (None, Vec::new()),
    };
    let before = Before { rows: results.rows(reads.rows_before)?, topic_participants };

    let scope = match reads.moves {
        Some(moves) if plan.is_moved() => Some(moves.take(&results, user, &message, &plan, &settings)?),
        _ => None,
    };
    if let Some(scope) = &scope {
        if let Some(deadline) = rules::change_all_deadline(user, &plan, &settings, grace_seconds) {
            rules::check_change_all_time_limit(&scope.source_topic(), deadline, now)?;
        }
    }
    let changed = Changed::of(&message, &plan, scope.as_ref());

    // A move's notifications go in its write when what it read is all they need.
    let notice = scope.as_ref().map(|scope| move_notice(&message, &plan, scope, &changed, &params, &settings));
    let planned = match (&notice, &scope) {
        (Some(notice), Some(scope)) => message_notifications::plan_in_advance(
            ctx,
            user,
            notice,
            scope.notification_bot.as_ref(),
            &scope.subscribers,
            &state.linkifiers,
            now,
        ),
        _ => None,
    };
    let relink = match &plan.content {
        Some(content) => EditRelink::plan(user, &message, content)?,
        None => None,
    };
    let along = AlongWithEdit { notices: planned.as_ref(), relink: relink.as_ref() };
    let applied = apply(ctx, user, &message, &plan, rendered.as_ref(), scope.as_ref(), &before, &changed, along, now).await?;
    if !applied.newly_mentioned.is_empty() {
        let site = crate::actions::site::Site::of_request(ctx);
        crate::actions::message_send::FollowUp::of_edit(site, user, message.id, applied.newly_mentioned).start().await;
    }
    if let (Some(notice), None) = (&notice, &planned) {
        message_notifications::after_move(ctx, user, notice, now).await?;
    }
    let detached_uploads = match applied.relinked {
        Some(relinked) => crate::actions::uploads::finish_relink(&ctx.env, user, relinked).await,
        None => Vec::new(),
    };
    Ok(EditResult { detached_uploads })
}

/// What a move's notifications say, and to which topics.
fn move_notice<'a>(
    message: &'a MessageRow,
    plan: &'a EditPlan,
    scope: &'a MoveScope,
    changed: &'a Changed,
    params: &EditParams,
    settings: &'a RealmSettingsRow,
) -> MoveNotice<'a> {
    MoveNotice {
        message,
        plan,
        orig_channel: &scope.orig_channel,
        target_channel: scope.target_channel.as_ref().unwrap_or(&scope.orig_channel),
        changed_ids: &changed.ids,
        moved_all_visible: scope.moved_all_visible(plan, &changed.ids),
        target_had_visible_messages: scope.target_had_visible_messages(),
        last_target_message: scope.last_target_message(&changed.ids),
        notify_old: params.send_notification_to_old_thread,
        notify_new: params.send_notification_to_new_thread,
        settings,
    }
}

/// The messages an edit changes: the edited one and the `others` a move takes along, by id.
struct Changed {
    ids: Vec<i64>,
    others: Vec<i64>,
}

impl Changed {
    fn of(message: &MessageRow, plan: &EditPlan, scope: Option<&MoveScope>) -> Changed {
        let others = match scope {
            Some(s) => rules::other_moved_ids(&s.source_topic(), message.id, plan),
            None => Vec::new(),
        };
        let mut ids: Vec<i64> = std::iter::once(message.id).chain(others.iter().copied()).collect();
        ids.sort_unstable();
        Changed { ids, others }
    }
}

/// What the edit's write batch carries besides the edit itself: a move's planned
/// notifications and a content edit's upload links.
struct AlongWithEdit<'a> {
    notices: Option<&'a PlannedNotices>,
    relink: Option<&'a EditRelink>,
}

/// What [`apply`] answers: the users the new content newly mentions, and what the batch
/// read about the edit's uploads.
struct Applied {
    newly_mentioned: Vec<i64>,
    relinked: Option<Relinked>,
}
