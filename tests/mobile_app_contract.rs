//! The official mobile app's contract: zulip-flutter at commit
//! `e989e4f67923e64906c25577525f4a38374bb9a9` (2026-08-18) parses the register response,
//! messages and events strictly (`InitialSnapshot.fromJson`, `Message.fromJson`,
//! `Event.fromJson` and the generated `*.g.dart` decoders): a missing non-nullable field or
//! a value of the wrong JSON type stops the app from loading. The tables below write down,
//! field by field, what those decoders require; each test makes the server answer as the
//! app asks (`registerQueue`'s fixed parameters, `getMessages`' parameters) and checks
//! every response against its table. A path step `name[]` walks every element of a list,
//! `name{}` every value of an object.

mod chat;
mod common;
mod event_support;
use chat::*;
use common::*;
use event_support::*;
use serde_json::Value;

/// A JSON type as the app's decoder casts it.
#[derive(Clone, Copy, Debug)]
enum Ty {
    /// `as num` then `.toInt()` (an integral number).
    Int,
    /// `as num` (integer or float).
    Num,
    Str,
    Bool,
    List,
    Object,
    /// An object whose keys are parsed with `int.parse`.
    IntKeys,
    /// A group-setting value: a group id or `{direct_members, direct_subgroups}`.
    Group,
    /// A subscription colour: `#` and six lower-case hex digits.
    Color,
    /// One of these strings (`$enumDecode` without a fallback).
    OneOf(&'static [&'static str]),
    /// One of these integers (`$enumDecode` without a fallback).
    IntIn(&'static [i64]),
    /// An object matching this table.
    Obj(Table),
    /// A list of objects, each matching this table.
    Items(Table),
    /// An object whose values are objects matching this table.
    Values(Table),
}

impl Ty {
    fn describe(self) -> String {
        match self {
            Obj(_) => "an object".into(),
            Items(_) => "a list of objects".into(),
            Values(_) => "an object of objects".into(),
            other => format!("{other:?}"),
        }
    }
}

/// Whether the decoder accepts the field absent or null.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Need {
    Required,
    Nullable,
}
use Need::*;
use Ty::*;

type Table = &'static [(&'static str, Ty, Need)];

const FLAGS: &[&str] = &[
    "read",
    "starred",
    "collapsed",
    "mentioned",
    "topic_wildcard_mentioned",
    "stream_wildcard_mentioned",
    "wildcard_mentioned",
    "has_alert_word",
    "historical",
];
const REACTION_TYPES: &[&str] = &["unicode_emoji", "realm_emoji", "zulip_extra_emoji"];
const MESSAGE_TYPES: &[&str] = &["stream", "private", "direct"];

/// `User.fromJson` (`is_active` may be absent: the snapshot fills it in).
const USER: Table = &[
    ("user_id", Int, Required),
    ("delivery_email", Str, Nullable),
    ("email", Str, Required),
    ("full_name", Str, Required),
    ("date_joined", Str, Required),
    ("is_active", Bool, Nullable),
    ("is_bot", Bool, Required),
    ("bot_type", Int, Nullable),
    ("bot_owner_id", Int, Nullable),
    ("role", Int, Required),
    ("timezone", Str, Required),
    ("avatar_url", Str, Nullable),
    ("avatar_version", Int, Required),
    ("profile_data", Object, Nullable),
    ("profile_data{}.value", Str, Required),
    ("profile_data{}.rendered_value", Str, Nullable),
    ("is_system_bot", Bool, Nullable),
];

/// `ZulipStream.fromJson`.
const CHANNEL: Table = &[
    ("stream_id", Int, Required),
    ("name", Str, Required),
    ("is_archived", Bool, Nullable),
    ("description", Str, Required),
    ("rendered_description", Str, Required),
    ("date_created", Int, Required),
    ("first_message_id", Int, Nullable),
    ("invite_only", Bool, Required),
    ("is_web_public", Bool, Required),
    ("history_public_to_subscribers", Bool, Required),
    ("message_retention_days", Int, Nullable),
    ("topics_policy", Str, Nullable),
    ("stream_post_policy", IntIn(&[1, 2, 3, 4]), Nullable),
    ("folder_id", Int, Nullable),
    ("can_add_subscribers_group", Group, Nullable),
    ("can_delete_any_message_group", Group, Nullable),
    ("can_delete_own_message_group", Group, Nullable),
    ("can_send_message_group", Group, Nullable),
    ("can_subscribe_group", Group, Nullable),
    ("is_recently_active", Bool, Nullable),
    ("stream_weekly_traffic", Int, Nullable),
];

/// `Subscription.fromJson`: a channel and the user's properties.
const SUBSCRIPTION: Table = &[
    ("desktop_notifications", Bool, Nullable),
    ("email_notifications", Bool, Nullable),
    ("wildcard_mentions_notify", Bool, Nullable),
    ("push_notifications", Bool, Nullable),
    ("audible_notifications", Bool, Nullable),
    ("pin_to_top", Bool, Required),
    ("is_muted", Bool, Required),
    ("color", Color, Required),
];

/// `CustomProfileField.fromJson`.
const CUSTOM_PROFILE_FIELD: Table = &[
    ("id", Int, Required),
    ("type", Int, Required),
    ("order", Int, Required),
    ("name", Str, Required),
    ("hint", Str, Required),
    ("field_data", Str, Required),
    ("display_in_profile_summary", Bool, Nullable),
];

/// `RealmEmojiItem.fromJson`.
const REALM_EMOJI: Table = &[
    ("id", Str, Required),
    ("name", Str, Required),
    ("source_url", Str, Required),
    ("still_url", Str, Nullable),
    ("deactivated", Bool, Required),
    ("author_id", Int, Nullable),
];

/// `UserGroup.fromJson`.
const USER_GROUP: Table = &[
    ("id", Int, Required),
    ("members", List, Required),
    ("members[]", Int, Required),
    ("direct_subgroup_ids", List, Required),
    ("direct_subgroup_ids[]", Int, Required),
    ("name", Str, Required),
    ("description", Str, Required),
    ("is_system_group", Bool, Required),
    ("deactivated", Bool, Nullable),
];

/// `SavedSnippet.fromJson`.
const SAVED_SNIPPET: Table =
    &[("id", Int, Required), ("title", Str, Required), ("content", Str, Required), ("date_created", Int, Required)];

/// `ChannelFolder.fromJson`.
const CHANNEL_FOLDER: Table = &[
    ("id", Int, Required),
    ("name", Str, Required),
    ("order", Int, Nullable),
    ("date_created", Int, Nullable),
    ("creator_id", Int, Nullable),
    ("description", Str, Required),
    ("rendered_description", Str, Required),
    ("is_archived", Bool, Required),
];

