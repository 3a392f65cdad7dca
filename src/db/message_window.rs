//! The messages of a narrow around an anchor, as `GET /messages` and
//! `POST /messages/flags/narrow` select them: two reads (three for the first-unread anchor)
//! in one batch, which may carry the messages' context too. Without a channel term only
//! messages the caller received are in scope; with one, the channel's history the caller
//! may read.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::messages::ACCESS_CONDITION;
use crate::db::messages::{MessageRow, MessageSet, COLUMNS};
use crate::db::narrow::{narrow_sql, SqlValue};
use crate::db::statement::Statement;
use crate::db::users::UserRow;
use crate::error::ApiResult;
use crate::model::ids::{RealmId, UserId};
use crate::model::message_flags::READ;
use crate::model::narrow::Term;

/// Anchors beyond any message id, as Zulip's `LARGER_THAN_MAX_MESSAGE_ID`.
pub const LARGER_THAN_MAX_MESSAGE_ID: i64 = 10_000_000_000_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Id(i64),
    FirstUnread,
}

pub struct WindowRequest<'a> {
    pub terms: &'a [Term],
    pub anchor: Anchor,
    pub num_before: i64,
    pub num_after: i64,
    pub include_anchor: bool,
    /// The realm's name of the empty topic (a topic operand naming it means "").
    pub empty_topic_display_name: &'a str,
    /// Read what a search term matched in each message (for `match_content`).
    pub with_matches: bool,
}

/// The selected messages, oldest first, each with the caller's flags (`None`: no row).
pub struct Window {
    pub rows: Vec<(MessageRow, Option<i64>)>,
    pub anchor: i64,
    pub found_anchor: bool,
    pub found_newest: bool,
    pub found_oldest: bool,
    /// The narrow has a search term (messages get `match_content` / `match_subject`).
    pub has_search: bool,
    /// What the search matched in each selected message, by message id.
    pub matches: HashMap<i64, SearchMatch>,
}

/// A message's content and topic as the search index read them, each match between
/// [`MATCH_START`] and [`MATCH_END`] (FTS5's `highlight()`).
#[derive(Debug, Clone, Deserialize)]
pub struct SearchMatch {
    pub id: i64,
    pub content: Option<String>,
    pub topic: Option<String>,
}

/// The marks around a match in [`SearchMatch`]: control characters, which no message's
/// text carries into its rendering.
pub const MATCH_START: char = '\u{1}';
pub const MATCH_END: char = '\u{2}';

#[derive(Deserialize)]
struct FlagsRow {
    um_flags: Option<i64>,
}

#[derive(Deserialize)]
struct IdRow {
    id: Option<i64>,
}

const JOINS: &str = "JOIN recipients rc ON rc.id = m.recipient_id \
    LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = ?2 \
    LEFT JOIN channels c ON c.id = m.channel_id";

/// The tables a window reads and the id it orders by. A search reads the index first
/// (CROSS JOIN fixes that order) in its own rowid order, so the newest matches come first
/// and the LIMIT stops the read.
fn from_and_order(search_param: Option<&str>) -> (String, &'static str) {
    match search_param {
        Some(_) => (format!("FROM messages_fts f CROSS JOIN messages m ON m.id = f.rowid {JOINS}"), "f.rowid"),
        None => (format!("FROM messages m {JOINS}"), "m.id"),
    }
}

/// The window's statements, added to a batch; [`PendingWindow::take`] reads them.
pub struct PendingWindow {
    anchor: Option<Slot<IdRow>>,
    anchor_id: i64,
    before: Slot<Value>,
    after: Slot<Value>,
    num_before: i64,
    num_after: i64,
    include_anchor: bool,
    has_search: bool,
    matches: Option<Slot<SearchMatch>>,
    /// The messages the window may show (the selected ones and at most three neighbours).
    set: MessageSet,
}

