//! The edit's one read batch, and the content rules over what it read.

use super::*;
use crate::model::ids::GroupId;

/// Zulip's threshold above which wildcard mentions need `can_mention_many_users_group`.
pub(super) const WILDCARD_MENTION_THRESHOLD: i64 = 15;

/// The edit's read batch: the access check, the caller's membership in the groups a
/// change of topic or channel may need, what new content references (mentions, channels,
/// emoji; the linkifiers are the isolate's) with the wildcard rule's counts when it names a
/// wildcard, what a move involves, and the message's rows before the edit. Built before the message is known:
/// whatever depends on it is read through its id.
pub(super) struct EditReads {
    pub(super) access: Slot<Value>,
    pub(super) rights: RightsReads,
    pub(super) content: Option<ContentReads>,
    pub(super) moves: Option<MoveReads>,
    pub(super) rows_before: Slot<RecipientRow>,
}

impl EditReads {
    pub(super) fn add(
        batch: &mut Batch,
        user: &UserRow,
        state: &RealmState,
        message_id: MessageId,
        params: &EditParams,
    ) -> ApiResult<Self> {
        let access = batch.add(crate::db::messages::access_stmt(message_id, RealmId(user.realm_id), UserId(user.id))?);
        let rights = RightsReads::add(batch, user, &state.settings, message_id, params)?;
        // Content that fails normalization fails the edit's plan before anything renders.
        let content = match params.content.as_deref().map(|c| rules::normalize_content(c, &state.settings)) {
            Some(Ok(content)) => Some(ContentReads::add(batch, user, state, message_id, &content)?),
            _ => None,
        };
        let moves = MoveReads::add(batch, user, &state.settings, message_id, params)?;
        let rows_before = batch.add(q::message_user_rows_stmt(message_id.0)?);
        Ok(EditReads { access, rights, content, moves, rows_before })
    }
}

/// The caller's membership in the permission groups of the changes it asks for; the rules
/// read only those the edit's plan needs. A topic change also reads the channel-level
/// groups of the message's channel and of the channel it moves to, if any.
pub(super) struct RightsReads {
    pub(super) resolve: Option<Slot<IsMemberRow>>,
    pub(super) topics: Option<Slot<IsMemberRow>>,
    pub(super) channels: Option<Slot<IsMemberRow>>,
    /// `can_resolve_topics_group` of the channels.
    pub(super) channel_resolve: Vec<Slot<IsMemberRow>>,
    /// `can_move_messages_within_channel_group` and `can_administer_channel_group` of the channels.
    pub(super) channel_topics: Vec<Slot<IsMemberRow>>,
    /// `can_move_messages_out_of_channel_group` and `can_administer_channel_group` of the
    /// message's channel.
    pub(super) channel_out: Vec<Slot<IsMemberRow>>,
}

impl RightsReads {
    pub(super) fn add(
        batch: &mut Batch,
        user: &UserRow,
        settings: &RealmSettingsRow,
        message_id: MessageId,
        params: &EditParams,
    ) -> worker::Result<Self> {
        let mut member = |group: i64| -> worker::Result<Slot<IsMemberRow>> {
            Ok(batch.add(user_groups::is_member_stmt(RealmId(user.realm_id), GroupId(group), UserId(user.id), false)?))
        };
        let (resolve, topics) = match params.topic {
            Some(_) => (Some(member(settings.can_resolve_topics_group)?), Some(member(settings.can_move_messages_between_topics_group)?)),
            None => (None, None),
        };
        let channels = match params.stream_id {
            Some(_) => Some(member(settings.can_move_messages_between_channels_group)?),
            None => None,
        };
        use crate::db::channels::{in_group_setting_stmt, in_message_channel_group_stmt};
        use crate::domain::channel_permissions::{CAN_ADMINISTER, CAN_MOVE_OUT, CAN_MOVE_WITHIN, CAN_RESOLVE_TOPICS};
        let realm_id = user.realm_id;
        let (mut channel_resolve, mut channel_topics, mut channel_out) = (Vec::new(), Vec::new(), Vec::new());
        if params.stream_id.is_some() {
            for setting in [&CAN_MOVE_OUT, &CAN_ADMINISTER] {
                channel_out.push(batch.add(in_message_channel_group_stmt(
                    RealmId(realm_id),
                    message_id,
                    setting.name,
                    UserId(user.id),
                    false,
                )?));
            }
        }
        if params.topic.is_some() {
            for setting in [&CAN_RESOLVE_TOPICS, &CAN_MOVE_WITHIN, &CAN_ADMINISTER] {
                let slots = if setting.name == CAN_RESOLVE_TOPICS.name { &mut channel_resolve } else { &mut channel_topics };
                slots.push(batch.add(in_message_channel_group_stmt(RealmId(realm_id), message_id, setting.name, UserId(user.id), false)?));
                if let Some(target) = params.stream_id {
                    slots.push(batch.add(in_group_setting_stmt(
                        RealmId(realm_id),
                        ChannelId(target),
                        "",
                        setting.name,
                        UserId(user.id),
                        false,
                    )?));
                }
            }
        }
        Ok(RightsReads { resolve, topics, channels, channel_resolve, channel_topics, channel_out })
    }

