//! `GET /messages/matches_narrow`: which of some messages (that the caller received) a
//! narrow matches, each with `match_content` and `match_subject` as `GET /messages` gives
//! them for a search, so a client can splice them into a message from an event.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::auth::ReadAsUser;
use crate::db::batch::{Batch, BatchResults};
use crate::db::narrow_matches::{add_matches, PendingMatches};
use crate::db::users::UserRow;
use crate::domain::search::{match_content, match_subject};
use crate::error::ApiResult;
use crate::model::narrow::Term;
use crate::platform::realm_cache::RealmState;

pub struct NarrowMatches {
    pub terms: Vec<Term>,
    pub message_ids: Vec<i64>,
}

impl ReadAsUser for NarrowMatches {
    type Slots = PendingMatches;
    type Output = Value;
    fn add(&self, batch: &mut Batch, me: &UserRow, realm: &RealmState) -> ApiResult<PendingMatches> {
        add_matches(batch, me, &self.terms, &realm.settings.empty_topic_display_name, &self.message_ids)
    }
    fn take(&self, results: &BatchResults, pending: PendingMatches, _: &UserRow, _: &RealmState) -> ApiResult<Value> {
        let marks: HashMap<i64, _> = results.rows_if_added(pending.marks)?.into_iter().map(|m| (m.id, m)).collect();
        let mut messages = Map::new();
        for row in results.rows(pending.rows)? {
            let marked = marks.get(&row.id);
            let fields = json!({
                "match_content": match_content(&row.rendered_content, marked.and_then(|m| m.content.as_deref())),
                "match_subject": match_subject(&row.topic, marked.and_then(|m| m.topic.as_deref())),
            });
            messages.insert(row.id.to_string(), fields);
        }
        Ok(json!({ "messages": messages }))
    }
}