/// `InitialSnapshot.fromJson`, nested objects included.
const INITIAL_SNAPSHOT: Table = &[
    ("queue_id", Str, Required),
    ("last_event_id", Int, Required),
    ("zulip_feature_level", Int, Required),
    ("zulip_version", Str, Required),
    ("zulip_merge_base", Str, Required),
    ("alert_words", List, Required),
    ("alert_words[]", Str, Required),
    ("custom_profile_fields", Items(CUSTOM_PROFILE_FIELD), Required),
    ("max_stream_name_length", Int, Required),
    ("max_topic_length", Int, Required),
    ("server_presence_ping_interval_seconds", Int, Required),
    ("server_presence_offline_threshold_seconds", Int, Required),
    ("server_typing_started_expiry_period_milliseconds", Int, Nullable),
    ("server_typing_stopped_wait_period_milliseconds", Int, Nullable),
    ("server_typing_started_wait_period_milliseconds", Int, Nullable),
    ("muted_users", List, Required),
    ("muted_users[].id", Int, Required),
    ("presences", IntKeys, Required),
    ("presences{}.active_timestamp", Int, Required),
    ("presences{}.idle_timestamp", Int, Required),
    ("realm_emoji", Values(REALM_EMOJI), Required),
    ("realm_user_groups", Items(USER_GROUP), Required),
    ("recent_private_conversations", List, Required),
    ("recent_private_conversations[].max_message_id", Int, Required),
    ("recent_private_conversations[].user_ids", List, Required),
    ("recent_private_conversations[].user_ids[]", Int, Required),
    ("saved_snippets", Items(SAVED_SNIPPET), Nullable),
    ("subscriptions", Items(CHANNEL), Required),
    ("subscriptions", Items(SUBSCRIPTION), Required),
    ("channel_folders", Items(CHANNEL_FOLDER), Nullable),
    ("unread_msgs", Object, Required),
    ("unread_msgs.count", Int, Required),
    ("unread_msgs.pms", List, Required),
    ("unread_msgs.pms[].other_user_id", Int, Required),
    ("unread_msgs.pms[].unread_message_ids", List, Required),
    ("unread_msgs.pms[].unread_message_ids[]", Int, Required),
    ("unread_msgs.streams", List, Required),
    ("unread_msgs.streams[].topic", Str, Required),
    ("unread_msgs.streams[].stream_id", Int, Required),
    ("unread_msgs.streams[].unread_message_ids", List, Required),
    ("unread_msgs.streams[].unread_message_ids[]", Int, Required),
    ("unread_msgs.huddles", List, Required),
    ("unread_msgs.huddles[].user_ids_string", Str, Required),
    ("unread_msgs.huddles[].unread_message_ids", List, Required),
    ("unread_msgs.huddles[].unread_message_ids[]", Int, Required),
    ("unread_msgs.mentions", List, Required),
    ("unread_msgs.mentions[]", Int, Required),
    ("unread_msgs.old_unreads_missing", Bool, Required),
    ("starred_messages", List, Required),
    ("starred_messages[]", Int, Required),
    ("streams", Items(CHANNEL), Required),
    ("user_status", IntKeys, Required),
    ("user_status{}.status_text", Str, Nullable),
    ("user_status{}.emoji_name", Str, Nullable),
    ("user_status{}.emoji_code", Str, Nullable),
    ("user_status{}.reaction_type", Str, Nullable),
    ("user_settings", Object, Required),
    ("user_settings.twenty_four_hour_time", Bool, Nullable),
    ("user_settings.starred_message_counts", Bool, Required),
    ("user_settings.display_emoji_reaction_users", Bool, Required),
    ("user_settings.emojiset", Str, Required),
    ("user_settings.web_inbox_show_channel_folders", Bool, Nullable),
    ("user_settings.presence_enabled", Bool, Required),
    ("user_topics", List, Required),
    ("user_topics[].stream_id", Int, Required),
    ("user_topics[].topic_name", Str, Required),
    ("user_topics[].last_updated", Int, Required),
    ("user_topics[].visibility_policy", Int, Required),
    ("devices", IntKeys, Nullable),
    ("realm_can_delete_any_message_group", Group, Nullable),
    ("realm_can_delete_own_message_group", Group, Nullable),
    ("realm_delete_own_message_policy", IntIn(&[1, 2, 3, 4, 5]), Nullable),
    ("realm_wildcard_mention_policy", IntIn(&[1, 2, 3, 5, 6, 7]), Required),
    ("realm_topics_policy", Str, Nullable),
    ("realm_mandatory_topics", Bool, Nullable),
    ("realm_name", Str, Required),
    ("realm_waiting_period_threshold", Int, Required),
    ("realm_message_content_delete_limit_seconds", Int, Nullable),
    ("realm_allow_message_editing", Bool, Required),
    ("realm_message_content_edit_limit_seconds", Int, Nullable),
    ("realm_enable_read_receipts", Bool, Required),
    ("realm_icon_url", Str, Required),
    ("realm_presence_disabled", Bool, Required),
    ("realm_default_external_accounts", Object, Required),
    ("realm_default_external_accounts{}.name", Str, Required),
    ("realm_default_external_accounts{}.text", Str, Required),
    ("realm_default_external_accounts{}.hint", Str, Required),
    ("realm_default_external_accounts{}.url_pattern", Str, Required),
    ("max_file_upload_size_mib", Int, Required),
    ("server_thumbnail_formats", List, Nullable),
    ("server_thumbnail_formats[].name", Str, Required),
    ("server_thumbnail_formats[].max_width", Int, Required),
    ("server_thumbnail_formats[].max_height", Int, Required),
    ("server_thumbnail_formats[].animated", Bool, Required),
    ("server_thumbnail_formats[].format", Str, Required),
    ("server_emoji_data_url", Str, Required),
    ("event_queue_longpoll_timeout_seconds", Int, Required),
    ("realm_moderation_request_channel_id", Int, Nullable),
    ("realm_empty_topic_display_name", Str, Nullable),
    ("realm_users", Items(USER), Required),
    ("realm_non_active_users", Items(USER), Required),
    ("cross_realm_bots", Items(USER), Required),
    ("server_report_message_types", List, Nullable),
    ("server_report_message_types[].key", Str, Required),
    ("server_report_message_types[].name", Str, Required),
];

