//! Helpers of the push tests: devices registered with the relay test double
//! (`tests/push_relay/relay.py`, its URL in PUSH_RELAY_URL) and the payloads it received,
//! decrypted with the device's key.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use crypto_secretbox::aead::{Aead, KeyInit};
use crypto_secretbox::{Key, Nonce, XSalsa20Poly1305};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::common::{self, assert_matches_openapi, unique, Client};

pub fn relay_log() -> Vec<Value> {
    let url = std::env::var("PUSH_RELAY_URL").expect("PUSH_RELAY_URL is not set: run with scripts/with-test-server.sh");
    ureq::get(&format!("{url}/log")).call().unwrap().into_json::<Vec<Value>>().unwrap()
}

/// Waits for relay requests matching `pred` (notifications are sent after the response).
pub fn wait_for_relay(pred: impl Fn(&Value) -> bool) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let found: Vec<Value> = relay_log().into_iter().filter(|e| pred(e)).collect();
        if !found.is_empty() || start.elapsed() > Duration::from_secs(15) {
            return found;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

pub fn token_id_of(token: &str) -> String {
    STANDARD.encode(&Sha256::digest(token.as_bytes())[..8])
}

/// A device's secret key and its `push_key` parameter.
pub fn new_key(seed: u8) -> ([u8; 32], String) {
    let mut key = [seed; 32];
    key[..8].copy_from_slice(&(common::unique("k").len() as u64 ^ std::process::id() as u64).to_le_bytes());
    let mut wire = vec![0x31u8];
    wire.extend_from_slice(&key);
    (key, STANDARD.encode(wire))
}

pub fn device_id() -> String {
    (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() % 1_000_000_000_000).to_string()
}

pub struct Device {
    pub device_id: String,
    pub key: [u8; 32],
    pub push_key: String,
    pub token: String,
}

pub fn full_params(d: &Device) -> Vec<(&'static str, String)> {
    vec![
        ("device_id", d.device_id.clone()),
        ("push_key_id", "17".into()),
        ("push_key", d.push_key.clone()),
        ("token_kind", "fcm".into()),
        ("token_id", token_id_of(&d.token)),
        ("bouncer_public_key", STANDARD.encode(b"relay public key")),
        ("encrypted_push_registration", STANDARD.encode(format!("sealed {}", d.token))),
    ]
}

pub fn post(client: &Client, path: &str, params: &[(&str, String)]) -> common::Resp {
    let form: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
    client.post(path, &form)
}

pub fn register(client: &Client) -> Device {
    let (key, push_key) = new_key(3);
    let d = Device { device_id: device_id(), key, push_key, token: unique("fcm-token") };
    let body = post(client, "/mobile_push/register", &full_params(&d)).success();
    assert_matches_openapi("post", "/mobile_push/register", &body);
    d
}

/// The device's name at the relay (its `token_id`), once its registration reached the relay.
pub fn relay_device_id(token: &str) -> String {
    let tid = token_id_of(token);
    let reg = wait_for_relay(|e| e["path"] == "/api/v1/remotes/push/e2ee/register" && e["body"]["token_id"] == tid.as_str());
    assert!(!reg.is_empty(), "registration reached the relay");
    tid
}

pub fn decrypt(key: &[u8; 32], encrypted_data: &str) -> Value {
    let sealed = STANDARD.decode(encrypted_data).unwrap();
    let plain = XSalsa20Poly1305::new(Key::from_slice(key)).decrypt(Nonce::from_slice(&sealed[..24]), &sealed[24..]).unwrap();
    serde_json::from_slice(&plain).unwrap()
}

/// The decrypted payloads the relay has received for a device so far.
pub fn payloads_now(relay_id: &str, key: &[u8; 32], pred: &impl Fn(&Value) -> bool) -> Vec<Value> {
    relay_log()
        .iter()
        .filter(|e| e["path"] == "/api/v1/remotes/push/e2ee/notify")
        .flat_map(|e| e["body"]["push_requests"].as_array().cloned().unwrap_or_default())
        .filter(|r| r["token_id"] == relay_id)
        .map(|r| decrypt(key, r["payload"]["encrypted_data"].as_str().unwrap()))
        .filter(|p| pred(p))
        .collect()
}

/// Waits for decrypted payloads for a device (notifications are sent after the response).
pub fn payloads_for(relay_id: &str, key: &[u8; 32], pred: impl Fn(&Value) -> bool) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let found = payloads_now(relay_id, key, &pred);
        if !found.is_empty() || start.elapsed() > Duration::from_secs(15) {
            return found;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
