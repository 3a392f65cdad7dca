//! API keys and password hashes.
//!
//! API keys are 32 characters of `[A-Za-z0-9]`, like Zulip's, and a user has one at a time:
//! the key is derived, HMAC-SHA256 of the Worker secret `API_KEY_SECRET`, the user and the
//! user's key version, so every login answers the same key without storing it, and
//! regenerating (a new version) replaces it. Only its SHA-256 is stored, for lookup. A key
//! has 190 bits of entropy, so a fast hash is enough: nobody can search that space, and auth
//! stays one indexed lookup.
//!
//! Passwords use PBKDF2-HMAC-SHA256 through WebCrypto, which runs natively in the Workers
//! runtime. A wasm argon2 costs over 100 ms of CPU per login, beyond the Workers CPU budget;
//! WebCrypto PBKDF2 is native but capped at 100,000 iterations in production, so that is the
//! work factor. Hashes carry their parameters (`pbkdf2_sha256$<iterations>$<salt>$<hash>`),
//! so the factor can be raised later without invalidating stored hashes.

use base64::engine::general_purpose::STANDARD_NO_PAD as B64;
use base64::Engine;
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ApiResult};

pub const API_KEY_LENGTH: usize = 32;
pub const PBKDF2_ITERATIONS: u32 = 100_000;
const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut buf = [0u8; N];
    getrandom::getrandom(&mut buf).expect("the runtime provides crypto.getRandomValues");
    buf
}

/// `len` random characters of `[A-Za-z0-9]`, without modulo bias.
pub fn random_alphanumeric(len: usize) -> String {
    let mut out = String::with_capacity(len);
    while out.len() < len {
        for b in random_bytes::<64>() {
            // 248 = 4 * 62: bytes above it would favour the first characters.
            if b < 248 && out.len() < len {
                out.push(ALPHANUMERIC[(b % 62) as usize] as char);
            }
        }
    }
    out
}

/// The API key of `user_id` at key version `version` under `secret`: HMAC-SHA256 blocks
/// mapped to `[A-Za-z0-9]` without modulo bias.
pub fn derive_api_key(secret: &[u8], user_id: i64, version: i64) -> String {
    use hmac::{Hmac, Mac};
    let mut out = String::with_capacity(API_KEY_LENGTH);
    let mut block = 0u32;
    while out.len() < API_KEY_LENGTH {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
        mac.update(format!("api-key:{user_id}:{version}:{block}").as_bytes());
        for b in mac.finalize().into_bytes() {
            if b < 248 && out.len() < API_KEY_LENGTH {
                out.push(ALPHANUMERIC[(b % 62) as usize] as char);
            }
        }
        block += 1;
    }
    out
}

/// The Worker secret API keys are derived from (`wrangler secret put API_KEY_SECRET`; the
/// development value is in `wrangler.toml`).
pub fn api_key_secret(env: &worker::Env) -> ApiResult<String> {
    crate::settings::secret(env, "API_KEY_SECRET")
        .or_else(|| crate::settings::var(env, "API_KEY_SECRET"))
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ApiError::internal("API_KEY_SECRET is not set"))
}

pub fn sha256_hex(input: &[u8]) -> String {
    hex(&Sha256::digest(input))
}

/// Bytes as lowercase hexadecimal (without a `format!` per byte: this runs on every request).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    bytes.iter().flat_map(|b| [DIGITS[usize::from(b >> 4)] as char, DIGITS[usize::from(b & 15)] as char]).collect()
}

/// What the `api_keys` table stores for a key.
pub fn api_key_hash(api_key: &str) -> String {
    sha256_hex(api_key.as_bytes())
}

/// Compares two byte strings in time independent of where they differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub async fn hash_password(password: &str) -> ApiResult<String> {
    let salt = random_bytes::<16>();
    let hash = pbkdf2_sha256(password, &salt, PBKDF2_ITERATIONS).await?;
    Ok(format!("pbkdf2_sha256${PBKDF2_ITERATIONS}${}${}", B64.encode(salt), B64.encode(hash)))
}

pub async fn verify_password(password: &str, stored: &str) -> ApiResult<bool> {
    let Some((iterations, salt, expected)) = parse_password_hash(stored) else {
        return Ok(false);
    };
    let actual = pbkdf2_sha256(password, &salt, iterations).await?;
    Ok(constant_time_eq(&actual, &expected))
}

/// Splits `pbkdf2_sha256$<iterations>$<salt>$<hash>`.
pub fn parse_password_hash(stored: &str) -> Option<(u32, Vec<u8>, Vec<u8>)> {
    let mut parts = stored.split('$');
    if parts.next()? != "pbkdf2_sha256" {
        return None;
    }
    let iterations = parts.next()?.parse().ok()?;
    let salt = B64.decode(parts.next()?).ok()?;
    let hash = B64.decode(parts.next()?).ok()?;
    parts.next().is_none().then_some((iterations, salt, hash))
}

async fn pbkdf2_sha256(password: &str, salt: &[u8], iterations: u32) -> ApiResult<Vec<u8>> {
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;

    let global: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let subtle = global.crypto().map_err(js_error)?.subtle();
    let key_data = js_sys::Uint8Array::from(password.as_bytes());
    let usages = js_sys::Array::of1(&JsValue::from_str("deriveBits"));
    let key = JsFuture::from(subtle.import_key_with_str("raw", &key_data, "PBKDF2", false, &usages).map_err(js_error)?)
        .await
        .map_err(js_error)?;
    let params = web_sys::Pbkdf2Params::new("PBKDF2", &JsValue::from_str("SHA-256"), iterations, &js_sys::Uint8Array::from(salt));
    let bits =
        JsFuture::from(subtle.derive_bits_with_object(&params, &key.unchecked_into(), 256).map_err(js_error)?).await.map_err(js_error)?;
    Ok(js_sys::Uint8Array::new(&bits).to_vec())
}

fn js_error(err: wasm_bindgen::JsValue) -> ApiError {
    ApiError::internal(format!("WebCrypto: {err:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_keys_are_stable_per_version_and_alphanumeric() {
        let a = derive_api_key(b"secret", 7, 0);
        assert_eq!(a.len(), API_KEY_LENGTH);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(a, derive_api_key(b"secret", 7, 0));
        assert_ne!(a, derive_api_key(b"secret", 7, 1));
        assert_ne!(a, derive_api_key(b"secret", 8, 0));
        assert_ne!(a, derive_api_key(b"other", 7, 0));
    }

    #[test]
    fn sha256_hex_matches_known_vector() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn password_hash_format_round_trips() {
        let stored = format!("pbkdf2_sha256$100000${}${}", B64.encode([1u8; 16]), B64.encode([2u8; 32]));
        let (iterations, salt, hash) = parse_password_hash(&stored).unwrap();
        assert_eq!((iterations, salt.len(), hash.len()), (100_000, 16, 32));
        assert!(parse_password_hash("sha1$1$a$b").is_none());
        assert!(parse_password_hash("pbkdf2_sha256$x$a$b").is_none());
    }

    #[test]
    fn constant_time_eq_compares_whole_strings() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