/// `Message.fromJson` (both kinds), with `Reaction.fromJson` for its reactions.
const MESSAGE: Table = &[
    ("type", OneOf(&["stream", "private"]), Required),
    ("client", Str, Required),
    ("content", Str, Required),
    ("content_type", Str, Required),
    ("id", Int, Required),
    ("is_me_message", Bool, Required),
    ("last_edit_timestamp", Int, Nullable),
    ("edit_history", List, Nullable),
    ("reactions", List, Required),
    ("reactions[].emoji_name", Str, Required),
    ("reactions[].emoji_code", Str, Required),
    ("reactions[].reaction_type", OneOf(REACTION_TYPES), Required),
    ("reactions[].user_id", Int, Required),
    ("sender_email", Str, Required),
    ("sender_full_name", Str, Required),
    ("sender_id", Int, Required),
    ("sender_realm_str", Str, Required),
    ("timestamp", Int, Required),
    ("flags", List, Required),
    ("flags[]", Str, Required),
    ("match_content", Str, Nullable),
    ("match_subject", Str, Nullable),
    ("submessages", List, Nullable),
    ("submessages[].sender_id", Int, Required),
    ("submessages[].msg_type", Str, Required),
    ("submessages[].content", Str, Required),
];

/// `StreamMessage.fromJson` besides `MESSAGE` (`display_recipient` is `$checkKeys`ed).
const CHANNEL_MESSAGE: Table = &[("stream_id", Int, Required), ("subject", Str, Required), ("display_recipient", Str, Required)];

/// `DmMessage.fromJson` besides `MESSAGE`.
const DM_MESSAGE: Table = &[("display_recipient", List, Required), ("display_recipient[].id", Int, Required)];

/// `GetMessagesResult.fromJson` (messages checked with `MESSAGE`).
const GET_MESSAGES: Table = &[
    ("anchor", Int, Required),
    ("found_newest", Bool, Required),
    ("found_oldest", Bool, Required),
    ("found_anchor", Bool, Required),
    ("history_limited", Bool, Required),
    ("messages", List, Required),
];

/// Every event: `Event.fromJson` reads `id` and `type` (and `op` for some types).
const EVENT: Table = &[("id", Int, Required), ("type", Str, Required)];

/// The event decoders by `type` (and `op`), as `Event.fromJson` dispatches them.
fn event_table(event: &Value) -> Option<Table> {
    let op = event["op"].as_str().unwrap_or("");
    Some(match (event["type"].as_str()?, op) {
        ("message", _) => &[("message", Object, Required), ("flags", List, Required), ("local_message_id", Str, Nullable)],
        ("update_message", _) => &[
            ("user_id", Int, Nullable),
            ("rendering_only", Bool, Required),
            ("message_id", Int, Required),
            ("message_ids", List, Required),
            ("message_ids[]", Int, Required),
            ("flags", List, Required),
            ("flags[]", OneOf(FLAGS), Required),
            ("edit_timestamp", Int, Required),
            ("stream_id", Int, Nullable),
            ("new_stream_id", Int, Nullable),
            ("orig_subject", Str, Nullable),
            ("subject", Str, Nullable),
            ("propagate_mode", OneOf(&["change_one", "change_later", "change_all"]), Nullable),
            ("orig_content", Str, Nullable),
            ("orig_rendered_content", Str, Nullable),
            ("content", Str, Nullable),
            ("rendered_content", Str, Nullable),
            ("is_me_message", Bool, Nullable),
        ],
        ("delete_message", _) => &[
            ("message_ids", List, Required),
            ("message_ids[]", Int, Required),
            ("message_type", OneOf(MESSAGE_TYPES), Required),
            ("stream_id", Int, Nullable),
            ("topic", Str, Nullable),
        ],
        ("reaction", _) => &[
            ("op", OneOf(&["add", "remove"]), Required),
            ("emoji_name", Str, Required),
            ("emoji_code", Str, Required),
            ("reaction_type", OneOf(REACTION_TYPES), Required),
            ("user_id", Int, Required),
            ("message_id", Int, Required),
        ],
        ("typing", _) => &[
            ("op", OneOf(&["start", "stop"]), Required),
            ("message_type", OneOf(MESSAGE_TYPES), Required),
            ("sender", Object, Required),
            ("sender.user_id", Int, Required),
            ("recipients", List, Nullable),
            ("recipients[].user_id", Int, Required),
            ("stream_id", Int, Nullable),
            ("topic", Str, Nullable),
        ],
        ("user_topic", _) => &[
            ("stream_id", Int, Required),
            ("topic_name", Str, Required),
            ("last_updated", Int, Required),
            ("visibility_policy", IntIn(&[0, 1, 2, 3]), Required),
        ],
        ("subscription", "add") => &[("subscriptions", Items(CHANNEL), Required), ("subscriptions", Items(SUBSCRIPTION), Required)],
        ("subscription", "remove") => &[("subscriptions", List, Required), ("subscriptions[].stream_id", Int, Required)],
        ("subscription", "update") => &[("stream_id", Int, Required), ("property", Str, Required)],
        ("subscription", "peer_add" | "peer_remove") => {
            &[("stream_ids", List, Required), ("stream_ids[]", Int, Required), ("user_ids", List, Required), ("user_ids[]", Int, Required)]
        }
        ("update_message_flags", "add") => {
            &[("flag", Str, Required), ("messages", List, Required), ("messages[]", Int, Required), ("all", Bool, Required)]
        }
        ("update_message_flags", "remove") => &[
            ("flag", Str, Required),
            ("messages", List, Required),
            ("messages[]", Int, Required),
            ("message_details", IntKeys, Nullable),
            ("message_details{}.type", OneOf(MESSAGE_TYPES), Required),
            ("message_details{}.mentioned", Bool, Nullable),
            ("message_details{}.user_ids", List, Nullable),
            ("message_details{}.user_ids[]", Int, Required),
            ("message_details{}.stream_id", Int, Nullable),
            ("message_details{}.topic", Str, Nullable),
        ],
        ("presence", _) => &[
            ("user_id", Int, Required),
            ("server_timestamp", Num, Required),
            ("presence", Object, Required),
            ("presence{}.client", Str, Required),
            ("presence{}.status", OneOf(&["active", "idle"]), Required),
            ("presence{}.timestamp", Int, Required),
            ("presence{}.pushable", Bool, Required),
        ],
        ("user_status", _) => &[
            ("user_id", Int, Required),
            ("status_text", Str, Nullable),
            ("emoji_name", Str, Nullable),
            ("emoji_code", Str, Nullable),
            ("reaction_type", Str, Nullable),
        ],
        ("alert_words", _) => &[("alert_words", List, Required), ("alert_words[]", Str, Required)],
        ("muted_users", _) => &[("muted_users", List, Required), ("muted_users[].id", Int, Required)],
        ("stream", "create") => &[("streams", Items(CHANNEL), Required)],
        ("stream", "delete") => &[("stream_ids", List, Nullable), ("streams", List, Nullable)],
        ("stream", "update") => &[
            ("stream_id", Int, Required),
            ("name", Str, Required),
            ("property", Str, Required),
            ("rendered_description", Str, Nullable),
            ("history_public_to_subscribers", Bool, Nullable),
            ("is_web_public", Bool, Nullable),
        ],
        ("realm_user", "add") => &[("person", Obj(USER), Required)],
        // `RealmUserUpdateEvent`: every property but the user id is optional.
        ("realm_user", "update") => &[
            ("person", Object, Required),
            ("person.user_id", Int, Required),
            ("person.full_name", Str, Nullable),
            ("person.avatar_url", Str, Nullable),
            ("person.avatar_version", Int, Nullable),
            ("person.timezone", Str, Nullable),
            ("person.bot_owner_id", Int, Nullable),
            ("person.role", Int, Nullable),
            ("person.delivery_email", Str, Nullable),
            ("person.custom_profile_field", Object, Nullable),
            ("person.custom_profile_field.id", Int, Required),
            ("person.custom_profile_field.value", Str, Nullable),
            ("person.custom_profile_field.rendered_value", Str, Nullable),
            ("person.new_email", Str, Nullable),
            ("person.is_active", Bool, Nullable),
        ],
        ("user_group", "add") => &[("group", Obj(USER_GROUP), Required)],
        ("user_group", "update") => &[
            ("group_id", Int, Required),
            ("data", Object, Required),
            ("data.name", Str, Nullable),
            ("data.description", Str, Nullable),
            ("data.deactivated", Bool, Nullable),
        ],
        ("user_group", "add_members" | "remove_members") => {
            &[("group_id", Int, Required), ("user_ids", List, Required), ("user_ids[]", Int, Required)]
        }
        ("user_group", "add_subgroups" | "remove_subgroups") => {
            &[("group_id", Int, Required), ("direct_subgroup_ids", List, Required), ("direct_subgroup_ids[]", Int, Required)]
        }
        ("user_group", "remove") => &[("group_id", Int, Required)],
        ("channel_folder", "add") => &[("channel_folder", Obj(CHANNEL_FOLDER), Required)],
        ("channel_folder", "update") => &[
            ("channel_folder_id", Int, Required),
            ("data", Object, Required),
            ("data.name", Str, Nullable),
            ("data.description", Str, Nullable),
            ("data.rendered_description", Str, Nullable),
            ("data.is_archived", Bool, Nullable),
        ],
        ("channel_folder", "reorder") => &[("order", List, Required), ("order[]", Int, Required)],
        ("custom_profile_fields", _) => &[("fields", Items(CUSTOM_PROFILE_FIELD), Required)],
        ("saved_snippets", "add" | "update") => &[("saved_snippet", Obj(SAVED_SNIPPET), Required)],
        ("saved_snippets", "remove") => &[("saved_snippet_id", Int, Required)],
        ("user_settings", "update") => &[("property", Str, Required)],
        ("heartbeat", _) => &[],
        _ => return None,
    })
}