    pub(super) fn take(self, results: &BatchResults, user: &UserRow) -> worker::Result<EditorRights> {
        let member = |slot: Option<Slot<IsMemberRow>>| -> worker::Result<bool> {
            Ok(match slot {
                Some(slot) => results.first(slot)?.is_some_and(|r| r.is_member != 0),
                None => false,
            })
        };
        let any = |slots: Vec<Slot<IsMemberRow>>| -> worker::Result<bool> {
            let mut found = false;
            for slot in slots {
                found |= member(Some(slot))?;
            }
            Ok(found)
        };
        // Zulip: the organization's group, or the channel-level group of either channel;
        // moving within a channel also for its administrators. Moving out of a channel:
        // the organization's group, the channel's own group or its administrators.
        let in_channel_topics = user.is_realm_admin() || any(self.channel_topics)?;
        let out_of_channel = user.is_realm_admin() || any(self.channel_out)?;
        Ok(EditorRights {
            can_resolve_topics: member(self.resolve)? || any(self.channel_resolve)?,
            can_move_between_topics: member(self.topics)? || in_channel_topics,
            can_move_between_channels: member(self.channels)? || out_of_channel,
        })
    }
}

/// What rendering new content reads, and for content that may name a wildcard, what the
/// wildcard rule reads: the channel's subscriber count, the topic's participants and
/// whether the sender may mention many users (only the sender edits content).
pub(super) struct ContentReads {
    pub(super) resolution: ResolutionReads,
    pub(super) wildcards: Option<WildcardReads>,
}

pub(super) struct WildcardReads {
    pub(super) subscribers: Slot<CountRow>,
    pub(super) participants: Slot<RecipientRow>,
    pub(super) may_mention_many: Slot<IsMemberRow>,
}

#[derive(Deserialize)]
pub(super) struct CountRow {
    pub(super) n: i64,
}

impl ContentReads {
    pub(super) fn add(batch: &mut Batch, user: &UserRow, state: &RealmState, message_id: MessageId, content: &str) -> worker::Result<Self> {
        let refs = markdown::references(content);
        let resolution = ResolutionReads::add(batch, RealmId(user.realm_id), UserId(user.id), &refs, Some(&state.linkifiers))?;
        let wildcards = if refs.stream_wildcard || refs.topic_wildcard {
            Some(WildcardReads {
                subscribers: batch.add(crate::db::subscriptions::subscriber_count_stmt(message_id.0)?),
                participants: batch.add(q::topic_sender_ids_stmt(message_id.0)?),
                may_mention_many: batch.add(user_groups::is_member_stmt(
                    RealmId(user.realm_id),
                    GroupId(state.settings.can_mention_many_users_group),
                    UserId(user.id),
                    false,
                )?),
            })
        } else {
            None
        };
        Ok(ContentReads { resolution, wildcards })
    }
}

/// Renders the new content and applies the wildcard-mention rules of sending: a channel
/// wildcard in a channel with many subscribers, or a topic wildcard in a topic with many
/// participants, needs the sender in `can_mention_many_users_group`. Only the sender edits
/// content, so the editor's `translate_emoticons` is the author's. Answers the rendering and,
/// for a topic wildcard in a channel message, the topic's participants.
pub(super) fn render_checked(
    realm_url: &str,
    editor: &UserRow,
    message: &MessageRow,
    content: &str,
    reads: ContentReads,
    results: &BatchResults,
) -> ApiResult<(Rendered, Vec<i64>)> {
    let translate_emoticons = crate::domain::user_settings::flag(editor, "translate_emoticons");
    let unmentionable_groups = reads.resolution.unmentionable_groups(results)?;
    let (resolved, group_members) = reads.resolution.take(results)?;
    let rendered = edit_rendering::render(content, resolved, &group_members, realm_url, translate_emoticons);
    unmentionable_groups.check(&rendered.mentioned_group_ids)?;
    if !message.is_channel_message() || !(rendered.stream_wildcard || rendered.topic_wildcard) {
        return Ok((rendered, Vec::new()));
    }
    // What renders as a wildcard was seen by the scan of references.
    let wildcards = reads.wildcards.ok_or_else(|| ApiError::internal("wildcard mention without its reads"))?;
    let participants: Vec<i64> = results.rows(wildcards.participants)?.into_iter().map(|r| r.user_id).collect();
    let may_mention_many = results.first(wildcards.may_mention_many)?.is_some_and(|r| r.is_member != 0);
    let subscribers = results.first(wildcards.subscribers)?.map_or(0, |r| r.n);
    if rendered.stream_wildcard && !may_mention_many && subscribers > WILDCARD_MENTION_THRESHOLD {
        return Err(ApiError::stream_wildcard_mention_not_allowed());
    }
    if rendered.topic_wildcard && !may_mention_many && participants.len() as i64 > WILDCARD_MENTION_THRESHOLD {
        return Err(ApiError::topic_wildcard_mention_not_allowed());
    }
    let participants = if rendered.topic_wildcard { participants } else { Vec::new() };
    Ok((rendered, participants))
}

/// What the read batch found that the write and the events need: the message's rows before
/// the edit, and the topic's participants when new content names the topic wildcard.
pub(super) struct Before {
    pub(super) rows: Vec<RecipientRow>,
    pub(super) topic_participants: Vec<i64>,
}
