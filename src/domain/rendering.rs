//! Rendering content for a message: resolving what it mentions or links to (one batch) and
//! calling the Markdown renderer. Used by sending and editing.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use worker::D1Database;

use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::linkifiers::LinkifierRow;
use crate::db::mentions::{self, GroupMemberRow, MentionableGroupRow, MentionableUserRow, NamedRow};
use crate::db::realm_emoji::RealmEmojiRow;
use crate::error::{ApiError, ApiResult};
use crate::markdown::{self, CustomEmoji, LinkableChannel, Linkifier, MentionableGroup, MentionableUser, References, Rendered, Resolved};
use crate::model::ids::{RealmId, UserId};

/// Where the reads that resolve a content's references sit in a batch: mentionable users
/// (active, by full name or id), groups and their members (direct or through subgroups;
/// for system groups, the users of the group's role), linkable channels, the active custom
/// emoji the content may name, and the linkifiers. A kind of reference the content does
/// not use costs no statement, and linkifiers the caller already holds (the isolate's copy
/// of the organization's state) are not read again.
pub struct ResolutionReads {
    users: Option<Slot<MentionableUserRow>>,
    groups: Option<(Slot<MentionableGroupRow>, Slot<GroupMemberRow>)>,
    channels: Option<Slot<NamedRow>>,
    emoji: Option<Slot<RealmEmojiRow>>,
    linkifiers: Linkifiers,
}

enum Linkifiers {
    Known(Vec<Linkifier>),
    Read(Slot<LinkifierRow>),
}

impl ResolutionReads {
    /// Adds the reads `refs` needs to `batch` for content `sender_id` writes; `linkifiers`
    /// are the organization's when the caller has them.
    pub fn add(
        batch: &mut Batch,
        realm_id: RealmId,
        sender_id: UserId,
        refs: &References,
        linkifiers: Option<&[Linkifier]>,
    ) -> worker::Result<Self> {
        let json = |list: &[String]| serde_json::to_string(list).unwrap_or_else(|_| "[]".into());
        let users = if refs.user_names.is_empty() && refs.user_ids.is_empty() {
            None
        } else {
            let ids = serde_json::to_string(&refs.user_ids).unwrap_or_else(|_| "[]".into());
            Some(batch.add(mentions::users_stmt(realm_id.0, &json(&refs.user_names), &ids)?))
        };
        let groups = if refs.group_names.is_empty() {
            None
        } else {
            let names = json(&refs.group_names);
            Some((
                batch.add(mentions::groups_stmt(RealmId(realm_id.0), &names, UserId(sender_id.0))?),
                batch.add(mentions::group_members_stmt(realm_id.0, &names)?),
            ))
        };
        let channels = if refs.channel_names.is_empty() {
            None
        } else {
            Some(batch.add(mentions::channels_stmt(realm_id.0, &json(&refs.channel_names))?))
        };
        let emoji = if refs.emoji_names.is_empty() {
            None
        } else {
            Some(batch.add(crate::db::realm_emoji::active_by_names_stmt(realm_id.0, &json(&refs.emoji_names))?))
        };
        let linkifiers = match linkifiers {
            Some(known) => Linkifiers::Known(known.to_vec()),
            None => Linkifiers::Read(batch.add(crate::db::linkifiers::in_realm_stmt(realm_id.0)?)),
        };
        Ok(ResolutionReads { users, groups, channels, emoji, linkifiers })
    }

    /// The outgoing-webhook bots among the users the content names and the members of the
    /// groups it names (a mention of either triggers the bot), from the same reads.
    pub fn outgoing_webhook_bots(&self, results: &BatchResults) -> worker::Result<Vec<i64>> {
        use crate::domain::outgoing_webhooks::OUTGOING_WEBHOOK_BOT;
        let mut bots = Vec::new();
        if let Some(slot) = self.users {
            bots.extend(results.rows(slot)?.iter().filter(|r| r.bot_type == Some(OUTGOING_WEBHOOK_BOT)).map(|r| r.id));
        }
        if let Some((_, members)) = self.groups {
            bots.extend(results.rows(members)?.iter().filter(|r| r.bot_type == Some(OUTGOING_WEBHOOK_BOT)).map(|r| r.user_id));
        }
        Ok(bots)
    }

