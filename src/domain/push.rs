//! Mobile push: who is notified of a message (Zulip's rules), validation of E2EE device
//! registrations, the notification payloads (Zulip's shapes) and their encryption with a
//! device's push key.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use crypto_secretbox::aead::{Aead, KeyInit};
use crypto_secretbox::{Key, Nonce, XSalsa20Poly1305};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::db::push_devices::{PushCandidateRow, TokenFields};
use crate::domain::user_settings;
use crate::error::{ApiError, ApiResult};
use crate::model::message_flags::{MENTIONED, STREAM_WILDCARD_MENTIONED, TOPIC_WILDCARD_MENTIONED};
use crate::model::VisibilityPolicy;

/// First byte of a `push_key`: XSalsa20-Poly1305 secretbox with a 32-byte key.
pub const SECRETBOX_KEY_PREFIX: u8 = 0x31;

/// What a `POST /mobile_push/register` call asks for, once validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Registration {
    pub device_id: i64,
    pub push_key: Option<(i64, String)>,
    pub token: Option<TokenFields>,
}

/// The raw parameters of a registration.
#[derive(Debug, Default)]
pub struct RawRegistration {
    pub device_id: i64,
    pub push_key_id: Option<i64>,
    pub push_key: Option<String>,
    pub token_kind: Option<String>,
    pub token_id: Option<String>,
    pub bouncer_public_key: Option<String>,
    pub encrypted_push_registration: Option<String>,
}

fn check_base64(name: &str, value: &str) -> ApiResult<Vec<u8>> {
    STANDARD.decode(value).map_err(|_| ApiError::bad_request(format!("Invalid {name}: not standard Base64")))
}

/// The secretbox key of a `push_key` (0x31 then 32 bytes).
pub fn check_push_key(push_key: &str) -> ApiResult<[u8; 32]> {
    let bytes = check_base64("push_key", push_key)?;
    match bytes.split_first() {
        Some((&SECRETBOX_KEY_PREFIX, key)) if key.len() == 32 => Ok(key.try_into().expect("32 bytes")),
        Some((&SECRETBOX_KEY_PREFIX, _)) => Err(ApiError::bad_request("Invalid push_key: the key must be 32 bytes")),
        _ => Err(ApiError::bad_request("Invalid push_key: unsupported cryptosystem")),
    }
}

/// Checks every field, then the groups: both for an initial registration (`exists` false),
/// at least one for a later call.
pub fn validate_registration(raw: RawRegistration, exists: bool) -> ApiResult<Registration> {
    if let Some(id) = raw.push_key_id {
        if !(0..=u32::MAX as i64).contains(&id) {
            return Err(ApiError::bad_request("Invalid push_key_id: must be an unsigned 32-bit integer"));
        }
    }
    if let Some(key) = &raw.push_key {
        check_push_key(key)?;
    }
    if let Some(kind) = &raw.token_kind {
        if kind != "fcm" && kind != "apns" {
            return Err(ApiError::bad_request("Invalid token_kind: must be 'fcm' or 'apns'"));
        }
    }
    for (name, value) in [
        ("token_id", &raw.token_id),
        ("bouncer_public_key", &raw.bouncer_public_key),
        ("encrypted_push_registration", &raw.encrypted_push_registration),
    ] {
        if let Some(value) = value {
            check_base64(name, value)?;
        }
    }
    let push_key = match (raw.push_key_id, raw.push_key) {
        (Some(id), Some(key)) => Some((id, key)),
        (None, None) => None,
        (None, Some(_)) => return Err(ApiError::bad_request("Missing push_key_id: push_key and push_key_id go together")),
        (Some(_), None) => return Err(ApiError::bad_request("Missing push_key: push_key and push_key_id go together")),
    };
    let token = match (raw.token_kind, raw.token_id, raw.bouncer_public_key, raw.encrypted_push_registration) {
        (Some(token_kind), Some(token_id), Some(bouncer_public_key), Some(encrypted_push_registration)) => {
            Some(TokenFields { token_kind, token_id, bouncer_public_key, encrypted_push_registration })
        }
        (None, None, None, None) => None,
        _ => {
            return Err(ApiError::bad_request(
                "Missing token fields: token_kind, token_id, bouncer_public_key and encrypted_push_registration go together",
            ))
        }
    };
    if !exists && (push_key.is_none() || token.is_none()) {
        return Err(ApiError::bad_request("Initial registration requires both the push key fields and the token fields"));
    }
    if push_key.is_none() && token.is_none() {
        return Err(ApiError::bad_request("Missing push key fields or token fields"));
    }
    Ok(Registration { device_id: raw.device_id, push_key, token })
}

