//! Rendering edited content: HTML and the mentions it makes, for the edit and notification
//! paths. (Adapter over the project's renderer.)

use serde::Deserialize;
use worker::{query, D1Database};

use crate::error::ApiResult;

#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub html: String,
    pub is_me_message: bool,
    /// Users mentioned by a non-silent mention.
    pub mentioned_user_ids: Vec<i64>,
    pub stream_wildcard: bool,
    pub topic_wildcard: bool,
}

#[derive(Deserialize)]
struct NameRow {
    id: i64,
    full_name: String,
}

/// The mention targets written in the content: `(name, silent)` for `@**name**` and
/// `@_**name**` (a `|id` suffix names the user by id).
fn mention_targets(content: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut rest = content;
    while let Some(at) = rest.find('@') {
        let after = &rest[at + 1..];
        let (silent, after) = match after.strip_prefix('_') {
            Some(a) => (true, a),
            None => (false, after),
        };
        if let Some(body) = after.strip_prefix("**") {
            if let Some(end) = body.find("**") {
                out.push((body[..end].to_string(), silent));
                rest = &body[end + 2..];
                continue;
            }
        }
        rest = after;
    }
    out
}

const STREAM_WILDCARDS: &[&str] = &["all", "everyone", "stream", "channel"];

/// Renders `content` for the organization `realm_id` (one query for mentioned names).
pub async fn render(db: &D1Database, realm_id: i64, content: &str) -> ApiResult<Rendered> {
    let targets = mention_targets(content);
    let mut rendered = Rendered { is_me_message: content.starts_with("/me "), ..Default::default() };
    let names: Vec<String> = targets.iter().filter(|(_, silent)| !silent).map(|(n, _)| n.clone()).collect();
    for (name, silent) in &targets {
        if *silent {
            continue;
        }
        if STREAM_WILDCARDS.contains(&name.as_str()) {
            rendered.stream_wildcard = true;
        }
        if name == "topic" {
            rendered.topic_wildcard = true;
        }
    }
    if !names.is_empty() {
        let rows: Vec<NameRow> = crate::db::all(query!(
            db,
            "SELECT id, full_name FROM users WHERE realm_id = ?1 AND is_active = 1 \
             AND (full_name IN (SELECT value FROM json_each(?2)) OR CAST(id AS TEXT) IN (SELECT value FROM json_each(?3)))",
            realm_id,
            serde_json::to_string(&names)?,
            serde_json::to_string(&names.iter().filter_map(|n| n.rsplit_once('|').map(|(_, id)| id.to_string())).collect::<Vec<_>>())?
        )?)
        .await?;
        for name in &names {
            let by_id = name.rsplit_once('|').and_then(|(_, id)| id.parse::<i64>().ok());
            for row in &rows {
                if Some(row.id) == by_id || row.full_name == *name {
                    rendered.mentioned_user_ids.push(row.id);
                }
            }
        }
        rendered.mentioned_user_ids.sort_unstable();
        rendered.mentioned_user_ids.dedup();
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new(content));
    rendered.html = html.trim_end().to_string();
    Ok(rendered)
}
