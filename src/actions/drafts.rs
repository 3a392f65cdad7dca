//! Creating, editing and deleting drafts: checked against the organization in one read
//! batch, written in one batch, then the `drafts` event to the owner's queues.

use worker::{D1Database, Env};

use crate::db::batch::Batch;
use crate::db::drafts::{self, DraftFields, DraftRow};
use crate::db::realm_settings::{self, RealmSettingsRow};
use crate::db::subscriptions::{self, ChannelViewRow};
use crate::db::users::{self, UserRow};
use crate::db::{self};
use crate::domain::drafts::{check_draft_shape, draft_dict, DraftData};
use crate::domain::message_send::normalize_content;
use crate::domain::topics::truncate;
use crate::error::{ApiError, ApiResult};
use crate::event_types::DraftsEvent;
use crate::events::{send_event, Event, EventUser};
use crate::model::ids::{RealmId, UserId};

/// A draft ready to store.
pub fn draft_not_found() -> ApiError {
    ApiError::bad_request("Draft does not exist").with_status(404)
}

/// Zulip's `further_validated_draft_dict` for every draft: the content rules of messages, a
/// channel the user may access, recipients who exist; the topic is kept for channel drafts
/// only and truncated to `max_topic_length`.
async fn check_drafts(db: &D1Database, me: &UserRow, list: &[DraftData]) -> ApiResult<Vec<DraftFields>> {
    let now = db::now();
    let times = list.iter().map(|d| check_draft_shape(d, now)).collect::<ApiResult<Vec<i64>>>()?;
    let channel_ids: Vec<i64> = list.iter().filter(|d| d.kind == "stream").flat_map(|d| d.to.iter().copied()).collect();
    let user_ids: Vec<i64> = list.iter().filter(|d| d.kind == "private").flat_map(|d| d.to.iter().copied()).collect();
    let mut batch = Batch::new();
    let settings = batch.add::<RealmSettingsRow>(realm_settings::by_realm_id_stmt(me.realm_id)?);
    let channels = batch.add::<ChannelViewRow>(subscriptions::by_ids_for_user_stmt(
        RealmId(me.realm_id),
        UserId(me.id),
        &serde_json::to_string(&channel_ids)?,
    )?);
    let users = batch.add::<UserRow>(users::by_ids_stmt(me.realm_id, &serde_json::to_string(&user_ids)?)?);
    let results = batch.run(db).await?;
    let settings = results.first(settings)?.ok_or_else(|| ApiError::internal("realm has no settings"))?;
    let channels = results.rows(channels)?;
    let users = results.rows(users)?;
    let mut checked = Vec::new();
    for (draft, last_edit_time) in list.iter().zip(times) {
        let content = normalize_content(&draft.content, settings.max_message_length)?;
        let mut topic = String::new();
        let mut to = draft.to.clone();
        match draft.kind.as_str() {
            "stream" => {
                let accessible =
                    channels.iter().find(|c| c.id == to[0]).is_some_and(|c| crate::domain::channels::can_access_channel_content(me, c));
                if !accessible {
                    return Err(ApiError::invalid_channel_id());
                }
                topic = truncate(&draft.topic, settings.max_topic_length.max(4) as usize, "...");
            }
            "private" => {
                if let Some(missing) = to.iter().find(|id| !users.iter().any(|u| u.id == **id)) {
                    return Err(ApiError::bad_request(format!("Invalid user ID {missing}")));
                }
                to.sort_unstable();
                to.dedup();
            }
            _ => to.clear(),
        }
        checked.push(DraftFields { kind: draft.kind.clone(), to_ids: serde_json::to_string(&to)?, topic, content, last_edit_time });
    }
    Ok(checked)
}

pub async fn create_drafts(db: &D1Database, env: &Env, me: &UserRow, list: &[DraftData]) -> ApiResult<Vec<i64>> {
    let checked = check_drafts(db, me, list).await?;
    if checked.is_empty() {
        return Ok(Vec::new());
    }
    let mut batch = Batch::new();
    let slots: Vec<_> =
        checked.iter().map(|d| drafts::insert_stmt(me.id, d).map(|s| batch.add::<DraftRow>(s))).collect::<worker::Result<_>>()?;
    let results = batch.run(db).await?;
    let mut rows = Vec::new();
    for slot in slots {
        rows.push(results.first(slot)?.ok_or_else(|| ApiError::internal("draft insert returned no row"))?);
    }
    let event = Event::Drafts(DraftsEvent::Add { drafts: rows.iter().map(draft_dict).collect() });
    notify_owner(env, me, &event).await;
    Ok(rows.iter().map(|r| r.id).collect())
}

pub async fn edit_draft(db: &D1Database, env: &Env, me: &UserRow, id: i64, draft: &DraftData) -> ApiResult<()> {
    let checked = check_drafts(db, me, std::slice::from_ref(draft)).await?;
    let d = &checked[0];
    let row: DraftRow = db::first(db, drafts::update_stmt(id, UserId(me.id), d)?).await?.ok_or_else(draft_not_found)?;
    notify_owner(env, me, &Event::Drafts(DraftsEvent::Update { draft: draft_dict(&row) })).await;
    Ok(())
}

pub async fn delete_draft(db: &D1Database, env: &Env, me: &UserRow, id: i64) -> ApiResult<()> {
    let deleted: Option<serde_json::Value> = db::first(db, drafts::delete_stmt(id, UserId(me.id))?).await?;
    if deleted.is_none() {
        return Err(draft_not_found());
    }
    notify_owner(env, me, &Event::Drafts(DraftsEvent::Remove { draft_id: id })).await;
    Ok(())
}

async fn notify_owner(env: &Env, me: &UserRow, event: &Event) {
    send_event(env, me.realm_id, event, &[EventUser::plain(me.id)]).await;
}
