//! Mobile push: validation of E2EE device registrations, the notification payloads
//! (Zulip's shapes) and their encryption with a device's push key.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use crypto_secretbox::aead::{Aead, KeyInit};
use crypto_secretbox::{Key, Nonce, XSalsa20Poly1305};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::db::push_devices::TokenFields;
use crate::error::{ApiError, ApiResult};

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

    #[test]
    fn encrypted_payload_decrypts_with_the_key() {
        let sealed = STANDARD.decode(encrypt_payload(&key(), &json!({"a": 1})).unwrap()).unwrap();
        let cipher = XSalsa20Poly1305::new(Key::from_slice(&[7u8; 32]));
        let plain = cipher.decrypt(Nonce::from_slice(&sealed[..24]), &sealed[24..]).unwrap();
        assert_eq!(plain, br#"{"a":1}"#);
    }
}
