//! The edit's one write batch, then its events.

use super::*;

/// The write (one batch, which for content edits of channel messages also reads the
/// channel and its subscribers for the event, and which holds [`AlongWithEdit`]) and the
/// `update_message` / `delete_message` events, then the notifications' events.
#[allow(clippy::too_many_arguments)]
pub(super) async fn apply(
    ctx: &RequestContext,
    user: &UserRow,
    message: &MessageRow,
    plan: &EditPlan,
    rendered: Option<&Rendered>,
    scope: Option<&MoveScope>,
    before: &Before,
    changed: &Changed,
    along: AlongWithEdit<'_>,
    now: i64,
) -> ApiResult<Applied> {
    let db = &ctx.db;
    let edit = Edit { user, message, plan, rendered, scope, now };
    let mut batch = Batch::new();
    add_target_update(&mut batch, &edit)?;
    add_moved_others(&mut batch, &edit, &changed.others)?;
    // Mention flags of a content edit.
    if let Some(r) = rendered {
        batch.add::<Value>(q::update_mention_flags_stmt(
            message.id,
            &serde_json::to_string(&r.mentioned_user_ids)?,
            r.stream_wildcard,
            &serde_json::to_string(&before.topic_participants)?,
        )?);
    }
    let access = scope.and_then(|s| s.target_channel.as_ref().map(|t| (channel_move_access(s, t), t)));
    if let Some((access, target)) = &access {
        add_channel_move_rows(&mut batch, access, target, &changed.ids)?;
    }
    let access = access.map(|(access, _)| access);
    let relink = along.relink.map(|r| r.add(&mut batch)).transpose()?;
    // Content edits of channel messages: the channel's name and, for shared history, its
    // subscribers, for the event (the write changes neither).
    let channel_reads = match (scope, message.channel_id) {
        (None, Some(channel_id)) => Some((
            batch.add::<MoveChannelRow>(q::channel_stmt(RealmId(user.realm_id), ChannelId(channel_id), UserId(user.id))?),
            batch.add::<SubscriberRow>(q::subscribers_stmt(&[channel_id])?),
        )),
        _ => None,
    };
    let pending_notices = along.notices.map(|n| n.add_writes(&mut batch, RealmId(user.realm_id))).transpose()?;
    let results = batch.run(db).await?;
    let (channel_name, shared_history_subscribers) = channel_for_event(&results, channel_reads)?;
    let recipients = EventRecipients {
        rows_before: &before.rows,
        shared_history_subscribers: &shared_history_subscribers,
        channel_name: channel_name.as_deref(),
    };
    send_update_event(
        ctx,
        user,
        message,
        plan,
        rendered,
        scope,
        access.as_ref(),
        &recipients,
        &changed.ids,
        &before.topic_participants,
        now,
    )
    .await;
    if let (Some(access), Some(scope)) = (&access, scope) {
        send_lost_access_events(ctx, user, message, scope, access, &changed.ids).await;
    }
    let newly_mentioned = newly_mentioned(user, &before.rows, rendered);
    if let (Some(notices), Some(pending)) = (along.notices, pending_notices) {
        notices.finish(ctx, RealmId(user.realm_id), &results, pending).await?;
    }
    let relinked = relink.map(|slots| slots.take(&results)).transpose()?;
    Ok(Applied { newly_mentioned, relinked })
}

/// What every part of an edit's write reads.
pub(super) struct Edit<'a> {
    pub(super) user: &'a UserRow,
    pub(super) message: &'a MessageRow,
    pub(super) plan: &'a EditPlan,
    pub(super) rendered: Option<&'a Rendered>,
    pub(super) scope: Option<&'a MoveScope>,
    pub(super) now: i64,
}

impl Edit<'_> {
    /// The channel the messages end in (none for direct messages).
    pub(super) fn target_channel_id(&self) -> Option<i64> {
        self.plan.stream_id.or(self.message.channel_id)
    }

    pub(super) fn target_recipient_id(&self) -> i64 {
        self.scope.and_then(|s| s.target_channel.as_ref()).map(|c| c.recipient_id).unwrap_or(self.message.recipient_id)
    }

    pub(super) fn target_topic(&self) -> String {
        self.plan.topic.clone().unwrap_or_else(|| self.message.topic.clone())
    }

    pub(super) fn moved_at(&self) -> Option<i64> {
        self.plan.counts_as_move().then_some(self.now)
    }
}

