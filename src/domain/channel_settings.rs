//! The rules of changing a channel's settings (`PATCH /streams/{stream_id}`, archiving):
//! which access combinations are valid, and what the notification bot says about each
//! change in the channel's "channel events" topic. Pure.

use crate::db::channels::MemberRow;
use crate::db::subscriptions::ChannelViewRow;
use crate::db::users::UserRow;
use crate::domain::message_edit::silent_mention;
use crate::error::{ApiError, ApiResult};
use crate::model::Role;

/// Zulip's topic of the notification bot's messages about a channel's own changes.
pub const CHANNEL_EVENTS_TOPIC: &str = "channel events";

/// Zulip's limit on the notification bot's direct messages about one subscription request:
/// none when it subscribes more users than this.
pub const MAX_BULK_NEW_SUBSCRIPTION_MESSAGES: usize = 100;

/// Who may read a channel: its three access settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelAccess {
    pub invite_only: bool,
    pub history_public_to_subscribers: bool,
    pub is_web_public: bool,
}

/// The access settings a request asks for, Zulip's way: what it leaves out keeps its value,
/// except that making a channel private or public without saying `history_public_to_subscribers`
/// gives it the history of its kind (protected for private, public for public). Web-public
/// channels are public with public history, and public channels have public history;
/// anything else is "Invalid parameters".
pub fn proposed_access(
    current: ChannelAccess,
    is_private: Option<bool>,
    history_public_to_subscribers: Option<bool>,
    is_web_public: Option<bool>,
) -> ApiResult<ChannelAccess> {
    let invite_only = is_private.unwrap_or(current.invite_only);
    let is_web_public = is_web_public.unwrap_or(current.is_web_public);
    let history_public_to_subscribers = match (history_public_to_subscribers, is_private) {
        (Some(history), _) => history,
        (None, Some(private)) => !private,
        (None, None) => current.history_public_to_subscribers,
    };
    // Web-public channels are public with public history; public ones have public history.
    let web_public_valid = !is_web_public || (!invite_only && history_public_to_subscribers);
    let public_valid = invite_only || history_public_to_subscribers;
    let invalid = !(web_public_valid && public_valid);
    if invalid {
        return Err(ApiError::bad_request("Invalid parameters"));
    }
    Ok(ChannelAccess { invite_only, history_public_to_subscribers, is_web_public })
}

/// The active users who can see that a channel exists with this privacy (the audience of
/// its `stream` events): everyone but guests for a public channel, administrators, its
/// subscribers, and for a private channel the non-guests in the groups that grant access
/// to it (`through_groups`: see `domain::channels::access`).
pub fn metadata_audience(users: &[MemberRow], subscribers: &[i64], invite_only: bool, through_groups: &[i64]) -> Vec<i64> {
    users
        .iter()
        .filter(|u| {
            let non_guest = u.role != Role::Guest;
            (!invite_only && non_guest)
                || u.role.is_at_least(Role::Administrator)
                || subscribers.contains(&u.id)
                || (non_guest && through_groups.contains(&u.id))
        })
        .map(|u| u.id)
        .collect()
}

/// A channel's access settings.
pub fn access_of(c: &ChannelViewRow) -> ChannelAccess {
    ChannelAccess {
        invite_only: c.is_private(),
        history_public_to_subscribers: c.history_public_to_subscribers != 0,
        is_web_public: c.is_web_public != 0,
    }
}

/// Zulip's name of an access combination, as the notification bot writes it.
pub fn access_policy_name(access: ChannelAccess) -> &'static str {
    match access {
        ChannelAccess { is_web_public: true, .. } => "Web-public",
        ChannelAccess { invite_only: false, .. } => "Public",
        ChannelAccess { history_public_to_subscribers: true, .. } => "Private, shared history",
        ChannelAccess { history_public_to_subscribers: false, .. } => "Private, protected history",
    }
}

/// A channel's description as Zulip stores it: one line (newlines become spaces).
pub fn one_line_description(description: &str) -> String {
    description.replace('\n', " ")
}

pub fn rename_notice(actor: &UserRow, old_name: &str, new_name: &str) -> String {
    format!("{} renamed channel **{old_name}** to **{new_name}**.", silent_mention(actor))
}