/// `token_id` of a provider token: the first 8 bytes of its SHA-256, standard Base64.
pub fn token_id_of(token: &str) -> String {
    STANDARD.encode(&Sha256::digest(token.as_bytes())[..8])
}

/// Encrypts `payload` for a device: Base64 of nonce (24 random bytes) then ciphertext.
pub fn encrypt_payload(push_key: &str, payload: &Value) -> ApiResult<String> {
    let key = check_push_key(push_key)?;
    let mut nonce = [0u8; 24];
    getrandom::getrandom(&mut nonce).map_err(|_| ApiError::internal("No randomness available"))?;
    let cipher = XSalsa20Poly1305::new(Key::from_slice(&key));
    let sealed =
        cipher.encrypt(Nonce::from_slice(&nonce), payload.to_string().as_bytes()).map_err(|_| ApiError::internal("Encryption failed"))?;
    let mut out = nonce.to_vec();
    out.extend_from_slice(&sealed);
    Ok(STANDARD.encode(out))
}

/// A user counts as away from Zulip when their last "active" presence is older than this
/// (Zulip's `OFFLINE_THRESHOLD_SECS`); away users get pushes without
/// `enable_online_push_notifications`.
pub const OFFLINE_THRESHOLD_SECS: i64 = 200;

/// Everything Zulip's push rule looks at for one recipient of a new message.
#[derive(Debug, Clone, Default)]
pub struct PushCandidate {
    /// Whether the message is a direct message (one-to-one or group).
    pub direct: bool,
    /// `user_messages` flags (mention bits).
    pub mentioned: bool,
    pub stream_wildcard_mentioned: bool,
    pub topic_wildcard_mentioned: bool,
    /// The user's global settings.
    pub enable_offline_push_notifications: bool,
    pub enable_online_push_notifications: bool,
    pub enable_stream_push_notifications: bool,
    pub enable_followed_topic_push_notifications: bool,
    pub wildcard_mentions_notify: bool,
    pub enable_followed_topic_wildcard_mentions_notify: bool,
    /// The user's subscription to the message's channel.
    pub channel_muted: bool,
    pub channel_push_notifications: Option<bool>,
    pub channel_wildcard_mentions_notify: Option<bool>,
    /// The user's policy for the message's topic.
    pub visibility_policy: VisibilityPolicy,
    pub sender_muted: bool,
    /// Away from Zulip (no recent "active" presence).
    pub idle: bool,
}