/// The target message: its full new state, its history entry first.
pub(super) fn add_target_update(batch: &mut Batch, edit: &Edit) -> ApiResult<()> {
    let Edit { user, message, plan, rendered, now, .. } = *edit;
    let entry = rules::history_entry(user.id, now, message, plan, true);
    let mut history: Vec<Value> = message.edit_history.as_deref().and_then(|h| serde_json::from_str(h).ok()).unwrap_or_default();
    history.insert(0, entry);
    let history = serde_json::to_string(&history)?;
    let (content, html, is_me) = match (&plan.content, rendered) {
        (Some(c), Some(r)) => (c.as_str(), r.html.as_str(), r.is_me_message),
        _ => (message.content.as_str(), message.rendered_content.as_str(), message.is_me_message != 0),
    };
    batch.add::<Value>(q::update_target_stmt(&q::TargetUpdate {
        id: message.id,
        content,
        rendered_content: html,
        is_me_message: is_me,
        topic: &edit.target_topic(),
        recipient_id: edit.target_recipient_id(),
        channel_id: edit.target_channel_id(),
        last_edit_timestamp: if plan.content.is_some() { Some(now) } else { message.last_edit_timestamp },
        last_moved_timestamp: edit.moved_at().or(message.last_moved_timestamp),
        edit_history: &history,
    })?);
    Ok(())
}

/// The other moved messages: only the move in their history.
pub(super) fn add_moved_others(batch: &mut Batch, edit: &Edit, others: &[i64]) -> ApiResult<()> {
    let other_entry = serde_json::to_string(&rules::history_entry(edit.user.id, edit.now, edit.message, edit.plan, false))?;
    if let Some(channel_id) = edit.target_channel_id() {
        let (topic, recipient_id) = (edit.target_topic(), edit.target_recipient_id());
        for chunk in q::chunks(others) {
            batch.add::<Value>(q::move_messages_stmt(&chunk, &topic, recipient_id, ChannelId(channel_id), &other_entry, edit.moved_at())?);
        }
    }
    Ok(())
}

/// A channel move: who loses the messages' rows, and, in a channel without shared history,
/// the rows its subscribers gain.
pub(super) fn add_channel_move_rows(
    batch: &mut Batch,
    access: &ChannelMoveAccess,
    target: &MoveChannelRow,
    changed_ids: &[i64],
) -> ApiResult<()> {
    let losing = serde_json::to_string(&access.losing_rows)?;
    for chunk in q::chunks(changed_ids) {
        if !access.losing_rows.is_empty() {
            batch.add::<Value>(q::delete_user_rows_stmt(&chunk, &losing)?);
        }
        if target.history_public_to_subscribers == 0 {
            batch.add::<Value>(q::add_subscriber_rows_stmt(&chunk, target.id)?);
        }
    }
    Ok(())
}

/// What the write read for a content edit's event: the channel's name, and its active
/// subscribers when its history is shared.
#[allow(clippy::type_complexity)]
pub(super) fn channel_for_event(
    results: &BatchResults,
    reads: Option<(Slot<MoveChannelRow>, Slot<SubscriberRow>)>,
) -> ApiResult<(Option<String>, Vec<i64>)> {
    let Some((channel, subscribers)) = reads else { return Ok((None, Vec::new())) };
    let channel = results.first(channel)?;
    let name = channel.as_ref().map(|c| c.name.clone());
    let shared = if channel.is_some_and(|c| c.history_public_to_subscribers != 0) {
        results.rows(subscribers)?.into_iter().filter(|s| s.active != 0).map(|s| s.user_id).collect()
    } else {
        Vec::new()
    };
    Ok((name, shared))
}

/// `delete_message` to the users a channel move took the messages from.
pub(super) async fn send_lost_access_events(
    ctx: &RequestContext,
    user: &UserRow,
    message: &MessageRow,
    scope: &MoveScope,
    access: &ChannelMoveAccess,
    changed_ids: &[i64],
) {
    if access.losing_access.is_empty() {
        return;
    }
    let event = crate::actions::message_delete::delete_message_event(
        &changed_ids.iter().copied().map(MessageId).collect::<Vec<_>>(),
        Some((ChannelId(scope.orig_channel.id), &message.topic)),
    );
    let users: Vec<EventUser> = access.losing_access.iter().map(|id| EventUser::plain(*id)).collect();
    events::send_event(&ctx.env, user.realm_id, &event, &users).await;
}

/// The users new content mentions who were not mentioned before (the editor aside).
pub(super) fn newly_mentioned(user: &UserRow, rows_before: &[RecipientRow], rendered: Option<&Rendered>) -> Vec<i64> {
    let Some(r) = rendered else { return Vec::new() };
    rows_before
        .iter()
        .filter(|row| {
            row.user_id != user.id && row.flags & crate::model::message_flags::MENTIONED == 0 && r.mentioned_user_ids.contains(&row.user_id)
        })
        .map(|row| row.user_id)
        .collect()
}
