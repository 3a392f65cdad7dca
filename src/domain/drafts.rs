//! Drafts: the shape clients send and the object the API shows.

use serde::Deserialize;
use serde_json::{json, Value};

use worker::D1Database;

use crate::db::drafts::{self, DraftRow};
use crate::error::{ApiError, ApiResult};

/// A draft as clients send it (Zulip's `DraftData`; unknown keys are refused).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DraftData {
    #[serde(rename = "type")]
    pub kind: String,
    pub to: Vec<i64>,
    pub topic: String,
    pub content: String,
    #[serde(default)]
    pub timestamp: Option<f64>,
}

/// The checks that need no database: the type, a non-negative timestamp, one channel for
/// channel drafts, no NUL in the topic. Answers the draft's time in whole seconds.
pub fn check_draft_shape(draft: &DraftData, now: i64) -> ApiResult<i64> {
    if !matches!(draft.kind.as_str(), "" | "stream" | "private") {
        return Err(ApiError::invalid_argument("type", "one of '', 'stream', 'private'"));
    }
    let timestamp = draft.timestamp.unwrap_or(now as f64);
    if timestamp < 0.0 {
        return Err(ApiError::bad_request("Timestamp must not be negative."));
    }
    if draft.kind == "stream" {
        if draft.topic.contains('\0') {
            return Err(ApiError::bad_request("Topic must not contain null bytes"));
        }
        if draft.to.len() != 1 {
            return Err(ApiError::bad_request("Must specify exactly 1 channel ID for channel messages"));
        }
    }
    Ok(timestamp as i64)
}

/// Zulip's Draft object.
pub fn draft_dict(row: &DraftRow) -> Value {
    let to: Value = serde_json::from_str(&row.to_ids).unwrap_or(json!([]));
    json!({
        "id": row.id,
        "type": row.kind,
        "to": to,
        "topic": row.topic,
        "content": row.content,
        "timestamp": row.last_edit_time,
    })
}

/// The user's drafts as the API shows them, oldest first. One round trip.
pub async fn drafts_of(db: &D1Database, user_id: i64) -> ApiResult<Vec<Value>> {
    let rows: Vec<DraftRow> = crate::db::all(db, drafts::of_user_stmt(user_id)?).await?;
    Ok(rows.iter().map(draft_dict).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(kind: &str, to: Vec<i64>, timestamp: Option<f64>) -> DraftData {
        DraftData { kind: kind.into(), to, topic: "t".into(), content: "c".into(), timestamp }
    }

    #[test]
    fn channel_drafts_name_exactly_one_channel() {
        assert!(check_draft_shape(&draft("stream", vec![1, 2], None), 5).is_err());
        assert!(check_draft_shape(&draft("stream", vec![], None), 5).is_err());
        assert_eq!(check_draft_shape(&draft("stream", vec![1], None), 5).unwrap(), 5);
    }

    #[test]
    fn negative_timestamps_and_unknown_types_are_refused() {
        assert!(check_draft_shape(&draft("", vec![], Some(-1.0)), 5).is_err());
        assert!(check_draft_shape(&draft("channel", vec![1], None), 5).is_err());
        assert_eq!(check_draft_shape(&draft("private", vec![], Some(12.7)), 5).unwrap(), 12);
    }
}