/// One step of a path: an object key, every list element, every object value.
enum Step<'a> {
    Key(&'a str),
    Elements,
    Values,
}

fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for segment in path.split('.') {
        let mut name = segment;
        let mut tail = Vec::new();
        loop {
            if let Some(rest) = name.strip_suffix("[]") {
                tail.push(Step::Elements);
                name = rest;
            } else if let Some(rest) = name.strip_suffix("{}") {
                tail.push(Step::Values);
                name = rest;
            } else {
                break;
            }
        }
        if !name.is_empty() {
            out.push(Step::Key(name));
        }
        out.extend(tail.into_iter().rev());
    }
    out
}

/// The values a path reaches, with where they are; `None` for an absent last key.
/// An absent or null container on the way reaches nothing (its own row checks it).
fn reach<'v>(root: &'v Value, path: &str) -> Vec<(String, Option<&'v Value>)> {
    let mut at: Vec<(String, Option<&Value>)> = vec![(String::new(), Some(root))];
    for step in steps(path) {
        let mut next = Vec::new();
        for (loc, value) in at {
            let Some(value) = value.filter(|v| !v.is_null()) else { continue };
            match step {
                Step::Key(k) => next.push((format!("{loc}.{k}"), value.get(k))),
                Step::Elements => {
                    for (i, v) in value.as_array().into_iter().flatten().enumerate() {
                        next.push((format!("{loc}[{i}]"), Some(v)));
                    }
                }
                Step::Values => {
                    for (k, v) in value.as_object().into_iter().flatten() {
                        next.push((format!("{loc}{{{k}}}"), Some(v)));
                    }
                }
            }
        }
        at = next;
    }
    at
}

fn type_ok(ty: Ty, v: &Value) -> bool {
    match ty {
        Obj(_) | Values(_) => v.is_object(),
        Items(_) => v.is_array(),
        Int => v.is_i64() || v.is_u64(),
        Num => v.is_number(),
        Str => v.is_string(),
        Bool => v.is_boolean(),
        List => v.is_array(),
        Object => v.is_object(),
        IntKeys => v.as_object().is_some_and(|m| m.keys().all(|k| k.parse::<i64>().is_ok())),
        Group => {
            v.is_i64()
                || v.as_object().is_some_and(|m| {
                    ["direct_members", "direct_subgroups"]
                        .iter()
                        .all(|k| m.get(*k).and_then(Value::as_array).is_some_and(|a| a.iter().all(Value::is_i64)))
                })
        }
        Color => v
            .as_str()
            .is_some_and(|s| s.len() == 7 && s.starts_with('#') && s[1..].chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))),
        OneOf(allowed) => v.as_str().is_some_and(|s| allowed.contains(&s)),
        IntIn(allowed) => v.as_i64().is_some_and(|n| allowed.contains(&n)),
    }
}

/// Every violation of `table` in `root` (prefixed by `what`).
fn violations(what: &str, root: &Value, table: Table) -> Vec<String> {
    let mut out = Vec::new();
    for (path, ty, need) in table {
        for (loc, value) in reach(root, path) {
            match value {
                None | Some(Value::Null) if *need == Nullable => {}
                None => out.push(format!("{what}{loc}: missing, the app requires {}", ty.describe())),
                Some(v) if !type_ok(*ty, v) => out.push(format!("{what}{loc}: {v} is not {}", ty.describe())),
                Some(v) => out.extend(nested_violations(&format!("{what}{loc}"), *ty, v)),
            }
        }
    }
    out
}

