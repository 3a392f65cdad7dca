//! Rendering content for a message: resolving what it mentions or links to (one batch) and
//! calling the Markdown renderer. Used by sending and editing.

use std::collections::{BTreeSet, HashMap};

use worker::{D1Database, D1PreparedStatement, D1Result};

use crate::db::mentions::{self, GroupMemberRow, NamedRow};
use crate::db::realm_emoji::RealmEmojiRow;
use crate::error::ApiResult;
use crate::markdown::{self, CustomEmoji, LinkableChannel, MentionableGroup, MentionableUser, References, Rendered, Resolved};

/// The six statements resolving `refs` in the organization: mentionable users (active,
/// by full name or id), groups, their members (direct or through subgroups; for system
/// groups, the users of the group's role), linkable channels, the linkifiers, and the
/// active custom emoji the content may name.
pub fn resolution_stmts(db: &D1Database, realm_id: i64, refs: &References) -> worker::Result<Vec<D1PreparedStatement>> {
    let user_names = serde_json::to_string(&refs.user_names).unwrap_or_else(|_| "[]".into());
    let user_ids = serde_json::to_string(&refs.user_ids).unwrap_or_else(|_| "[]".into());
    let group_names = serde_json::to_string(&refs.group_names).unwrap_or_else(|_| "[]".into());
    let channel_names = serde_json::to_string(&refs.channel_names).unwrap_or_else(|_| "[]".into());
    let emoji_names = serde_json::to_string(&refs.emoji_names).unwrap_or_else(|_| "[]".into());
    Ok(vec![
        mentions::users_stmt(db, realm_id, &user_names, &user_ids)?,
        mentions::groups_stmt(db, realm_id, &group_names)?,
        mentions::group_members_stmt(db, realm_id, &group_names)?,
        mentions::channels_stmt(db, realm_id, &channel_names)?,
        crate::db::linkifiers::in_realm_stmt(db, realm_id)?,
        crate::db::realm_emoji::active_by_names_stmt(db, realm_id, &emoji_names)?,
    ])
}

/// What [`resolution_stmts`] found, as the renderer takes it, plus each group's members.
pub fn resolved_from(results: &[D1Result]) -> worker::Result<(Resolved, HashMap<i64, Vec<i64>>)> {
    let users = results[0].results::<NamedRow>()?.into_iter().map(|r| MentionableUser { id: r.id, full_name: r.name }).collect();
    let groups = results[1].results::<NamedRow>()?.into_iter().map(|r| MentionableGroup { id: r.id, name: r.name }).collect();
    let mut members: HashMap<i64, Vec<i64>> = HashMap::new();
    for row in results[2].results::<GroupMemberRow>()? {
        members.entry(row.group_id).or_default().push(row.user_id);
    }
    let channels = results[3].results::<NamedRow>()?.into_iter().map(|r| LinkableChannel { id: r.id, name: r.name }).collect();
    let linkifiers = crate::domain::linkifiers::for_rendering(&results[4].results()?);
    let custom_emoji = results[5]
        .results::<RealmEmojiRow>()?
        .iter()
        .map(|e| CustomEmoji { name: e.name.clone(), source_url: crate::domain::realm_emoji::source_url(e) })
        .collect();
    Ok((Resolved { users, groups, channels, linkifiers, custom_emoji, ..Resolved::default() }, members))
}

/// The users a rendering mentions personally: mentioned users and members of mentioned groups.
pub fn mentioned_user_ids(rendered: &Rendered, group_members: &HashMap<i64, Vec<i64>>) -> BTreeSet<i64> {
    let mut ids = rendered.mentioned_user_ids.clone();
    for group_id in &rendered.mentioned_group_ids {
        ids.extend(group_members.get(group_id).into_iter().flatten().copied());
    }
    ids
}

/// Resolves and renders `content` (one D1 round trip); answers the rendering and the
/// personally mentioned user ids.
/// `realm_url`: the organization's URL; `translate_emoticons`: the author's setting of that name.
pub async fn render_content(
    db: &D1Database,
    realm_id: i64,
    realm_url: &str,
    content: &str,
    translate_emoticons: bool,
) -> ApiResult<(Rendered, BTreeSet<i64>)> {
    let refs = markdown::references(content);
    let results = crate::db::run_batch(db, resolution_stmts(db, realm_id, &refs)?).await?;
    let (mut resolved, members) = resolved_from(&results)?;
    resolved.translate_emoticons = translate_emoticons;
    resolved.realm_url = realm_url.to_string();
    let rendered = markdown::render(content, &resolved);
    let mentioned = mentioned_user_ids(&rendered, &members);
    Ok((rendered, mentioned))
}