/// Zulip's notice of a new retention period, each side the period in effect (the
/// organization's where the channel has none): days, or -1 for forever.
pub fn retention_notice(actor: &UserRow, old_days: i64, new_days: i64) -> String {
    use crate::domain::realm_settings::RETENTION_FOREVER;
    let deleted_after = format!("Messages in this channel will now be automatically deleted {new_days} days after they are sent.");
    // Zulip's three cases, the first deciding when both sides are forever.
    let (old, new, summary) = if old_days == RETENTION_FOREVER {
        ("Forever".to_string(), format!("{new_days} days"), deleted_after)
    } else if new_days == RETENTION_FOREVER {
        (format!("{old_days} days"), "Forever".to_string(), "Messages in this channel will now be retained forever.".to_string())
    } else {
        (format!("{old_days} days"), format!("{new_days} days"), deleted_after)
    };
    format!(
        "{} has changed the [message retention period](/help/message-retention-policy) for this channel:\n\
         * **Old retention period**: {old}\n\
         * **New retention period**: {new}\n\n{summary}",
        silent_mention(actor)
    )
}

pub fn description_notice(actor: &UserRow, old: &str, new: &str) -> String {
    let shown = |d: &str| if d.is_empty() { "*No description.*".to_string() } else { d.to_string() };
    format!(
        "{} changed the description for this channel.\n\n* **Old description:**\n```` quote\n{}\n````\n* **New description:**\n```` quote\n{}\n````",
        silent_mention(actor),
        shown(old),
        shown(new)
    )
}

pub fn access_notice(actor: &UserRow, old: ChannelAccess, new: ChannelAccess) -> String {
    format!(
        "{} changed the [access permissions](/help/channel-permissions) for this channel from **{}** to **{}**.",
        silent_mention(actor),
        access_policy_name(old),
        access_policy_name(new)
    )
}

/// The notification bot's first message in a new channel: its access and description.
pub fn creation_notice(creator: &UserRow, access: ChannelAccess, description: &str) -> String {
    let description = if description.is_empty() { "*No description.*" } else { description };
    format!(
        "**{}** channel created by {}. **Description:**\n```` quote\n{description}\n````",
        access_policy_name(access),
        silent_mention(creator)
    )
}

/// Zulip's topic of the announcements of new channels.
pub const NEW_CHANNELS_TOPIC: &str = "new channels";

/// The notification bot's announcement of channels created together (`names`).
pub fn new_channels_notice(creator: &UserRow, names: &[String]) -> String {
    let links: Vec<String> = names.iter().map(|name| format!("#**{name}**")).collect();
    match links.as_slice() {
        [one] => format!("{} created a new channel {one}.", silent_mention(creator)),
        _ => format!("{} created the following channels: {}.", silent_mention(creator), links.join(", ")),
    }
}

/// The notification bot's direct message to someone another user subscribed to existing
/// channels (`names`, sorted).
pub fn subscribed_you_notice(actor: &UserRow, names: &[String]) -> String {
    match names {
        [name] => format!("{} subscribed you to #**{name}**.", silent_mention(actor)),
        _ => {
            let list: String = names.iter().map(|name| format!("* #**{name}**\n")).collect();
            format!("{} subscribed you to the following channels:\n\n{list}", silent_mention(actor))
        }
    }
}

pub fn archive_notice(name: &str) -> String {
    format!("Channel {name} has been archived.")
}