/// The violations inside a value of a nested type (its own type already checked).
fn nested_violations(what: &str, ty: Ty, v: &Value) -> Vec<String> {
    let object = |what: String, item: &Value, table: Table| {
        if item.is_object() {
            violations(&what, item, table)
        } else {
            vec![format!("{what}: {item} is not an object")]
        }
    };
    match ty {
        Obj(table) => violations(what, v, table),
        Items(table) => {
            v.as_array().into_iter().flatten().enumerate().flat_map(|(i, item)| object(format!("{what}[{i}]"), item, table)).collect()
        }
        Values(table) => v.as_object().into_iter().flatten().flat_map(|(k, item)| object(format!("{what}{{{k}}}"), item, table)).collect(),
        _ => Vec::new(),
    }
}

/// The violations of a message object (`flags` already merged in, as `MessageEvent` does).
fn message_violations(what: &str, message: &Value) -> Vec<String> {
    let mut out = violations(what, message, MESSAGE);
    out.extend(match message["type"].as_str() {
        Some("stream") => violations(what, message, CHANNEL_MESSAGE),
        _ => violations(what, message, DM_MESSAGE),
    });
    // `MessageEditState._readFromMessage`: an entry naming a previous topic names the new one.
    for (i, entry) in message["edit_history"].as_array().into_iter().flatten().enumerate() {
        if entry.get("prev_topic").is_some_and(|t| !t.is_null()) && !(entry["prev_topic"].is_string() && entry["topic"].is_string()) {
            out.push(format!("{what}.edit_history[{i}]: prev_topic without a string topic: {entry}"));
        }
    }
    out
}

/// The violations of one event from `GET /events`.
fn event_violations(event: &Value) -> Vec<String> {
    let what = format!("{} event {}", event["type"], event["id"]);
    let mut out = violations(&what, event, EVENT);
    if let Some(table) = event_table(event) {
        out.extend(violations(&what, event, table));
    }
    // `_readValue` of the update events: the value's type follows the property.
    let value_type = match (event["type"].as_str(), event["op"].as_str(), event["property"].as_str()) {
        (Some("subscription"), Some("update"), Some("color")) => Some((Color, Required)),
        (Some("subscription"), Some("update"), Some(p)) if SUBSCRIPTION.iter().any(|(name, ty, _)| *name == p && matches!(ty, Bool)) => {
            Some((Bool, Required))
        }
        (Some("stream"), Some("update"), Some(p)) => CHANNEL.iter().find(|(name, ..)| *name == p).map(|(_, ty, need)| (*ty, *need)),
        (Some("user_settings"), Some("update"), Some("emojiset")) => Some((Str, Required)),
        (Some("user_settings"), Some("update"), Some("twenty_four_hour_time")) => Some((Bool, Nullable)),
        (
            Some("user_settings"),
            Some("update"),
            Some("starred_message_counts" | "display_emoji_reaction_users" | "web_inbox_show_channel_folders" | "presence_enabled"),
        ) => Some((Bool, Required)),
        _ => None,
    };
    if let Some((ty, need)) = value_type {
        match event.get("value") {
            None | Some(Value::Null) if need == Nullable => {}
            Some(v) if type_ok(ty, v) => {}
            other => out.push(format!("{what}.value: {other:?} is not {}", ty.describe())),
        }
    }
    match (event["type"].as_str(), event["op"].as_str()) {
        (Some("message"), _) => {
            let mut message = event["message"].clone();
            message["flags"] = event["flags"].clone();
            out.extend(message_violations(&format!("{what} message"), &message));
        }
        (Some("update_message"), _) => {
            // `UpdateMessageMoveData.tryParseFromJson`: `propagate_mode` only on a move, and a
            // move names the original channel and topic.
            let moved = event.get("new_stream_id").is_some() || event.get("subject").is_some();
            if event.get("propagate_mode").is_some() && !moved {
                out.push(format!("{what}: propagate_mode without a new channel or topic"));
            }
            if moved
                && (event["stream_id"].as_i64().is_none() || !event["orig_subject"].is_string() || event.get("propagate_mode").is_none())
            {
                out.push(format!("{what}: a move lacks stream_id, orig_subject or propagate_mode"));
            }
        }
        // The decoders' "crunchy-shell validation": a channel event names its channel and
        // topic, a direct typing event its recipients.
        (Some("delete_message" | "typing"), _)
            if event["message_type"] == "stream" && (event["stream_id"].as_i64().is_none() || !event["topic"].is_string()) =>
        {
            out.push(format!("{what}: a channel {} event lacks stream_id or topic", event["type"]));
        }
        (Some("typing"), _) if event["message_type"] != "stream" && !event["recipients"].is_array() => {
            out.push(format!("{what}: a direct typing event lacks recipients"))
        }
        _ => {}
    }
    out
}

#[test]
fn the_checker_reports_missing_fields_wrong_types_and_unknown_enum_values() {
    let bad = serde_json::json!({
        "unread_msgs": {"count": 1.5, "pms": [{"other_user_id": 3}]},
        "presences": {"x": {}},
        "realm_wildcard_mention_policy": 4,
        "realm_users": [{"user_id": "7"}, 3],
        "realm_name": null,
        "devices": null,
    });
    let found = violations("", &bad, INITIAL_SNAPSHOT);
    for expected in [
        ".unread_msgs.count: 1.5 is not Int",
        ".unread_msgs.pms[0].unread_message_ids: missing",
        ".presences: {\"x\":{}} is not IntKeys",
        ".realm_wildcard_mention_policy: 4 is not IntIn",
        ".realm_name: null is not Str",
        ".realm_users[0].user_id: \"7\" is not Int",
        ".realm_users[0].timezone: missing",
        ".realm_users[1]: 3 is not an object",
        ".queue_id: missing",
    ] {
        assert!(found.iter().any(|v| v.starts_with(expected)), "{expected} not in {found:#?}");
    }
    assert!(!found.iter().any(|v| v.starts_with(".devices")), "{found:#?}");
}

#[track_caller]
fn assert_none(violations: Vec<String>) {
    assert!(violations.is_empty(), "{} violation(s) of the app's models:\n{}", violations.len(), violations.join("\n"));
}

/// `registerQueue`'s parameters, each JSON-encoded as the app's `encodeParameters` does.
fn register_as_app(client: &Client) -> Queue {
    let capabilities = r#"{"notification_settings_null":true,"bulk_message_deletion":true,"user_avatar_url_field_optional":true,"stream_typing_notifications":true,"user_settings_object":true,"include_deactivated_groups":true,"empty_topic_name":true,"individual_emoji_changes":true}"#;
    register(
        client,
        &[
            ("idle_queue_timeout", "\"mobile\""),
            ("apply_markdown", "true"),
            ("client_gravatar", "false"),
            ("slim_presence", "true"),
            ("client_capabilities", capabilities),
        ],
    )
}