    /// The named groups the sender may not mention (their `can_mention_group`), by id.
    pub fn unmentionable_groups(&self, results: &BatchResults) -> worker::Result<UnmentionableGroups> {
        let Some((groups, _)) = self.groups else { return Ok(UnmentionableGroups::default()) };
        Ok(UnmentionableGroups(results.rows(groups)?.into_iter().filter(|g| g.may_mention == 0).map(|g| (g.id, g.name)).collect()))
    }

    /// What the reads found, as the renderer takes it, plus each mentioned group's members.
    pub fn take(self, results: &BatchResults) -> worker::Result<(Resolved, HashMap<i64, Vec<i64>>)> {
        let named = |slot: Option<Slot<NamedRow>>| -> worker::Result<Vec<NamedRow>> {
            match slot {
                Some(slot) => results.rows(slot),
                None => Ok(Vec::new()),
            }
        };
        let users = match self.users {
            Some(slot) => results.rows(slot)?.into_iter().map(|r| MentionableUser { id: r.id, full_name: r.name }).collect(),
            None => Vec::new(),
        };
        let channels = named(self.channels)?.into_iter().map(|r| LinkableChannel { id: r.id, name: r.name }).collect();
        let mut groups = Vec::new();
        let mut members: HashMap<i64, Vec<i64>> = HashMap::new();
        if let Some((group_rows, member_rows)) = self.groups {
            groups = results.rows(group_rows)?.into_iter().map(|r| MentionableGroup { id: r.id, name: r.name }).collect();
            for row in results.rows(member_rows)? {
                members.entry(row.group_id).or_default().push(row.user_id);
            }
        }
        let custom_emoji = match self.emoji {
            Some(slot) => results
                .rows(slot)?
                .iter()
                .map(|e| CustomEmoji { name: e.name.clone(), source_url: crate::domain::realm_emoji::source_url(e) })
                .collect(),
            None => Vec::new(),
        };
        let linkifiers = match self.linkifiers {
            Linkifiers::Known(known) => known,
            Linkifiers::Read(slot) => crate::domain::linkifiers::for_rendering(&results.rows(slot)?),
        };
        Ok((Resolved { users, groups, channels, linkifiers, custom_emoji, ..Resolved::default() }, members))
    }
}

/// Groups whose `can_mention_group` leaves the sender out: id and name.
#[derive(Debug, Default)]
pub struct UnmentionableGroups(BTreeMap<i64, String>);

impl UnmentionableGroups {
    /// Zulip's rule: a mention (not a silent one) of such a group refuses the message.
    pub fn check(&self, mentioned_group_ids: &BTreeSet<i64>) -> ApiResult<()> {
        match self.0.iter().find(|(id, _)| mentioned_group_ids.contains(id)) {
            Some((_, name)) => Err(ApiError::bad_request(format!("You are not allowed to mention user group '{name}'."))),
            None => Ok(()),
        }
    }
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
    let mut batch = Batch::new();
    // Nothing is sent, so who may mention which group is not asked (sender 0: nobody).
    let reads = ResolutionReads::add(&mut batch, RealmId(realm_id), UserId(0), &markdown::references(content), None)?;
    let (resolved, members) = reads.take(&batch.run(db).await?)?;
    Ok(render_resolved(content, resolved, &members, realm_url, translate_emoticons))
}

/// Renders `content` with what [`ResolutionReads`] found; answers the rendering and the
/// personally mentioned user ids.
pub fn render_resolved(
    content: &str,
    mut resolved: Resolved,
    group_members: &HashMap<i64, Vec<i64>>,
    realm_url: &str,
    translate_emoticons: bool,
) -> (Rendered, BTreeSet<i64>) {
    resolved.translate_emoticons = translate_emoticons;
    resolved.realm_url = realm_url.to_string();
    let rendered = markdown::render(content, &resolved);
    let mentioned = mentioned_user_ids(&rendered, group_members);
    (rendered, mentioned)
}