pub fn unarchive_notice(name: &str) -> String {
    format!("Channel {name} un-archived.")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUBLIC: ChannelAccess = ChannelAccess { invite_only: false, history_public_to_subscribers: true, is_web_public: false };
    const PROTECTED: ChannelAccess = ChannelAccess { invite_only: true, history_public_to_subscribers: false, is_web_public: false };
    const SHARED: ChannelAccess = ChannelAccess { invite_only: true, history_public_to_subscribers: true, is_web_public: false };

    #[test]
    fn a_new_channel_is_announced_with_its_access_and_description() {
        let creator = UserRow { id: 8, full_name: "Iago".into(), ..UserRow::default() };
        assert_eq!(
            creation_notice(&creator, SHARED, ""),
            "**Private, shared history** channel created by @_**Iago|8**. **Description:**\n```` quote\n*No description.*\n````"
        );
        assert!(creation_notice(&creator, PUBLIC, "Plans").ends_with("quote\nPlans\n````"));
    }

    #[test]
    fn new_channels_are_announced_by_name() {
        let creator = UserRow { id: 8, full_name: "Iago".into(), ..UserRow::default() };
        assert_eq!(new_channels_notice(&creator, &["Rome".into()]), "@_**Iago|8** created a new channel #**Rome**.");
        assert_eq!(
            new_channels_notice(&creator, &["Rome".into(), "Venice".into()]),
            "@_**Iago|8** created the following channels: #**Rome**, #**Venice**."
        );
    }

    #[test]
    fn a_subscribed_user_is_told_one_channel_in_a_sentence_and_several_in_a_list() {
        let actor = UserRow { id: 8, full_name: "Iago".into(), ..UserRow::default() };
        assert_eq!(subscribed_you_notice(&actor, &["Rome".into()]), "@_**Iago|8** subscribed you to #**Rome**.");
        assert_eq!(
            subscribed_you_notice(&actor, &["Rome".into(), "Venice".into()]),
            "@_**Iago|8** subscribed you to the following channels:\n\n* #**Rome**\n* #**Venice**\n"
        );
    }

    #[test]
    fn making_a_channel_private_protects_its_history_unless_told_otherwise() {
        assert_eq!(proposed_access(PUBLIC, Some(true), None, None).unwrap(), PROTECTED);
        assert_eq!(proposed_access(PUBLIC, Some(true), Some(true), None).unwrap(), SHARED);
        assert_eq!(proposed_access(PROTECTED, Some(false), None, None).unwrap(), PUBLIC);
        assert_eq!(proposed_access(PROTECTED, None, Some(true), None).unwrap(), SHARED);
    }

    #[test]
    fn public_channels_keep_public_history_and_web_public_ones_stay_public() {
        let invalid = |r: ApiResult<ChannelAccess>| r.unwrap_err().msg == "Invalid parameters";
        assert!(invalid(proposed_access(PUBLIC, None, Some(false), None)));
        assert!(invalid(proposed_access(PUBLIC, Some(false), Some(false), None)));
        assert!(invalid(proposed_access(PROTECTED, None, None, Some(true))));
        assert!(invalid(proposed_access(SHARED, None, None, Some(true))));
    }

    #[test]
    fn a_private_channel_is_seen_by_its_subscribers_and_administrators() {
        let users = [
            MemberRow { id: 1, role: Role::Owner },
            MemberRow { id: 2, role: Role::Member },
            MemberRow { id: 3, role: Role::Guest },
            MemberRow { id: 4, role: Role::Moderator },
        ];
        assert_eq!(metadata_audience(&users, &[4], true, &[]), vec![1, 4]);
        assert_eq!(metadata_audience(&users, &[3], false, &[]), vec![1, 2, 3, 4]);
        assert_eq!(metadata_audience(&users, &[], false, &[]), vec![1, 2, 4]);
    }

    #[test]
    fn the_groups_of_a_private_channel_let_non_guests_see_it() {
        let users =
            [MemberRow { id: 1, role: Role::Owner }, MemberRow { id: 2, role: Role::Member }, MemberRow { id: 3, role: Role::Guest }];
        assert_eq!(metadata_audience(&users, &[], true, &[2, 3]), vec![1, 2]);
    }

    #[test]
    fn access_policies_have_zulips_names() {
        assert_eq!(access_policy_name(PUBLIC), "Public");
        assert_eq!(access_policy_name(PROTECTED), "Private, protected history");
        assert_eq!(access_policy_name(SHARED), "Private, shared history");
        assert_eq!(access_policy_name(ChannelAccess { is_web_public: true, ..PUBLIC }), "Web-public");
    }

    #[test]
    fn notices_mention_the_actor_silently() {
        let iago = UserRow { id: 5, full_name: "Iago".into(), role: Role::Administrator, ..UserRow::default() };
        assert_eq!(rename_notice(&iago, "old", "new"), "@_**Iago|5** renamed channel **old** to **new**.");
        assert_eq!(
            description_notice(&iago, "", "New"),
            "@_**Iago|5** changed the description for this channel.\n\n* **Old description:**\n```` quote\n*No description.*\n````\n\
             * **New description:**\n```` quote\nNew\n````"
        );
        assert_eq!(
            access_notice(&iago, PUBLIC, PROTECTED),
            "@_**Iago|5** changed the [access permissions](/help/channel-permissions) for this channel from **Public** to \
             **Private, protected history**."
        );
    }
}