/// A new user of its own (so that its state holds this test's data only), on a new channel
/// with othello.
struct World {
    user: Client,
    othello: Client,
    channel: String,
    channel_id: i64,
}

fn world(prefix: &str) -> World {
    let iago = Client::dev("iago@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let email = format!("{}@zulip.com", unique(prefix));
    iago.post("/users", &[("email", &email), ("password", "pw-123456789"), ("full_name", "Mobile User")]).success();
    let user = Client::dev(&email);
    let channel = unique(prefix);
    let channel_id = create_channel(&othello, &channel, &[], &[othello.user_id, user.user_id]);
    World { user, othello, channel, channel_id }
}

#[test]
fn register_response_carries_everything_the_app_snapshot_requires() {
    let w = world("mapp");
    let (user, othello) = (&w.user, &w.othello);
    let prospero = Client::dev("prospero@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    // State in every list the snapshot parses.
    user.post("/users/me/alert_words", &[("alert_words", "[\"mobilealert\"]")]).success();
    user.post(&format!("/users/me/muted_users/{}", prospero.user_id), &[]).success();
    user.post("/users/me/presence", &[("status", "active"), ("new_user_input", "true")]).success();
    othello.post("/users/me/presence", &[("status", "active"), ("new_user_input", "true")]).success();
    user.post(
        "/users/me/status",
        &[("status_text", "on the go"), ("emoji_name", "car"), ("emoji_code", "1f697"), ("reaction_type", "unicode_emoji")],
    )
    .success();
    user.post("/user_topics", &[("stream_id", &w.channel_id.to_string()), ("topic", "followed"), ("visibility_policy", "3")]).success();
    user.post("/saved_snippets", &[("title", "hello"), ("content", "Hello there")]).success();
    send_to_channel(othello, &w.channel, "unread", &format!("@**Mobile User** mobilealert {}", unique("m")));
    let starred = send_direct(othello, &[user.user_id], "a direct message");
    user.post("/messages/flags", &[("messages", &format!("[{starred}]")), ("op", "add"), ("flag", "starred")]).success();
    send_direct(othello, &[user.user_id, cordelia.user_id], "a group direct message");

    let snapshot = register_as_app(user).register;
    assert_none(violations("", &snapshot, INITIAL_SNAPSHOT));
    // The app refuses servers below its `kMinSupportedZulipFeatureLevel`.
    assert!(snapshot["zulip_feature_level"].as_i64().unwrap() >= 371, "{}", snapshot["zulip_feature_level"]);

    // The walk above reached into every list this test filled.
    for path in [
        "alert_words[]",
        "muted_users[]",
        "presences{}",
        "realm_user_groups[]",
        "recent_private_conversations[]",
        "saved_snippets[]",
        "subscriptions[]",
        "unread_msgs.pms[]",
        "unread_msgs.streams[]",
        "unread_msgs.huddles[]",
        "unread_msgs.mentions[]",
        "starred_messages[]",
        "streams[]",
        "user_status{}",
        "user_topics[]",
        "realm_users[]",
    ] {
        assert!(!reach(&snapshot, path).is_empty(), "the snapshot has nothing at {path}");
    }
    assert!(snapshot["user_status"].get(user.user_id.to_string()).is_some(), "{}", snapshot["user_status"]);
    assert!(snapshot["presences"].get(othello.user_id.to_string()).is_some(), "{}", snapshot["presences"]);
}

#[test]
fn messages_fetched_and_received_parse_as_the_app_models() {
    let w = world("mmsg");
    let (user, othello) = (&w.user, &w.othello);
    let mut queue = register_as_app(user);
    let tag = unique("t");
    let in_channel = send_to_channel(othello, &w.channel, "shapes", &format!("channel {tag}"));
    user.post(&format!("/messages/{in_channel}/reactions"), &[("emoji_name", "smile")]).success();
    othello.patch(&format!("/messages/{in_channel}"), &[("content", &format!("edited {tag}"))]).success();
    let moved = send_to_channel(othello, &w.channel, "before the move", &format!("moved {tag}"));
    othello.patch(&format!("/messages/{moved}"), &[("topic", "after the move"), ("propagate_mode", "change_one")]).success();
    let direct = send_direct(othello, &[user.user_id], &format!("direct {tag}"));

    // As received through `GET /events`.
    let mut found = Vec::new();
    let mut events = Vec::new();
    while !events.iter().any(|e: &Value| e["type"] == "message" && e["message"]["id"] == direct) {
        let batch = queue.poll(false);
        assert!(!batch.is_empty(), "no direct message event; so far {events:?}");
        events.extend(batch);
    }
    for id in [in_channel, direct] {
        let event = events.iter().find(|e| e["type"] == "message" && e["message"]["id"] == id).expect("the message event");
        found.extend(event_violations(event));
    }

    // As `getMessages` asks for them (the home view, at the first unread message).
    let narrow = "[]";
    let body = user
        .get(
            "/messages",
            &[
                ("narrow", narrow),
                ("anchor", "first_unread"),
                ("num_before", "100"),
                ("num_after", "100"),
                ("client_gravatar", "false"),
                ("apply_markdown", "true"),
                ("allow_empty_topic_name", "true"),
            ],
        )
        .success();
    found.extend(violations("GET /messages", &body, GET_MESSAGES));
    let messages = body["messages"].as_array().unwrap();
    // The channel's opening notice, the three sent and the notification bot's note about
    // the move.
    assert_eq!(messages.len(), 5, "{body}");
    for (i, m) in messages.iter().enumerate() {
        found.extend(message_violations(&format!("GET /messages messages[{i}]"), m));
    }
    let reacted = messages.iter().find(|m| m["id"] == in_channel).expect("the reacted message");
    assert!(reacted["reactions"].as_array().is_some_and(|r| r.len() == 1), "{reacted}");
    assert!(reacted["last_edit_timestamp"].is_i64(), "{reacted}");
    for id in [in_channel, moved, direct] {
        let body = user.get(&format!("/messages/{id}"), &[("apply_markdown", "true"), ("allow_empty_topic_name", "true")]).success();
        found.extend(message_violations(&format!("GET /messages/{id} message"), &body["message"]));
    }
    assert_none(found);
}

#[test]
fn events_the_app_parses_carry_what_its_decoders_require() {
    let w = world("mevt");
    let (user, othello) = (&w.user, &w.othello);
    let mut queue = register_as_app(user);
    let tag = unique("t");
    let channel_id = w.channel_id.to_string();
    let first = send_to_channel(othello, &w.channel, "events", &format!("first {tag}"));
    let second = send_to_channel(othello, &w.channel, "events", &format!("second {tag}"));
    let direct = send_direct(othello, &[user.user_id], &format!("direct {tag}"));
    // update_message: a content edit, then a topic move.
    othello.patch(&format!("/messages/{first}"), &[("content", &format!("first, edited {tag}"))]).success();
    othello.patch(&format!("/messages/{second}"), &[("topic", "moved"), ("propagate_mode", "change_one")]).success();
    // reaction, update_message_flags, typing, user_topic.
    user.post(&format!("/messages/{first}/reactions"), &[("emoji_name", "smile")]).success();
    user.delete(&format!("/messages/{first}/reactions"), &[("emoji_name", "smile")]).success();
    user.post("/messages/flags", &[("messages", &format!("[{first},{direct}]")), ("op", "add"), ("flag", "read")]).success();
    user.post("/messages/flags", &[("messages", &format!("[{first},{direct}]")), ("op", "remove"), ("flag", "read")]).success();
    user.post("/messages/flags", &[("messages", &format!("[{first}]")), ("op", "add"), ("flag", "starred")]).success();
    othello.post("/typing", &[("type", "stream"), ("stream_id", &channel_id), ("topic", "events"), ("op", "start")]).success();
    othello.post("/typing", &[("to", &format!("[{}]", user.user_id)), ("op", "start")]).success();
    user.post("/user_topics", &[("stream_id", &channel_id), ("topic", "events"), ("visibility_policy", "1")]).success();
    // subscription: update, a peer joining, the user's own add and remove.
    let properties = format!(
        r##"[{{"stream_id": {channel_id}, "property": "pin_to_top", "value": true}}, {{"stream_id": {channel_id}, "property": "color", "value": "#c2c2c2"}}]"##
    );
    user.post("/users/me/subscriptions/properties", &[("subscription_data", &properties)]).success();
    let cordelia = Client::dev("cordelia@zulip.com");
    othello
        .post(
            "/users/me/subscriptions",
            &[("subscriptions", &format!("[{{\"name\": \"{}\"}}]", w.channel)), ("principals", &format!("[{}]", cordelia.user_id))],
        )
        .success();
    let other_channel = unique("mevt");
    create_channel(othello, &other_channel, &[], &[othello.user_id, user.user_id]);
    user.delete("/users/me/subscriptions", &[("subscriptions", &format!("[\"{other_channel}\"]"))]).success();
    // The user's own state: presence, status, alert words, muted users, snippets.
    othello.post("/users/me/presence", &[("status", "active"), ("new_user_input", "true")]).success();
    user.post("/users/me/status", &[("status_text", "busy")]).success();
    user.post("/users/me/alert_words", &[("alert_words", "[\"mevt\"]")]).success();
    let prospero = Client::dev("prospero@zulip.com");
    user.post(&format!("/users/me/muted_users/{}", prospero.user_id), &[]).success();
    user.post("/saved_snippets", &[("title", "t"), ("content", "c")]).success();
    // delete_message, last: its event is the sentinel.
    let iago = Client::dev("iago@zulip.com");
    iago.delete(&format!("/messages/{second}"), &[]).success();

    let mut events = Vec::new();
    let mut seen_last = false;
    while !seen_last {
        let batch = queue.poll(false);
        seen_last = batch.iter().any(|e| e["type"] == "delete_message");
        events.extend(batch);
    }
    let mut found = Vec::new();
    for event in &events {
        found.extend(event_violations(event));
    }
    assert_none(found);

    // Every kind of event the app decodes that this exercise makes the server send came.
    let kinds: Vec<String> = events.iter().map(|e| format!("{}/{}", e["type"].as_str().unwrap(), e["op"].as_str().unwrap_or(""))).collect();
    for kind in [
        "message/",
        "update_message/",
        "reaction/add",
        "reaction/remove",
        "update_message_flags/add",
        "update_message_flags/remove",
        "typing/start",
        "user_topic/",
        "subscription/update",
        "subscription/peer_add",
        "subscription/add",
        "subscription/remove",
        "presence/",
        "user_status/",
        "alert_words/",
        "muted_users/",
        "saved_snippets/add",
        "delete_message/",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "no {kind} event among {kinds:?}");
    }
    let moves = events.iter().filter(|e| e["type"] == "update_message" && e.get("orig_subject").is_some()).count();
    assert_eq!(moves, 1, "one topic move: {events:?}");
}

#[test]
fn organization_events_the_app_parses_carry_what_its_decoders_require() {
    let w = world("morg");
    let (user, othello) = (&w.user, &w.othello);
    let iago = Client::dev("iago@zulip.com");
    let mut queue = register_as_app(user);
    // realm_user: a new user, a new name, a profile field value.
    let email = format!("{}@zulip.com", unique("morg"));
    let newcomer = iago.post("/users", &[("email", &email), ("password", "pw-123456789"), ("full_name", "Newcomer")]).success()["user_id"]
        .as_i64()
        .unwrap();
    iago.patch(&format!("/users/{newcomer}"), &[("full_name", "Newcomer Renamed")]).success();
    let field = iago.post("/realm/profile_fields", &[("name", &unique("MorgF")), ("field_type", "4")]).success()["id"].as_i64().unwrap();
    user.patch("/users/me/profile_data", &[("data", &format!(r#"[{{"id": {field}, "value": "2024-02-03"}}]"#))]).success();
    // channel_folder: a new folder, a new description.
    let folder = iago.post("/channel_folders/create", &[("name", &unique("morg")), ("description", "")]).success()["channel_folder_id"]
        .as_i64()
        .unwrap();
    iago.patch(&format!("/channel_folders/{folder}"), &[("description", "about *this*")]).success();
    // stream: a new public channel, filed in that folder.
    let public = unique("morg");
    let public_id = create_channel(othello, &public, &[], &[othello.user_id]);
    iago.patch(&format!("/streams/{public_id}"), &[("folder_id", &folder.to_string())]).success();
    // user_group: a new group, a member in and out, a subgroup.
    let group = user
        .post("/user_groups/create", &[("name", &unique("morg")), ("description", "d"), ("members", &format!("[{}]", user.user_id))])
        .success()["group_id"]
        .as_i64()
        .unwrap();
    user.post(&format!("/user_groups/{group}/members"), &[("add", &format!("[{}]", othello.user_id))]).success();
    user.post(&format!("/user_groups/{group}/members"), &[("delete", &format!("[{}]", othello.user_id))]).success();
    let sub = user.post("/user_groups/create", &[("name", &unique("morg")), ("description", "s")]).success()["group_id"].as_i64().unwrap();
    user.post(&format!("/user_groups/{group}/subgroups"), &[("add", &format!("[{sub}]"))]).success();
    // A direct message last: its event is the sentinel.
    let sentinel = send_direct(othello, &[user.user_id], "sentinel");

    let mut events = Vec::new();
    while !events.iter().any(|e: &Value| e["type"] == "message" && e["message"]["id"] == sentinel) {
        let batch = queue.poll(false);
        assert!(!batch.is_empty(), "no sentinel event; so far {events:?}");
        events.extend(batch);
    }
    assert_none(events.iter().flat_map(event_violations).collect());
    let kinds: Vec<String> = events.iter().map(|e| format!("{}/{}", e["type"].as_str().unwrap(), e["op"].as_str().unwrap_or(""))).collect();
    for kind in [
        "realm_user/add",
        "realm_user/update",
        "custom_profile_fields/",
        "stream/create",
        "stream/update",
        "user_group/add",
        "user_group/add_members",
        "user_group/remove_members",
        "user_group/add_subgroups",
        "channel_folder/add",
        "channel_folder/update",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "no {kind} event among {kinds:?}");
    }
    let profile_update = events.iter().any(|e| e["type"] == "realm_user" && e["person"]["custom_profile_field"]["id"] == field);
    assert!(profile_update, "no realm_user update of the profile field: {events:?}");
}

#[test]
fn routes_the_app_calls_at_login_and_while_running_answer_its_shapes() {
    let w = world("mrte");
    let user = &w.user;
    let mut found = Vec::new();
    // `getServerSettings`, before login.
    let settings = anonymous("GET", "/server_settings", &[]).success();
    found.extend(violations(
        "GET /server_settings",
        &settings,
        &[
            ("authentication_methods", Object, Required),
            ("authentication_methods.ldap", Bool, Required),
            ("external_authentication_methods", List, Required),
            ("external_authentication_methods[].name", Str, Required),
            ("external_authentication_methods[].display_name", Str, Required),
            ("external_authentication_methods[].display_icon", Str, Nullable),
            ("external_authentication_methods[].login_url", Str, Required),
            ("external_authentication_methods[].signup_url", Str, Required),
            ("zulip_feature_level", Int, Required),
            ("zulip_version", Str, Required),
            ("zulip_merge_base", Str, Required),
            ("push_notifications_enabled", Bool, Required),
            ("is_incompatible", Bool, Required),
            ("email_auth_enabled", Bool, Required),
            ("require_email_format_usernames", Bool, Required),
            ("realm_uri", Str, Required),
            ("realm_name", Str, Required),
            ("realm_icon", Str, Required),
            ("realm_description", Str, Required),
            ("realm_web_public_access_enabled", Bool, Required),
        ],
    ));
    assert!(
        settings["zulip_feature_level"].as_i64().is_some_and(|level| level >= 371) && settings["is_incompatible"] == false,
        "{settings}"
    );
    // `fetchApiKey`, then `getOwnUser`.
    let key = anonymous("POST", "/fetch_api_key", &[("username", &user.email), ("password", "pw-123456789")]).success();
    found.extend(violations(
        "POST /fetch_api_key",
        &key,
        &[("api_key", Str, Required), ("email", Str, Required), ("user_id", Int, Nullable)],
    ));
    found.extend(violations("GET /users/me", &user.get("/users/me", &[]).success(), &[("user_id", Int, Required)]));
    // `updatePresence`, as the app sends it.
    let presence = user
        .post(
            "/users/me/presence",
            &[
                ("status", "active"),
                ("ping_only", "false"),
                ("new_user_input", "true"),
                ("last_update_id", "-1"),
                ("slim_presence", "true"),
            ],
        )
        .success();
    found.extend(violations(
        "POST /users/me/presence",
        &presence,
        &[
            ("presence_last_update_id", Int, Nullable),
            ("server_timestamp", Num, Nullable),
            ("presences", IntKeys, Nullable),
            ("presences{}.active_timestamp", Int, Required),
            ("presences{}.idle_timestamp", Int, Required),
        ],
    ));
    // `sendMessage` (type `channel`, JSON `to`), `getStreamTopics`, `updateMessageFlagsForNarrow`.
    let sent = user
        .post(
            "/messages",
            &[
                ("type", "channel"),
                ("to", &w.channel_id.to_string()),
                ("topic", "routes"),
                ("content", "from the app"),
                ("read_by_sender", "true"),
            ],
        )
        .success();
    found.extend(violations("POST /messages", &sent, &[("id", Int, Required)]));
    let topics = user.get(&format!("/users/me/{}/topics", w.channel_id), &[("allow_empty_topic_name", "true")]).success();
    found.extend(violations(
        "GET topics",
        &topics,
        &[("topics", List, Required), ("topics[].max_id", Int, Required), ("topics[].name", Str, Required)],
    ));
    assert!(!reach(&topics, "topics[]").is_empty(), "{topics}");
    let narrow = format!("[{{\"operator\":\"channel\",\"operand\":{}}}]", w.channel_id);
    let marked = user
        .post(
            "/messages/flags/narrow",
            &[("anchor", "oldest"), ("num_before", "0"), ("num_after", "1000"), ("narrow", &narrow), ("op", "add"), ("flag", "read")],
        )
        .success();
    found.extend(violations(
        "POST /messages/flags/narrow",
        &marked,
        &[
            ("processed_count", Int, Required),
            ("updated_count", Int, Required),
            ("first_processed_id", Int, Nullable),
            ("last_processed_id", Int, Nullable),
            ("found_oldest", Bool, Required),
            ("found_newest", Bool, Required),
        ],
    ));
    // The emoji data the snapshot points at (`ServerEmojiData.fromJson`).
    let snapshot = register(user, &[("fetch_event_types", "[\"realm\"]")]).register;
    let url = snapshot["server_emoji_data_url"].as_str().unwrap().to_string();
    let path = url.split_once("://").map(|(_, rest)| &rest[rest.find('/').unwrap()..]).unwrap();
    let response = ureq::get(&format!("{}{path}", server_url())).call().expect("server_emoji_data_url answers");
    let emoji: Value = serde_json::from_str(&response.into_string().unwrap()).unwrap();
    found.extend(violations(
        "emoji data",
        &emoji,
        &[("code_to_names", Object, Required), ("code_to_names{}", List, Required), ("code_to_names{}[]", Str, Required)],
    ));
    assert!(!reach(&emoji, "code_to_names{}").is_empty());
    assert_none(found);
}
