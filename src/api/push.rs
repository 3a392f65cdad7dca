//! Mobile push: E2EE device registration, legacy token registration, test notification.

use crate::actions::push;
use crate::context::RequestContext;
use crate::domain::push::RawRegistration;
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

/// # `POST /mobile_push/register`
/// Any user. Registers an end-to-end encrypted push device, or rotates its key or token.
/// - Push is off without a configured relay: `PUSH_SERVICE_NOT_CONFIGURED`.
/// - `device_id` integer; `push_key_id` unsigned 32-bit; `push_key` Base64 of 0x31 and a
///   32-byte key; `token_kind` `fcm`|`apns`; `token_id`, `bouncer_public_key`,
///   `encrypted_push_registration` standard Base64. Any bad field: `BAD_REQUEST`, nothing stored.
/// - Initial registration needs the push key fields and all token fields; later calls
///   with only one group rotate it.
/// - The user's legacy registrations of the same token are removed, here and at the relay.
pub async fn register_push_device(ctx: &RequestContext) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let p = &ctx.params;
    let raw = RawRegistration {
        device_id: p.required_int("device_id")?,
        push_key_id: p.int("push_key_id")?,
        push_key: p.str("push_key")?,
        token_kind: p.str("token_kind")?,
        token_id: p.str("token_id")?,
        bouncer_public_key: p.str("bouncer_public_key")?,
        encrypted_push_registration: p.str("encrypted_push_registration")?,
    };
    push::register_push_device(ctx, &user, raw).await?;
    Ok(Reply::ok())
}

/// # `POST /mobile_push/test_notification`
/// Any user. Sends a notification with `event: "test"`.
/// - `token`: to that registration only; unknown here: `INVALID_PUSH_DEVICE_TOKEN`; unknown
///   to the relay: `INVALID_REMOTE_PUSH_DEVICE_TOKEN`. Without it: to all the user's devices.
pub async fn send_test_notification(ctx: &RequestContext) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let token = ctx.params.str("token")?;
    push::send_test_notification(ctx, &user, token.as_deref()).await?;
    Ok(Reply::ok())
}

/// # `POST /users/me/apns_device_token`
/// Any user. Adds a legacy (unencrypted) APNs registration.
/// - `token` required, non-empty, at most 255 characters; `appid` required.
pub async fn add_apns_device_token(ctx: &RequestContext) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let token = legacy_token(ctx)?;
    let appid = ctx.params.required_str("appid")?;
    push::add_legacy_token(ctx, &user, "apns", &token, Some(&appid)).await?;
    Ok(Reply::ok())
}

/// # `POST /users/me/android_gcm_reg_id`
/// Any user. Adds a legacy (unencrypted) FCM registration.
/// - `token` required, non-empty, at most 4096 characters.
pub async fn add_android_reg_id(ctx: &RequestContext) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let token = legacy_token(ctx)?;
    push::add_legacy_token(ctx, &user, "fcm", &token, None).await?;
    Ok(Reply::ok())
}

/// # `DELETE /users/me/apns_device_token`, `DELETE /users/me/android_gcm_reg_id`
/// Any user. Removes one of their legacy registrations (`kind`: `apns` or `fcm`), here and
/// at the push relay.
/// - `token` as when adding; "Token does not exist" when the user has no such registration.
pub async fn remove_legacy_token(ctx: &RequestContext, kind: &str) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let token = legacy_token(ctx)?;
    push::remove_legacy_token(ctx, &user, kind, &token).await?;
    Ok(Reply::ok())
}

fn legacy_token(ctx: &RequestContext) -> ApiResult<String> {
    let token = ctx.params.required_str("token")?;
    if token.is_empty() || token.len() > 4096 {
        return Err(ApiError::bad_request("Empty or invalid length token"));
    }
    Ok(token)
}