impl PushCandidate {
    /// The candidate a recipient row describes, at time `now`. `followed_by_this_send`: the
    /// send itself made the user follow the topic (a mention's automatic follow); Zulip
    /// decides on the policies from before the send, so that follow does not count.
    pub fn from_row(row: &PushCandidateRow, followed_by_this_send: bool, now: i64) -> Self {
        let setting = |name: &str| user_settings::flag_in(&row.settings, name);
        PushCandidate {
            direct: row.direct != 0,
            mentioned: row.flags & MENTIONED != 0,
            stream_wildcard_mentioned: row.flags & STREAM_WILDCARD_MENTIONED != 0,
            topic_wildcard_mentioned: row.flags & TOPIC_WILDCARD_MENTIONED != 0,
            enable_offline_push_notifications: setting("enable_offline_push_notifications"),
            enable_online_push_notifications: setting("enable_online_push_notifications"),
            enable_stream_push_notifications: setting("enable_stream_push_notifications"),
            enable_followed_topic_push_notifications: setting("enable_followed_topic_push_notifications"),
            wildcard_mentions_notify: setting("wildcard_mentions_notify"),
            enable_followed_topic_wildcard_mentions_notify: setting("enable_followed_topic_wildcard_mentions_notify"),
            channel_muted: row.channel_muted.unwrap_or(0) != 0,
            channel_push_notifications: row.push_notifications.map(|v| v != 0),
            channel_wildcard_mentions_notify: row.wildcard_mentions_notify.map(|v| v != 0),
            visibility_policy: if followed_by_this_send && row.visibility_policy == VisibilityPolicy::Followed {
                VisibilityPolicy::Inherit
            } else {
                row.visibility_policy
            },
            sender_muted: row.sender_muted != 0,
            idle: row.last_active_time.is_none_or(|t| now - t > OFFLINE_THRESHOLD_SECS),
        }
    }
}

/// Why a recipient is pushed a message, in Zulip's order of precedence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PushTrigger {
    DirectMessage,
    Mention,
    TopicWildcardMentionInFollowedTopic,
    StreamWildcardMentionInFollowedTopic,
    TopicWildcardMention,
    StreamWildcardMention,
    FollowedTopic,
    ChannelPush,
}

/// Zulip's `user_allows_notifications_in_StreamTopic`: a muted topic silences everything;
/// a muted channel silences all but unmuted topics (except that an explicit channel
/// `wildcard_mentions_notify` overrides the channel's mute); then the channel's own
/// setting, then the global one.
fn allowed_in_channel_topic(c: &PushCandidate, channel_setting: Option<bool>, global: bool, overrides_mute: bool) -> bool {
    if c.visibility_policy == VisibilityPolicy::Muted {
        return false;
    }
    if c.channel_muted && c.visibility_policy != VisibilityPolicy::Unmuted {
        return overrides_mute && channel_setting == Some(true);
    }
    channel_setting.unwrap_or(global)
}

/// Zulip's push decision for one recipient (never the sender, who is not a candidate):
/// - an active user gets pushes only with `enable_online_push_notifications`; nobody gets
///   a push for a message of a user they muted;
/// - direct messages and personal or group mentions need `enable_offline_push_notifications`,
///   and so do wildcard mentions, which also need `wildcard_mentions_notify` (the channel's
///   setting first; in a followed topic `enable_followed_topic_wildcard_mentions_notify`);
/// - a followed topic notifies with `enable_followed_topic_push_notifications`, whatever
///   the channel's settings;
/// - otherwise the channel's `push_notifications` (else `enable_stream_push_notifications`).
pub fn push_trigger(c: &PushCandidate) -> Option<PushTrigger> {
    if (!c.idle && !c.enable_online_push_notifications) || c.sender_muted {
        return None;
    }
    let mentions_on = c.enable_offline_push_notifications;
    let followed = c.visibility_policy == VisibilityPolicy::Followed;
    let wildcard_on = allowed_in_channel_topic(c, c.channel_wildcard_mentions_notify, c.wildcard_mentions_notify, true);
    let followed_wildcard_on = followed && c.enable_followed_topic_wildcard_mentions_notify;
    if c.direct {
        return mentions_on.then_some(PushTrigger::DirectMessage);
    }
    if mentions_on && c.mentioned {
        Some(PushTrigger::Mention)
    } else if mentions_on && followed_wildcard_on && c.topic_wildcard_mentioned {
        Some(PushTrigger::TopicWildcardMentionInFollowedTopic)
    } else if mentions_on && followed_wildcard_on && c.stream_wildcard_mentioned {
        Some(PushTrigger::StreamWildcardMentionInFollowedTopic)
    } else if mentions_on && wildcard_on && c.topic_wildcard_mentioned {
        Some(PushTrigger::TopicWildcardMention)
    } else if mentions_on && wildcard_on && c.stream_wildcard_mentioned {
        Some(PushTrigger::StreamWildcardMention)
    } else if followed && c.enable_followed_topic_push_notifications {
        Some(PushTrigger::FollowedTopic)
    } else if allowed_in_channel_topic(c, c.channel_push_notifications, c.enable_stream_push_notifications, false) {
        Some(PushTrigger::ChannelPush)
    } else {
        None
    }
}