/// Adds the statements selecting the window to `batch`: the messages before and after the
/// anchor, and for `first_unread` the anchor itself (computed inside every statement, so no
/// earlier round trip is needed).
pub fn add_window(batch: &mut Batch, me: &UserRow, req: &WindowRequest<'_>) -> ApiResult<PendingWindow> {
    // ?1 realm, ?2 user, ?3 is guest (ACCESS_CONDITION); narrow values from ?4.
    let sql = narrow_sql(req.terms, RealmId(me.realm_id), UserId(me.id), req.empty_topic_display_name, 4)?;
    let access = if sql.has_channel { ACCESS_CONDITION } else { "um.user_id IS NOT NULL" };
    let mut conditions = vec!["m.realm_id = ?1".to_string(), access.to_string()];
    conditions.extend(sql.conditions.iter().cloned());
    if let Some(p) = &sql.search_param {
        conditions.push(format!("f.messages_fts MATCH {p}"));
    }
    let (from, order) = from_and_order(sql.search_param.as_deref());
    let where_clause = conditions.join(" AND ");
    let mut params = vec![Value::from(me.realm_id), Value::from(me.id), Value::from(me.is_guest() as i64)];
    params.extend(sql.params.iter().map(SqlValue::to_value));
    // D1 wants every bound value used; each query below names the last one (an id bound),
    // so the guest flag (?3) unused without a channel term is no error.
    let last = params.len() + 1;
    // The oldest unread message of the narrow (the subquery's own aliases shadow the outer
    // query's); null when there is none.
    let first_unread =
        format!("(SELECT MIN(m.id) {from} WHERE {where_clause} AND m.id > ?{last} AND um.user_id IS NOT NULL AND (um.flags & {READ}) = 0)");
    let (anchor_id, anchor) = match req.anchor {
        Anchor::Id(id) => (id, format!("?{last}")),
        // Past every message when nothing is unread (a JavaScript number cannot carry that
        // id back exactly, so only the comparisons use it).
        Anchor::FirstUnread => (0, format!("COALESCE({first_unread}, {LARGER_THAN_MAX_MESSAGE_ID})")),
    };
    params.push(Value::from(anchor_id));
    let before_sql = format!(
        "SELECT {COLUMNS}, um.flags AS um_flags {from} WHERE {where_clause} AND {order} < {anchor} ORDER BY {order} DESC LIMIT {}",
        req.num_before + 1
    );
    let after_sql = format!(
        "SELECT {COLUMNS}, um.flags AS um_flags {from} WHERE {where_clause} AND {order} >= {anchor} ORDER BY {order} ASC LIMIT {}",
        req.num_after + 2
    );
    let anchor_slot = match req.anchor {
        Anchor::Id(_) => None,
        Anchor::FirstUnread => Some(batch.add(Statement::new(format!("SELECT {first_unread} AS id"), params.clone()))),
    };
    let before = batch.add(Statement::new(&before_sql, params.clone()));
    let after = batch.add(Statement::new(&after_sql, params.clone()));
    let set_columns = "id, sender_id, recipient_type, recipient_type_id, channel_id";
    let set_sql = format!("SELECT {set_columns} FROM ({before_sql}) UNION ALL SELECT {set_columns} FROM ({after_sql})");
    let matches = match sql.search_param.as_ref().filter(|_| req.with_matches) {
        Some(p) => {
            let (start, end) = (MATCH_START as u32, MATCH_END as u32);
            let marked = |column: usize| format!("highlight(messages_fts, {column}, char({start}), char({end}))");
            Some(batch.add(Statement::new(
                format!(
                    "SELECT rowid AS id, {} AS content, {} AS topic FROM messages_fts \
                 WHERE messages_fts MATCH {p} AND rowid IN (SELECT id FROM ({set_sql}))",
                    marked(0),
                    marked(1)
                ),
                params.clone(),
            )))
        }
        None => None,
    };
    let set = MessageSet { sql: set_sql, params };
    Ok(PendingWindow {
        anchor: anchor_slot,
        anchor_id,
        before,
        after,
        num_before: req.num_before,
        num_after: req.num_after,
        include_anchor: req.include_anchor,
        has_search: sql.has_search,
        matches,
        set,
    })
}

impl PendingWindow {
    /// The messages the window may show, for reading their context in the same batch.
    pub fn message_set(&self) -> &MessageSet {
        &self.set
    }

    pub fn take(self, results: &BatchResults) -> ApiResult<Window> {
        let anchor = match self.anchor {
            Some(slot) => results.first(slot)?.and_then(|r| r.id).unwrap_or(LARGER_THAN_MAX_MESSAGE_ID),
            None => self.anchor_id,
        };
        let before_rows = results.rows(self.before)?;
        let after_rows = results.rows(self.after)?;
        let mut rows: Vec<(MessageRow, Option<i64>)> = Vec::new();
        let found_oldest = before_rows.len() as i64 <= self.num_before;
        for v in before_rows.into_iter().take(self.num_before as usize).rev() {
            rows.push((serde_json::from_value(v.clone())?, serde_json::from_value::<FlagsRow>(v)?.um_flags));
        }
        let mut found_anchor = false;
        let mut later = 0i64;
        for v in after_rows {
            let row: MessageRow = serde_json::from_value(v.clone())?;
            let flags = serde_json::from_value::<FlagsRow>(v)?.um_flags;
            if row.id == anchor {
                found_anchor = true;
                if self.include_anchor {
                    rows.push((row, flags));
                }
            } else {
                later += 1;
                if later <= self.num_after {
                    rows.push((row, flags));
                }
            }
        }
        let matches = results.rows_if_added(self.matches)?.into_iter().map(|m| (m.id, m)).collect();
        Ok(Window { rows, anchor, found_anchor, found_newest: later <= self.num_after, found_oldest, has_search: self.has_search, matches })
    }
}
