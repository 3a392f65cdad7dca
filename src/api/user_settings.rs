//! The caller's own user settings.

use crate::actions::user_settings::do_change_user_settings;
use crate::actions::users::{do_update_user, UserChanges};
use crate::context::RequestContext;
use crate::domain::user_settings::{self as rules, SETTINGS};
use crate::domain::users::check_full_name;
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

/// # `PATCH /settings` (also the legacy `PATCH /settings/display` and `/settings/notifications`)
/// Any human user (a bot: "This endpoint does not accept bot requests."): changes their
/// own settings, any of `domain::user_settings::SETTINGS`.
/// - Every value is checked before anything is stored: booleans, integers, Zulip's enums
///   ("Invalid <name>"), `default_language`, `notification_sound`, the email batching period
///   and `timezone` (an IANA name the runtime knows, or empty) with Zulip's messages.
/// - Only settings whose value changes are stored and announced (`user_settings`, plus the
///   legacy event of the setting's group). Unknown names are `ignored_parameters_unsupported`.
/// - `new_password` with `old_password` (`actions::passwords`): "Wrong password!", "New
///   password is too weak!"; the API key and every session stay valid.
pub async fn update_settings(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    if me.is_bot() {
        return Err(ApiError::bad_request("This endpoint does not accept bot requests."));
    }
    // Zulip changes the password first: a wrong `old_password` changes nothing else.
    if let Some(new_password) = ctx.params.str("new_password")? {
        let old_password = ctx.params.str("old_password")?.unwrap_or_default();
        crate::actions::passwords::check_change_password(&ctx.db, &me, &old_password, &new_password).await?;
    }
    // The user's own name (the organization lets members change theirs: its
    // `realm_name_changes_disabled` is false).
    let full_name = ctx.params.str("full_name")?.map(|name| check_full_name(&name)).transpose()?;
    let mut requested = Vec::new();
    for setting in SETTINGS {
        if let Some(raw) = ctx.params.str(setting.name)? {
            requested.push((setting, rules::parse_value(setting, &raw, known_timezone)?));
        }
    }
    do_change_user_settings(&ctx.db, &ctx.env, &ctx.realm_host, &me, requested).await?;
    if let Some(full_name) = full_name {
        let changes = UserChanges { role: None, full_name: Some(full_name), profile: None };
        do_update_user(&ctx.db, &ctx.env, &me, changes).await?;
    }
    Ok(Reply::ok())
}

/// Whether the runtime's time zone database knows `name` (IANA names and their aliases):
/// `Intl.DateTimeFormat` throws a `RangeError` for any other.
#[cfg(target_arch = "wasm32")]
fn known_timezone(name: &str) -> bool {
    use wasm_bindgen::JsValue;
    let options = js_sys::Object::new();
    if js_sys::Reflect::set(&options, &JsValue::from_str("timeZone"), &JsValue::from_str(name)).is_err() {
        return false;
    }
    let ctor: js_sys::Function = js_sys::Intl::DateTimeFormat::new(&js_sys::Array::new(), &js_sys::Object::new()).constructor();
    js_sys::Reflect::construct(&ctor, &js_sys::Array::of2(&JsValue::from_str("en"), &options)).is_ok()
}

/// Outside the runtime (unit tests) an `Area/City` shape or `UTC` passes.
#[cfg(not(target_arch = "wasm32"))]
fn known_timezone(name: &str) -> bool {
    name == "UTC" || name.split('/').count() >= 2
}
