//! Which of some messages a narrow matches, for `GET /messages/matches_narrow`: only
//! messages the caller received (a row in `user_messages`), as Zulip checks them.

use serde::Deserialize;
use serde_json::Value;

use crate::db::batch::{Batch, Slot};
use crate::db::message_window::{SearchMatch, MATCH_END, MATCH_START};
use crate::db::narrow::{narrow_sql, SqlValue};
use crate::db::statement::Statement;
use crate::db::users::UserRow;
use crate::error::ApiResult;
use crate::model::ids::{RealmId, UserId};
use crate::model::narrow::Term;

/// A message the narrow matched: what `match_content` and `match_subject` are made of.
#[derive(Debug, Deserialize)]
pub struct MatchedRow {
    pub id: i64,
    pub topic: String,
    pub rendered_content: String,
}

/// The statements of [`add_matches`]: the matched messages and, for a search, what its
/// terms matched in each (between [`MATCH_START`] and [`MATCH_END`]).
pub struct PendingMatches {
    pub rows: Slot<MatchedRow>,
    pub marks: Option<Slot<SearchMatch>>,
}

/// Adds to `batch` the messages among `ids` that `me` received and `terms` match.
pub fn add_matches(
    batch: &mut Batch,
    me: &UserRow,
    terms: &[Term],
    empty_topic_display_name: &str,
    ids: &[i64],
) -> ApiResult<PendingMatches> {
    // ?1 realm, ?2 user, ?3 the ids; narrow values from ?4.
    let sql = narrow_sql(terms, RealmId(me.realm_id), UserId(me.id), empty_topic_display_name, 4)?;
    let mut conditions =
        vec!["m.realm_id = ?1".to_string(), "um.user_id IS NOT NULL".to_string(), "m.id IN (SELECT value FROM json_each(?3))".to_string()];
    conditions.extend(sql.conditions.iter().cloned());
    let search = sql.search_param.as_deref();
    if let Some(p) = search {
        conditions.push(format!("m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH {p})"));
    }
    let mut params = vec![Value::from(me.realm_id), Value::from(me.id), Value::from(serde_json::to_string(ids)?)];
    params.extend(sql.params.iter().map(SqlValue::to_value));
    let matched = format!(
        "SELECT m.id FROM messages m JOIN recipients rc ON rc.id = m.recipient_id \
         JOIN user_messages um ON um.message_id = m.id AND um.user_id = ?2 \
         LEFT JOIN channels c ON c.id = m.channel_id WHERE {}",
        conditions.join(" AND ")
    );
    let rows = batch.add(Statement::new(
        format!("SELECT id, topic, rendered_content FROM messages WHERE id IN ({matched}) ORDER BY id"),
        params.clone(),
    ));
    let marks = search.map(|p| {
        let (start, end) = (MATCH_START as u32, MATCH_END as u32);
        let marked = |column: usize| format!("highlight(messages_fts, {column}, char({start}), char({end}))");
        batch.add(Statement::new(
            format!(
                "SELECT rowid AS id, {} AS content, {} AS topic FROM messages_fts WHERE messages_fts MATCH {p} AND rowid IN ({matched})",
                marked(0),
                marked(1)
            ),
            params,
        ))
    });
    Ok(PendingMatches { rows, marks })
}