/// Zulip keeps the newest 200 ids of a removal (APNs payloads are at most 4 KB; older
/// notifications were most likely dismissed already).
pub const MAX_REMOVAL_IDS: usize = 200;

/// The ids a removal names: the newest [`MAX_REMOVAL_IDS`], ascending.
pub fn removal_ids(mut ids: Vec<i64>) -> Vec<i64> {
    ids.sort_unstable();
    ids.dedup();
    let skip = ids.len().saturating_sub(MAX_REMOVAL_IDS);
    ids.split_off(skip)
}

/// Who is notified and where: the fields every payload starts with.
pub struct PayloadBase<'a> {
    pub realm_url: &'a str,
    pub realm_name: &'a str,
    pub user_id: i64,
}

fn base(b: &PayloadBase) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("realm_url".into(), json!(b.realm_url));
    m.insert("realm_name".into(), json!(b.realm_name));
    m.insert("user_id".into(), json!(b.user_id));
    m
}

/// A new message (Zulip's E2EE "message" payload).
pub struct MessageNotice<'a> {
    pub message_id: i64,
    pub time: i64,
    pub sender_id: i64,
    pub sender_full_name: &'a str,
    pub sender_avatar_url: &'a str,
    pub content: &'a str,
    /// `(channel_id, channel_name, topic)`; none for a direct message.
    pub channel: Option<(i64, &'a str, &'a str)>,
    /// Other recipients of a group direct message, the user among them.
    pub recipient_user_ids: Option<Vec<i64>>,
}

pub fn message_payload(b: &PayloadBase, m: &MessageNotice) -> Value {
    let mut p = base(b);
    p.insert("type".into(), json!("message"));
    p.insert("message_id".into(), json!(m.message_id));
    p.insert("time".into(), json!(m.time));
    p.insert("sender_id".into(), json!(m.sender_id));
    p.insert("sender_full_name".into(), json!(m.sender_full_name));
    p.insert("sender_avatar_url".into(), json!(m.sender_avatar_url));
    p.insert("content".into(), json!(m.content));
    match (&m.channel, &m.recipient_user_ids) {
        (Some((id, name, topic)), _) => {
            p.insert("recipient_type".into(), json!("channel"));
            p.insert("channel_id".into(), json!(id));
            p.insert("channel_name".into(), json!(name));
            p.insert("topic".into(), json!(topic));
        }
        (None, Some(ids)) => {
            p.insert("recipient_type".into(), json!("direct"));
            p.insert("recipient_user_ids".into(), json!(ids));
        }
        (None, None) => {
            p.insert("recipient_type".into(), json!("direct"));
        }
    }
    Value::Object(p)
}

/// The test notification: Zulip's `event: "test"` payload.
pub fn test_payload(b: &PayloadBase, time: i64) -> Value {
    let mut p = base(b);
    p.insert("type".into(), json!("test"));
    p.insert("event".into(), json!("test"));
    p.insert("time".into(), json!(time));
    Value::Object(p)
}

