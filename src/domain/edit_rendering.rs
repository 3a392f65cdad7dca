//! Rendering edited content with the project's renderer (`crate::markdown`): the names and
//! ids the content refers to are resolved with one D1 batch, then rendered. Group mentions
//! count as mentions of the group's direct members, as in Zulip.

use serde::Deserialize;
use worker::{query, D1Database};

use crate::error::ApiResult;
use crate::markdown::{self, LinkableChannel, MentionableGroup, MentionableUser, Resolved};

#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub html: String,
    pub is_me_message: bool,
    /// Users mentioned by a non-silent mention (group mentions included).
    pub mentioned_user_ids: Vec<i64>,
    pub stream_wildcard: bool,
    pub topic_wildcard: bool,
}

#[derive(Deserialize)]
struct UserName {
    id: i64,
    full_name: String,
}

#[derive(Deserialize)]
struct GroupName {
    id: i64,
    name: String,
}

#[derive(Deserialize)]
struct GroupMember {
    group_id: i64,
    user_id: i64,
}

/// Renders `content` for the organization `realm_id` (one batch when it mentions or links
/// anything, none otherwise).
pub async fn render(db: &D1Database, realm_id: i64, content: &str) -> ApiResult<Rendered> {
    let refs = markdown::references(content);
    let mut resolved = Resolved::default();
    let mut members: Vec<GroupMember> = Vec::new();
    let anything = !(refs.user_names.is_empty() && refs.user_ids.is_empty() && refs.group_names.is_empty() && refs.channel_names.is_empty());
    if anything {
        let names = serde_json::to_string(&refs.user_names)?;
        let ids = serde_json::to_string(&refs.user_ids)?;
        let groups = serde_json::to_string(&refs.group_names)?;
        let channels = serde_json::to_string(&refs.channel_names)?;
        let results = db
            .batch(vec![
                query!(
                    db,
                    "SELECT id, full_name FROM users WHERE realm_id = ?1 AND is_active = 1 \
                     AND (full_name COLLATE NOCASE IN (SELECT value FROM json_each(?2)) OR id IN (SELECT value FROM json_each(?3)))",
                    realm_id,
                    &names,
                    &ids
                )?,
                query!(
                    db,
                    "SELECT id, name FROM user_groups WHERE realm_id = ?1 AND deactivated = 0 \
                     AND name IN (SELECT value FROM json_each(?2))",
                    realm_id,
                    &groups
                )?,
                query!(
                    db,
                    "SELECT m.group_id, m.user_id FROM user_group_members m JOIN user_groups g ON g.id = m.group_id \
                     WHERE g.realm_id = ?1 AND g.name IN (SELECT value FROM json_each(?2))",
                    realm_id,
                    &groups
                )?,
                query!(
                    db,
                    "SELECT id, name FROM channels WHERE realm_id = ?1 AND name COLLATE NOCASE IN (SELECT value FROM json_each(?2))",
                    realm_id,
                    &channels
                )?,
            ])
            .await?;
        resolved.users = results[0]
            .results::<UserName>()?
            .into_iter()
            .map(|u| MentionableUser { id: u.id, full_name: u.full_name })
            .collect();
        resolved.groups = results[1].results::<GroupName>()?.into_iter().map(|g| MentionableGroup { id: g.id, name: g.name }).collect();
        members = results[2].results()?;
        resolved.channels = results[3].results::<GroupName>()?.into_iter().map(|c| LinkableChannel { id: c.id, name: c.name }).collect();
    }
    let out = markdown::render(content, &resolved);
    let mut mentioned: Vec<i64> = out.mentioned_user_ids.iter().copied().collect();
    for m in &members {
        if out.mentioned_group_ids.contains(&m.group_id) {
            mentioned.push(m.user_id);
        }
    }
    mentioned.sort_unstable();
    mentioned.dedup();
    Ok(Rendered {
        html: out.html,
        is_me_message: out.is_me_message,
        mentioned_user_ids: mentioned,
        stream_wildcard: out.stream_wildcard,
        topic_wildcard: out.topic_wildcard,
    })
}
