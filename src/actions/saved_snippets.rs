//! Creating, editing and deleting saved snippets, with their `saved_snippets` events (to
//! the owner's queues only).

use worker::{D1Database, Env};

use crate::actions::notify_users;
use crate::db::{self, saved_snippets, users::UserRow};
use crate::domain::saved_snippets::{check_content, check_title, snippet_dict, snippet_not_found};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, SavedSnippetsEvent};
use crate::model::ids::{RealmId, UserId};

/// Validates and stores a snippet; answers its id.
pub async fn do_create_saved_snippet(db: &D1Database, env: &Env, me: &UserRow, title: &str, content: &str) -> ApiResult<i64> {
    let title = check_title(title)?;
    let content = check_content(content)?;
    let row = saved_snippets::insert(db, RealmId(me.realm_id), UserId(me.id), &title, &content, db::now())
        .await?
        .ok_or_else(|| ApiError::internal("saved snippet insert returned no row"))?;
    notify_owner(env, me, &Event::SavedSnippets(SavedSnippetsEvent::Add { saved_snippet: snippet_dict(&row) })).await;
    Ok(row.id)
}

/// Changes the title and/or content of one of the user's snippets. With neither, nothing
/// happens (no event), as in Zulip.
pub async fn do_edit_saved_snippet(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    id: i64,
    title: Option<&str>,
    content: Option<&str>,
) -> ApiResult<()> {
    let title = title.map(check_title).transpose()?;
    let content = content.map(check_content).transpose()?;
    if title.is_none() && content.is_none() {
        return Ok(());
    }
    let row = saved_snippets::update(db, UserId(me.id), id, title.as_deref(), content.as_deref()).await?.ok_or_else(snippet_not_found)?;
    notify_owner(env, me, &Event::SavedSnippets(SavedSnippetsEvent::Update { saved_snippet: snippet_dict(&row) })).await;
    Ok(())
}

pub async fn do_delete_saved_snippet(db: &D1Database, env: &Env, me: &UserRow, id: i64) -> ApiResult<()> {
    if !saved_snippets::delete(db, UserId(me.id), id).await? {
        return Err(snippet_not_found());
    }
    notify_owner(env, me, &Event::SavedSnippets(SavedSnippetsEvent::Remove { saved_snippet_id: id })).await;
    Ok(())
}

async fn notify_owner(env: &Env, me: &UserRow, event: &Event) {
    notify_users(env, me.realm_id, &[me.id], event).await;
}
