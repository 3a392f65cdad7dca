//! Server and organization metadata.

use serde_json::json;

use crate::context::RequestContext;
use crate::domain::realm_icon::{absolute_url, image_url, RealmImage};
use crate::error::ApiResult;
use crate::response::Reply;
use crate::settings::{ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION};

/// # `GET /server_settings`
/// Open: what a client needs before logging in. Answers even when credentials are sent
/// (the Python client calls it from its constructor with them attached).
pub async fn get_server_settings(ctx: &RequestContext) -> ApiResult<Reply> {
    let realm = ctx.realm().await?;
    let dev = ctx.settings.development;
    Ok(Reply::json(json!({
        "authentication_methods": {
            "password": true,
            "dev": dev,
            "email": true,
            "ldap": false,
            "remoteuser": false,
            "github": false,
            "azuread": false,
            "gitlab": false,
            "apple": false,
            "google": false,
            "saml": false,
            "openid connect": false,
        },
        "external_authentication_methods": [],
        "zulip_feature_level": ZULIP_FEATURE_LEVEL,
        "zulip_version": ZULIP_VERSION,
        "zulip_merge_base": ZULIP_MERGE_BASE,
        "push_notifications_enabled": ctx.settings.push_relay.is_some(),
        "is_incompatible": false,
        "email_auth_enabled": true,
        "require_email_format_usernames": true,
        "realm_uri": ctx.base_url,
        "realm_url": ctx.base_url,
        "realm_name": realm.name,
        "realm_icon": absolute_url(&ctx.base_url, &image_url(&realm, RealmImage::Icon)),
        "realm_description": realm.description,
        "realm_web_public_access_enabled": false,
    })))
}

/// # `GET /static/generated/emoji/emoji_api.json` (the register's `server_emoji_data_url`)
/// Anyone: Zulip's server emoji data, `code_to_names`: each unicode emoji code with its
/// names, canonical first. Not under `/api/v1`, not an API envelope.
pub fn emoji_data() -> worker::Response {
    crate::response::json_response(&serde_json::json!({ "code_to_names": crate::emoji::code_to_names() }), 200)
}