/// Removal of notifications for read or deleted messages.
pub fn remove_payload(b: &PayloadBase, message_ids: &[i64]) -> Value {
    let mut p = base(b);
    p.insert("type".into(), json!("remove"));
    p.insert("message_ids".into(), json!(message_ids));
    Value::Object(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> String {
        let mut k = vec![0x31u8];
        k.extend([7u8; 32]);
        STANDARD.encode(k)
    }

    fn full() -> RawRegistration {
        RawRegistration {
            device_id: 1,
            push_key_id: Some(5),
            push_key: Some(key()),
            token_kind: Some("fcm".into()),
            token_id: Some(token_id_of("tok")),
            bouncer_public_key: Some("AAAA".into()),
            encrypted_push_registration: Some("AAAA".into()),
        }
    }

    #[test]
    fn push_key_needs_prefix_and_32_bytes() {
        assert!(check_push_key(&key()).is_ok());
        assert!(check_push_key(&STANDARD.encode([0x31u8; 32])).is_err());
        assert!(check_push_key(&STANDARD.encode([0x32u8; 33])).is_err());
        assert!(check_push_key("not base64!").is_err());
    }

    #[test]
    fn initial_registration_needs_both_groups() {
        assert!(validate_registration(full(), false).is_ok());
        let only_key =
            RawRegistration { token_kind: None, token_id: None, bouncer_public_key: None, encrypted_push_registration: None, ..full() };
        assert!(validate_registration(only_key, false).is_err());
        let only_key =
            RawRegistration { token_kind: None, token_id: None, bouncer_public_key: None, encrypted_push_registration: None, ..full() };
        assert!(validate_registration(only_key, true).unwrap().token.is_none());
    }

    #[test]
    fn push_key_id_is_u32() {
        assert!(validate_registration(RawRegistration { push_key_id: Some(-1), ..full() }, false).is_err());
        assert!(validate_registration(RawRegistration { push_key_id: Some(1 << 32), ..full() }, false).is_err());
        assert!(validate_registration(RawRegistration { push_key_id: Some(u32::MAX as i64), ..full() }, false).is_ok());
    }

    fn channel_candidate() -> PushCandidate {
        PushCandidate {
            enable_offline_push_notifications: true,
            enable_online_push_notifications: true,
            enable_followed_topic_push_notifications: true,
            wildcard_mentions_notify: true,
            enable_followed_topic_wildcard_mentions_notify: true,
            idle: true,
            ..PushCandidate::default()
        }
    }

    #[test]
    fn direct_messages_and_mentions_follow_offline_push() {
        let dm = PushCandidate { direct: true, ..channel_candidate() };
        assert_eq!(push_trigger(&dm), Some(PushTrigger::DirectMessage));
        assert_eq!(push_trigger(&PushCandidate { enable_offline_push_notifications: false, ..dm.clone() }), None);
        let mention = PushCandidate { mentioned: true, channel_muted: true, ..channel_candidate() };
        assert_eq!(push_trigger(&mention), Some(PushTrigger::Mention), "mutes never silence a personal mention");
        assert_eq!(push_trigger(&PushCandidate { sender_muted: true, ..mention }), None);
    }

    #[test]
    fn active_users_need_online_push() {
        let dm = PushCandidate { direct: true, idle: false, ..channel_candidate() };
        assert!(push_trigger(&dm).is_some());
        assert_eq!(push_trigger(&PushCandidate { enable_online_push_notifications: false, ..dm }), None);
    }

    #[test]
    fn wildcards_follow_the_channel_then_the_global_setting() {
        let w = PushCandidate { stream_wildcard_mentioned: true, ..channel_candidate() };
        assert_eq!(push_trigger(&w), Some(PushTrigger::StreamWildcardMention));
        assert_eq!(push_trigger(&PushCandidate { wildcard_mentions_notify: false, ..w.clone() }), None);
        let channel_on = PushCandidate { wildcard_mentions_notify: false, channel_wildcard_mentions_notify: Some(true), ..w.clone() };
        assert!(push_trigger(&channel_on).is_some());
        assert_eq!(push_trigger(&PushCandidate { channel_wildcard_mentions_notify: Some(false), ..w.clone() }), None);
        // An explicit channel setting overrides the channel's mute, not a topic's.
        assert!(push_trigger(&PushCandidate { channel_muted: true, ..channel_on.clone() }).is_some());
        assert_eq!(push_trigger(&PushCandidate { channel_muted: true, ..w.clone() }), None);
        assert_eq!(push_trigger(&PushCandidate { visibility_policy: VisibilityPolicy::Muted, ..channel_on }), None);
    }

    #[test]
    fn followed_topics_ignore_channel_settings() {
        let f = PushCandidate {
            visibility_policy: VisibilityPolicy::Followed,
            channel_muted: true,
            channel_push_notifications: Some(false),
            ..channel_candidate()
        };
        assert_eq!(push_trigger(&f), Some(PushTrigger::FollowedTopic));
        assert_eq!(push_trigger(&PushCandidate { enable_followed_topic_push_notifications: false, ..f.clone() }), None);
        let w = PushCandidate { topic_wildcard_mentioned: true, wildcard_mentions_notify: false, ..f };
        assert_eq!(push_trigger(&w), Some(PushTrigger::TopicWildcardMentionInFollowedTopic));
    }

    #[test]
    fn channel_push_setting_then_global() {
        let c = channel_candidate();
        assert_eq!(push_trigger(&c), None);
        assert_eq!(push_trigger(&PushCandidate { enable_stream_push_notifications: true, ..c.clone() }), Some(PushTrigger::ChannelPush));
        assert_eq!(push_trigger(&PushCandidate { channel_push_notifications: Some(true), ..c.clone() }), Some(PushTrigger::ChannelPush));
        let off = PushCandidate { enable_stream_push_notifications: true, channel_push_notifications: Some(false), ..c.clone() };
        assert_eq!(push_trigger(&off), None);
        let muted = PushCandidate { channel_push_notifications: Some(true), channel_muted: true, ..c.clone() };
        assert_eq!(push_trigger(&muted), None);
        assert!(push_trigger(&PushCandidate { visibility_policy: VisibilityPolicy::Unmuted, ..muted }).is_some());
    }

    #[test]
    fn a_row_reads_flags_settings_and_presence() {
        let row = PushCandidateRow {
            user_id: 1,
            flags: MENTIONED | TOPIC_WILDCARD_MENTIONED,
            settings: r#"{"enable_offline_push_notifications": false}"#.into(),
            direct: 0,
            channel_muted: Some(1),
            push_notifications: None,
            wildcard_mentions_notify: Some(0),
            visibility_policy: VisibilityPolicy::Followed,
            sender_muted: 0,
            last_active_time: Some(1000),
        };
        let c = PushCandidate::from_row(&row, false, 1000 + OFFLINE_THRESHOLD_SECS);
        assert!(c.mentioned && c.topic_wildcard_mentioned && !c.stream_wildcard_mentioned);
        assert!(!c.enable_offline_push_notifications && c.enable_online_push_notifications && !c.enable_stream_push_notifications);
        assert!(c.channel_muted && c.channel_push_notifications.is_none() && c.channel_wildcard_mentions_notify == Some(false));
        assert!(!c.idle, "active within the threshold");
        assert!(PushCandidate::from_row(&row, false, 1001 + OFFLINE_THRESHOLD_SECS).idle);
        assert_eq!(PushCandidate::from_row(&row, true, 0).visibility_policy, VisibilityPolicy::Inherit, "the send's own follow");
        assert!(PushCandidate::from_row(&PushCandidateRow { last_active_time: None, ..row }, false, 0).idle);
    }

    #[test]
    fn removals_keep_the_newest_200_ids() {
        let ids = removal_ids((1..=250).rev().collect());
        assert_eq!(ids.len(), 200);
        assert_eq!(ids[0], 51);
        assert_eq!(removal_ids(vec![3, 1, 3]), vec![1, 3]);
    }

    #[test]
    fn encrypted_payload_decrypts_with_the_key() {
        let sealed = STANDARD.decode(encrypt_payload(&key(), &json!({"a": 1})).unwrap()).unwrap();
        let cipher = XSalsa20Poly1305::new(Key::from_slice(&[7u8; 32]));
        let plain = cipher.decrypt(Nonce::from_slice(&sealed[..24]), &sealed[24..]).unwrap();
        assert_eq!(plain, br#"{"a":1}"#);
    }
}
