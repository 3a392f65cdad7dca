//! Adding and removing alert words, with the `alert_words` event.

use serde_json::json;
use worker::{D1Database, Env};

use crate::actions::notify_users;
use crate::db::alert_words::{self, WordRow};
use crate::db::batch::Batch;
use crate::db::users::UserRow;
use crate::error::ApiResult;
use crate::event_types::Event;
use crate::model::ids::{RealmId, UserId};

/// Adds (`add`) or removes the words and answers the user's words afterwards. One batch (the
/// write and the read); the event carries the new list, as Zulip's, even when unchanged.
pub async fn do_update_alert_words(db: &D1Database, env: &Env, me: &UserRow, words: &[String], add: bool) -> ApiResult<Vec<String>> {
    let words_json = serde_json::to_string(words)?;
    let write = if add {
        alert_words::add_stmt(RealmId(me.realm_id), UserId(me.id), &words_json)?
    } else {
        alert_words::remove_stmt(me.id, &words_json)?
    };
    let mut batch = Batch::new();
    batch.add::<serde_json::Value>(write);
    let words = batch.add::<WordRow>(alert_words::for_user_stmt(me.id)?);
    let results = batch.run(db).await?;
    let list: Vec<String> = results.rows(words)?.into_iter().map(|r| r.word).collect();
    notify_users(env, me.realm_id, &[me.id], &Event::AlertWords { alert_words: json!(list) }).await;
    Ok(list)
}
