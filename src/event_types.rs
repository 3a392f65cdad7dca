//! Every event the server emits, typed as Zulip's wire format: tagged by `type`, and by
//! `op` where Zulip has one. Actions build these and nothing else sends events. A payload
//! that is a whole API object (a message, a subscription, a channel dict) stays a JSON
//! value built by its domain builder; the event's type, op and other fields are typed.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::ids::{ChannelId, MessageId, UserId};
use crate::model::message_flags::MessageFlag;
use crate::model::VisibilityPolicy;

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Realm(RealmEvent),
    /// The set of pending invitations changed: clients showing them fetch `GET /invites`.
    InvitesChanged,
    RealmDomains(RealmDomainsEvent),
    /// The organization's default channels changed: all their ids.
    DefaultStreams {
        default_streams: Vec<i64>,
    },
    UserTopic {
        stream_id: i64,
        topic_name: String,
        last_updated: i64,
        visibility_policy: VisibilityPolicy,
    },
    UpdateMessageFlags(FlagsEvent),
    ScheduledMessages(ScheduledMessagesEvent),
    Reminders(RemindersEvent),
    Drafts(DraftsEvent),
    SavedSnippets(SavedSnippetsEvent),
    NavigationView(NavigationViewEvent),
    ChannelFolder(ChannelFolderEvent),
    UserGroup(UserGroupEvent),
    Subscription(SubscriptionEvent),
    UpdateMessage(Box<UpdateMessageEvent>),
    DeleteMessage(DeleteMessageEvent),
    UserSettings(UserSettingsEvent),
    /// The organization's defaults for new users changed (same shape as `user_settings`).
    RealmUserSettingsDefaults(UserSettingsEvent),
    /// Legacy form of `user_settings` for display settings.
    UpdateDisplaySettings {
        user: String,
        setting_name: &'static str,
        setting: Value,
    },
    /// Legacy form of `user_settings` for notification settings.
    UpdateGlobalNotifications {
        user: String,
        notification_name: &'static str,
        setting: Value,
    },
    Stream(StreamEvent),
    RealmUser(RealmUserEvent),
    RealmBot(RealmBotEvent),
    Reaction(ReactionEvent),
    Attachment(AttachmentEvent),
    RealmEmoji(RealmEmojiEvent),
    Typing(TypingEvent),
    /// Someone started or stopped editing a message; `recipient` is where it went
    /// (`{type: "channel", stream_id, topic}` or `{type: "direct", user_ids}`).
    TypingEditMessage {
        op: &'static str,
        sender_id: i64,
        message_id: i64,
        recipient: Value,
    },
    Message {
        message: Value,
        /// To the queues of the sender's own clients: the Markdown source as sent.
        #[serde(skip_serializing_if = "Option::is_none")]
        raw_content: Option<String>,
    },
    Presence {
        user_id: i64,
        email: String,
        server_timestamp: f64,
        presence: Value,
    },
    UserStatus(UserStatusEvent),
    CustomProfileFields {
        fields: Vec<Value>,
    },
    AlertWords {
        alert_words: Value,
    },
    MutedUsers {
        muted_users: Vec<Value>,
    },
    RealmPlaygrounds {
        realm_playgrounds: Value,
    },
    RealmLinkifiers {
        realm_linkifiers: Value,
    },
    /// An export's state changed: every export of the organization (`RealmExport` objects),
    /// to its administrators.
    RealmExport {
        exports: Vec<Value>,
    },
    /// A member changed their consent to private data exports; to the administrators.
    RealmExportConsent {
        user_id: i64,
        consented: bool,
    },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RealmEvent {
    /// Organization settings changed: `property` is `default`, or `icon`, `logo` or
    /// `night_logo` for the organization's images (`domain::realm_icon`).
    UpdateDict { property: &'static str, data: Map<String, Value> },
    /// One organization property changed (Zulip's form for `name`, `description`, ...).
    Update { property: &'static str, value: Value },
}

/// `update_message_flags`: Zulip sends the op twice, as `op` and the older `operation`.
#[derive(Debug, Clone, Serialize)]
pub struct FlagsEvent {
    pub op: &'static str,
    pub operation: &'static str,
    pub flag: MessageFlag,
    pub messages: Vec<i64>,
    pub all: bool,
    /// Marking unread: each message's type, channel/topic or recipients, mentioned flag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_details: Option<Value>,
}

impl FlagsEvent {
    pub fn new(add: bool, flag: MessageFlag, messages: Vec<i64>, all: bool) -> Self {
        let op = if add { "add" } else { "remove" };
        FlagsEvent { op, operation: op, flag, messages, all, message_details: None }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ScheduledMessagesEvent {
    Add { scheduled_messages: Vec<Value> },
    Update { scheduled_message: Value },
    Remove { scheduled_message_id: i64 },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RemindersEvent {
    Add { reminders: Vec<Value> },
    Remove { reminder_id: i64 },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum DraftsEvent {
    Add { drafts: Vec<Value> },
    Update { draft: Value },
    Remove { draft_id: i64 },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum SavedSnippetsEvent {
    Add { saved_snippet: Value },
    Update { saved_snippet: Value },
    Remove { saved_snippet_id: i64 },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum NavigationViewEvent {
    Add { navigation_view: Value },
    Update { fragment: String, data: Value },
    Remove { fragment: String },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ChannelFolderEvent {
    Add { channel_folder: Value },
    Update { channel_folder_id: i64, data: Value },
    Reorder { order: Vec<i64> },
}

/// `Update`'s `data` holds the changed fields (`name` or `description`).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum UserGroupEvent {
    Add {
        group: Value,
    },
    Update {
        group_id: i64,
        data: Value,
    },
    /// Deactivation or reactivation, for clients with `include_deactivated_groups`.
    #[serde(rename = "update")]
    ActivationChanged {
        group_id: i64,
        data: Value,
        #[serde(flatten)]
        audience: CapabilityGate,
    },
    /// Deactivation, for clients without `include_deactivated_groups`.
    Remove {
        group_id: i64,
        #[serde(flatten)]
        audience: CapabilityGate,
    },
    /// Reactivation, for clients without `include_deactivated_groups`.
    #[serde(rename = "add")]
    Reactivated {
        group: Value,
        #[serde(flatten)]
        audience: CapabilityGate,
    },
    AddMembers {
        group_id: i64,
        user_ids: Vec<i64>,
    },
    RemoveMembers {
        group_id: i64,
        user_ids: Vec<i64>,
    },
    AddSubgroups {
        group_id: i64,
        direct_subgroup_ids: Vec<i64>,
    },
    RemoveSubgroups {
        group_id: i64,
        direct_subgroup_ids: Vec<i64>,
    },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum SubscriptionEvent {
    Add { subscriptions: Vec<Value> },
    Remove { subscriptions: Vec<Value> },
    Update { stream_id: i64, property: &'static str, value: Value },
    PeerAdd { stream_ids: Vec<i64>, user_ids: Vec<i64> },
    PeerRemove { stream_ids: Vec<i64>, user_ids: Vec<i64> },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum StreamEvent {
    Create {
        streams: Vec<Value>,
        #[serde(flatten)]
        audience: CapabilityGate,
    },
    Update {
        property: &'static str,
        value: Value,
        stream_id: i64,
        name: String,
        /// What Zulip sends beside some properties: `rendered_description` with
        /// `description`, `history_public_to_subscribers` and `is_web_public` with `invite_only`.
        #[serde(flatten)]
        extra: Map<String, Value>,
        #[serde(flatten)]
        audience: CapabilityGate,
    },
    Delete {
        streams: Vec<Value>,
        stream_ids: Vec<i64>,
        #[serde(flatten)]
        audience: CapabilityGate,
    },
}

/// Which queues of the addressed users an event is for, by a `client_capabilities` flag:
/// Zulip tells clients that know archived channels (`archived_channels`) of archiving as an
/// `update` of `is_archived`, and others as the channel's `delete` (`create` when
/// unarchived). The event queues read these fields and strip them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CapabilityGate {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub with_capability: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub without_capability: Option<&'static str>,
}

impl CapabilityGate {
    pub fn with(capability: &'static str) -> Self {
        CapabilityGate { with_capability: Some(capability), without_capability: None }
    }
    pub fn without(capability: &'static str) -> Self {
        CapabilityGate { with_capability: None, without_capability: Some(capability) }
    }
}

/// `person` is a user dict, whole (`add`) or only the changed fields and `user_id`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RealmUserEvent {
    Add { person: Value },
    Update { person: Value },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RealmBotEvent {
    Add { bot: Value },
    Update { bot: Value },
}

#[derive(Debug, Clone, Serialize)]
pub struct ReactionEvent {
    /// `add` or `remove`.
    pub op: &'static str,
    pub message_id: i64,
    pub emoji_name: String,
    pub emoji_code: String,
    pub reaction_type: String,
    pub user_id: i64,
    pub user: Value,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum AttachmentEvent {
    Add {
        attachment: Value,
        upload_space_used: i64,
    },
    Update {
        attachment: Value,
        upload_space_used: i64,
    },
    /// `attachment` holds only the `id`.
    Remove {
        attachment: Value,
        upload_space_used: i64,
    },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RealmEmojiEvent {
    Update { realm_emoji: Value },
}

/// `typing`: `recipients` for direct messages, `stream_id` and `topic` for channels.
#[derive(Debug, Clone, Serialize)]
pub struct TypingEvent {
    /// `start` or `stop`.
    pub op: &'static str,
    /// `direct` or `stream`.
    pub message_type: &'static str,
    pub sender: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recipients: Option<Vec<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
}

/// `user_status`: only the parts that changed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct UserStatusEvent {
    pub user_id: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub away: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emoji_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emoji_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reaction_type: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum UserSettingsEvent {
    Update { property: &'static str, value: Value },
}

/// `update_message`: content fields for a content edit, channel fields for channel
/// messages, move fields for a move; each group absent otherwise.
#[derive(Debug, Clone, Default, Serialize)]
pub struct UpdateMessageEvent {
    pub user_id: UserId,
    pub edit_timestamp: i64,
    pub message_id: i64,
    pub message_ids: Vec<i64>,
    pub rendering_only: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orig_content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orig_rendered_content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rendered_content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_me_message: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub propagate_mode: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_stream_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orig_subject: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic_links: Option<Vec<Value>>,
}

/// The bulk `delete_message` event; `stream_id` and `topic` for channel messages.
#[derive(Debug, Clone, Serialize)]
pub struct DeleteMessageEvent {
    pub message_ids: Vec<MessageId>,
    /// `stream` or `private`.
    pub message_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_id: Option<ChannelId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn type_and_op_tag_the_fields() {
        let e = Event::ChannelFolder(ChannelFolderEvent::Reorder { order: vec![2, 1] });
        assert_eq!(serde_json::to_value(&e).unwrap(), json!({"type": "channel_folder", "op": "reorder", "order": [2, 1]}));
        let e = Event::UserTopic { stream_id: 7, topic_name: "t".into(), last_updated: 5, visibility_policy: VisibilityPolicy::Muted };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"type": "user_topic", "stream_id": 7, "topic_name": "t", "last_updated": 5, "visibility_policy": 1})
        );
    }

    #[test]
    fn stream_updates_carry_their_extra_fields_and_gate_flat() {
        let mut extra = Map::new();
        extra.insert("rendered_description".into(), json!("<p>d</p>"));
        let e = Event::Stream(StreamEvent::Update {
            property: "description",
            value: json!("d"),
            stream_id: 3,
            name: "c".into(),
            extra,
            audience: CapabilityGate::default(),
        });
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"type": "stream", "op": "update", "property": "description", "value": "d", "stream_id": 3, "name": "c",
                   "rendered_description": "<p>d</p>"})
        );
        let e = Event::Stream(StreamEvent::Delete {
            streams: vec![json!({"stream_id": 3})],
            stream_ids: vec![3],
            audience: CapabilityGate::without("archived_channels"),
        });
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"type": "stream", "op": "delete", "streams": [{"stream_id": 3}], "stream_ids": [3], "without_capability": "archived_channels"})
        );
    }

    #[test]
    fn flags_event_omits_absent_details() {
        let e = Event::UpdateMessageFlags(FlagsEvent::new(true, MessageFlag::Read, vec![3], false));
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"type": "update_message_flags", "op": "add", "operation": "add", "flag": "read", "messages": [3], "all": false})
        );
    }
}

/// `realm_domains`: the domains an organization restricts sign-up to.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RealmDomainsEvent {
    Add { realm_domain: Value },
    Change { realm_domain: Value },
    Remove { domain: String },
}
