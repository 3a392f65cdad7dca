//! The route table: method + path under `/api/v1` (and the file URLs under `/user_uploads`)
//! -> handler. Every route of the API is declared here and nowhere else; anything else
//! answers a JSON 404.

use std::future::Future;
use std::pin::Pin;

use worker::{Context, Env, Method, Request, Response};

use crate::api::server_admin::ImportFile;
use crate::api::{
    alert_words, avatars, bot_storage, bots, channel_folders, channels, default_channels, dev, dev_bench, drafts, events, health, invites,
    jwt_login, linkifiers, login, message_edit, message_flags, messages, muted_users, navigation_views, presence, profile_fields, push,
    reactions, read_receipts, read_state, realm, realm_domains, realm_emoji, realm_export, realm_icon, realm_playgrounds, reminders,
    saved_snippets, scheduled_messages, server, server_admin, sessions, signup, subscription_properties, tus, typing, uploads, user_groups,
    user_settings, user_status, users, webhooks,
};
use crate::context::RequestContext;
use crate::db::round_trips;
use crate::error::{ApiError, ApiResult};
use crate::response::{add_cors_headers, cors_preflight, error_response, success_response, Reply};

const API_PREFIX: &str = "/api/v1/";
/// The register's `server_emoji_data_url`, where Zulip serves it.
pub const EMOJI_DATA_PATH: &str = "/static/generated/emoji/emoji_api.json";
/// Resumable uploads: every answer under it, errors included, names the tus version.
const TUS_PREFIX: &str = "/api/v1/tus";
/// Uploaded files are served from `/user_uploads/<path_id>`, outside the API prefix.
const FILES_PREFIX: &str = "/user_uploads/";
/// Inline image previews load through `/thumbnail?url=…`, outside the API prefix.
const THUMBNAIL_PATH: &str = "/thumbnail";
/// The web client's sign-in and sign-out, where Zulip has them.
const ACCOUNTS_PREFIX: &str = "/accounts/";

/// Which route table a path belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Area {
    /// Under `/api/v1/`.
    Api,
    /// Uploaded files under `/user_uploads/`.
    Files,
    /// `/thumbnail`, where inline image previews load.
    Thumbnail,
    /// Custom emoji images and uploaded avatars under `/user_avatars/`.
    Avatars,
    /// The web client's sessions under `/accounts/`.
    Accounts,
}

/// The methods the API answers. workers-rs reads any other method as GET, so the raw
/// method is checked before it is converted.
const METHODS: [&str; 7] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

pub async fn handle(req: Request, env: Env, worker: Context) -> Response {
    let path = req.path();
    let raw_method = req.inner().method().to_ascii_uppercase();
    let challenge = crate::auth::challenge_for(req.headers());
    let request_id = request_id(&req);
    if path == EMOJI_DATA_PATH && raw_method == "GET" {
        return server::emoji_data();
    }
    let settings = crate::settings::Settings::from_env(&env);
    if let Some(problem) = &settings.refusal {
        return error_response(&ApiError::misconfigured(problem));
    }
    // Development mode answers this machine only: a development configuration deployed by
    // mistake (reached through workers.dev or a route) never opens its password-less logins.
    let host = req.headers().get("Host").ok().flatten().unwrap_or_default();
    if settings.development && !crate::settings::is_local_host(&host) {
        return error_response(&ApiError::misconfigured(&format!("development mode serves localhost only, not {host}")));
    }
    if path == health::PATH && raw_method == "GET" {
        return health::health(&req, &env, &settings).await;
    }
    let is_tus = path.strip_prefix(TUS_PREFIX).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    let is_api = path.starts_with(API_PREFIX);
    let preflight = req.headers().get("Access-Control-Request-Method").ok().flatten().is_some();
    if is_api && raw_method == "OPTIONS" && (preflight || !is_tus) {
        return cors_preflight();
    }
    let split = |rest: &str| -> Vec<String> { rest.trim_end_matches('/').split('/').map(crate::params::percent_decode_path).collect() };
    let development = settings.development;
    let area = if let Some(rest) = path.strip_prefix(API_PREFIX) {
        Some((split(rest), Area::Api))
    } else if let Some(rest) = path.strip_prefix(FILES_PREFIX) {
        Some((split(rest), Area::Files))
    } else if path == THUMBNAIL_PATH {
        Some((Vec::new(), Area::Thumbnail))
    } else if let Some(rest) = path.strip_prefix(ACCOUNTS_PREFIX) {
        Some((split(rest), Area::Accounts))
    } else {
        path.strip_prefix(crate::domain::realm_emoji::IMAGES_PREFIX).map(|rest| (split(rest), Area::Avatars))
    };
    let result = match area {
        _ if !METHODS.contains(&raw_method.as_str()) => Err(ApiError::method_not_allowed(&METHODS)),
        Some((segments, area)) => {
            let work = round_trips::counted(handle_api(req, env, settings, worker, segments, area, &request_id));
            let count = work.counter();
            let result = work.await;
            result.map(|mut response| {
                if development {
                    let _ = response.headers_mut().set(round_trips::HEADER, &count.get().to_string());
                }
                response
            })
        }
        None => Err(ApiError::not_found()),
    };
    let mut response = result.unwrap_or_else(|err| answer_error(err, &request_id, &raw_method, &path));
    if response.status_code() == 401 {
        let _ = response.headers_mut().set("WWW-Authenticate", challenge);
    }
    if is_tus {
        tus::add_protocol_headers(&mut response);
    }
    if is_api {
        add_cors_headers(&mut response);
    }
    response
}

/// The request's id in logs and server errors: Cloudflare's `cf-ray` where there is one
/// (Workers Logs files each line of the request under it), else a random one.
fn request_id(req: &Request) -> String {
    req.headers()
        .get("cf-ray")
        .ok()
        .flatten()
        .filter(|ray| !ray.is_empty())
        .unwrap_or_else(|| crate::secrets::hex(&crate::secrets::random_bytes::<8>()))
}

/// The error envelope. A server error is logged with its request id and answers it as
/// `request_id`, so a user's report finds its log line.
fn answer_error(err: ApiError, request_id: &str, method: &str, path: &str) -> Response {
    if err.status < 500 {
        return error_response(&err);
    }
    worker::console_error!("request {request_id}: {method} {path} answered {}: {}", err.status, err.msg);
    error_response(&err.with_extra("request_id", serde_json::Value::from(request_id)))
}

/// `area`: the API, or the files outside its prefix ([`dispatch_files`], [`dispatch_avatars`]).
async fn handle_api(
    req: Request,
    env: Env,
    settings: std::rc::Rc<crate::settings::Settings>,
    worker: Context,
    segments: Vec<String>,
    area: Area,
    request_id: &str,
) -> ApiResult<Response> {
    let full_path = req.path();
    let mut ctx = RequestContext::from_request(req, env, settings).await?;
    ctx.worker = Some(std::rc::Rc::new(worker));
    let path: Vec<&str> = segments.iter().map(String::as_str).collect();
    let mut response = match counted_dispatch(&ctx, &path, area).await {
        Ok(Reply::Json(fields)) => success_response(fields, ctx.params.ignored()),
        Ok(Reply::Raw(response)) => response,
        Err(err) => answer_error(err, request_id, ctx.method.as_ref(), &full_path),
    };
    if let Some(decision) = ctx.auth.rate_limit() {
        for (name, value) in crate::platform::rate_limits::headers(&decision) {
            let _ = response.headers_mut().set(name, &value);
        }
    }
    Ok(response)
}

/// Requests to the open endpoints, and requests without credentials, count against the
/// client's address before any work; the others count against their user when the
/// handler authenticates (a failed authentication counts against the address).
async fn counted_dispatch(ctx: &RequestContext, path: &[&str], area: Area) -> ApiResult<Reply> {
    let open = match area {
        Area::Api => is_open(path),
        Area::Avatars => true,
        Area::Accounts => path != ["logout"],
        Area::Files | Area::Thumbnail => false,
    };
    if ctx.auth.credentials.is_none() || open {
        ctx.auth.count_unauthenticated().await?;
    }
    match area {
        Area::Api => dispatch(ctx, path).await,
        Area::Files => dispatch_files(ctx, path).await,
        Area::Avatars => dispatch_avatars(ctx, path).await,
        Area::Thumbnail if ctx.method == Method::Get => uploads::serve_thumbnail(ctx).await,
        Area::Thumbnail => Err(ApiError::not_found()),
        Area::Accounts => dispatch_accounts(ctx, path).await,
    }
}

/// The web client's sign-in and sign-out (`api::sessions`).
async fn dispatch_accounts(ctx: &RequestContext, path: &[&str]) -> ApiResult<Reply> {
    use Method::*;
    match (ctx.method.clone(), path) {
        (Post, ["login"]) => sessions::log_in(ctx).await,
        (Post, ["login", "local"]) => sessions::log_in_development_user(ctx).await,
        (Post, ["logout"]) => sessions::log_out(ctx).await,
        // Joining and coming back (`api::signup`)
        (Get, ["register", key]) => signup::get_signup_link(ctx, key).await,
        (Post, ["register"]) => signup::register(ctx).await,
        (Post, ["home"]) => signup::request_signup(ctx).await,
        (Post, ["password", "reset"]) => signup::forgot_password(ctx).await,
        (Get, ["password", "reset", token]) => signup::get_reset_link(ctx, token).await,
        (Post, ["password", "reset", token]) => signup::reset_password(ctx, token).await,
        (Get, ["unsubscribe", kind, raw]) => signup::unsubscribe(ctx, kind, raw).await,
        (Get, ["login"] | ["login", "local"] | ["logout"]) => sessions::to_sign_in_page(),
        (_, ["login"] | ["login", "local"] | ["logout"]) => Err(ApiError::method_not_allowed(&["GET", "POST"])),
        _ => Err(ApiError::not_found()),
    }
}

/// The endpoints whose handlers do not authenticate (the first section of [`dispatch`]).
fn is_open(path: &[&str]) -> bool {
    matches!(
        path,
        ["server_settings"]
            | ["fetch_api_key"]
            | ["jwt", "fetch_api_key"]
            | ["dev_fetch_api_key"]
            | ["dev_list_users"]
            | ["dev_emails"]
            | ["server_admin", ..]
    )
}

/// A route's handler, not yet run.
type Handler<'a> = Pin<Box<dyn Future<Output = ApiResult<Reply>> + 'a>>;

fn h<'a>(handler: impl Future<Output = ApiResult<Reply>> + 'a) -> Option<Handler<'a>> {
    Some(Box::pin(handler))
}

/// The API's answer: the route's handler, else 405 with the methods the path has (Zulip's
/// `allowed_methods`), else 404.
async fn dispatch(ctx: &RequestContext, path: &[&str]) -> ApiResult<Reply> {
    if let Some(handler) = route(ctx, ctx.method.clone(), path) {
        return handler.await;
    }
    // Handlers are futures: naming one for each method runs nothing.
    let allowed: Vec<&str> =
        ROUTED_METHODS.iter().filter(|(_, method)| route(ctx, method.clone(), path).is_some()).map(|(name, _)| *name).collect();
    if allowed.is_empty() {
        Err(ApiError::not_found())
    } else {
        Err(ApiError::method_not_allowed(&allowed))
    }
}

const ROUTED_METHODS: [(&str, Method); 6] = [
    ("GET", Method::Get),
    ("HEAD", Method::Head),
    ("POST", Method::Post),
    ("PUT", Method::Put),
    ("PATCH", Method::Patch),
    ("DELETE", Method::Delete),
];

/// Method and path -> handler. Handlers authenticate themselves (`ctx.user()`,
/// `ctx.admin()`), so open endpoints are the ones whose handler does not.
fn route<'a>(ctx: &'a RequestContext, method: Method, path: &'a [&'a str]) -> Option<Handler<'a>> {
    use Method::*;
    match (method, path) {
        // Server and login (open)
        (Get, ["server_settings"]) => h(server::get_server_settings(ctx)),
        (Post, ["fetch_api_key"]) => h(login::fetch_api_key(ctx)),
        (Post, ["jwt", "fetch_api_key"]) => h(jwt_login::jwt_fetch_api_key(ctx)),
        (Post, ["dev_fetch_api_key"]) => h(dev::dev_fetch_api_key(ctx)),
        (Get, ["dev_list_users"]) => h(dev::dev_list_users(ctx)),
        (Get, ["dev_emails"]) => h(dev::dev_emails(ctx)),
        (Post, ["server_admin", "organizations"]) => h(server_admin::create_organization(ctx)),
        (Get, ["server_admin", "background_failures"]) => h(server_admin::get_background_failures(ctx)),
        (Post, ["server_admin", "organizations", string_id, "deactivate"]) => {
            h(server_admin::set_organization_deactivated(ctx, string_id, true))
        }
        (Post, ["server_admin", "organizations", string_id, "reactivate"]) => {
            h(server_admin::set_organization_deactivated(ctx, string_id, false))
        }
        (Post, ["server_admin", "imports"]) => h(server_admin::start_import(ctx)),
        (Post, ["server_admin", "imports", string_id, "tables"]) => h(server_admin::import_tables(ctx, string_id)),
        (Post, ["server_admin", "imports", string_id, "messages"]) => h(server_admin::import_messages(ctx, string_id)),
        (Post, ["server_admin", "imports", string_id, "uploads"]) => h(server_admin::import_file(ctx, string_id, ImportFile::Upload)),
        (Post, ["server_admin", "imports", string_id, "emoji"]) => h(server_admin::import_file(ctx, string_id, ImportFile::Emoji)),
        (Post, ["server_admin", "imports", string_id, "avatars"]) => h(server_admin::import_file(ctx, string_id, ImportFile::Avatar)),
        (Post, ["server_admin", "imports", string_id, "realm_icons"]) => {
            h(server_admin::import_file(ctx, string_id, ImportFile::RealmImage))
        }
        (Post, ["server_admin", "imports", string_id, "finish"]) => h(server_admin::finish_import(ctx, string_id)),
        (Delete, ["server_admin", "imports", string_id]) => h(server_admin::remove_import(ctx, string_id)),
        // Development only: measurements (`api::dev_bench`).
        (_, ["dev_bench", rest @ ..]) => h(dev_bench::dispatch(ctx, rest)),

        // Event queues and typing
        (Post, ["register"]) => h(events::register(ctx)),
        (Get, ["events"]) => h(events::get_events(ctx)),
        (Delete, ["events"]) => h(events::delete_queue(ctx)),
        (Post, ["typing"]) => h(typing::set_typing_status(ctx)),

        // Subscription settings
        (Post, ["users", "me", "subscriptions", "properties"]) => h(subscription_properties::update_subscription_properties(ctx)),
        (Patch, ["users", "me", "subscriptions", "muted_topics"]) => h(message_flags::update_muted_topic(ctx)),
        (Patch, ["users", "me", "subscriptions", stream_id]) => h(subscription_properties::update_subscription_property(ctx, stream_id)),

        // Per-user client state
        (Get, ["users", "me", "alert_words"]) => h(alert_words::list_alert_words(ctx)),
        (Post, ["users", "me", "alert_words"]) => h(alert_words::add_alert_words(ctx)),
        (Delete, ["users", "me", "alert_words"]) => h(alert_words::remove_alert_words(ctx)),
        (Post, ["users", "me", "status"]) => h(user_status::update_user_status(ctx)),
        (Get, ["users", user, "status"]) => h(user_status::get_user_status(ctx, user)),
        (Post, ["users", user, "status"]) => h(user_status::update_status_for_user(ctx, user)),
        (Post, ["users", "me", "presence"]) => h(presence::update_presence(ctx)),
        (Get, ["users", user, "presence"]) => h(presence::get_user_presence(ctx, user)),
        (Get, ["realm", "presence"]) => h(presence::get_realm_presence(ctx)),
        (Get, ["users", "me", "muted_users"]) => h(muted_users::get_muted_users(ctx)),
        (Post, ["users", "me", "muted_users", user]) => h(muted_users::mute_user(ctx, user)),
        (Delete, ["users", "me", "muted_users", user]) => h(muted_users::unmute_user(ctx, user)),

        // Users
        (Get, ["users", "me"]) => h(users::get_own_user(ctx)),
        (Patch, ["settings"] | ["settings", "display"] | ["settings", "notifications"]) => h(user_settings::update_settings(ctx)),
        (Post, ["users", "me", "api_key", "regenerate"]) => h(users::regenerate_own_api_key(ctx)),
        (Get, ["users"]) => h(users::get_users(ctx)),
        (Get, ["users", user]) => h(users::get_user(ctx, user)),
        (Post, ["users"]) => h(users::create_user(ctx)),
        (Delete, ["users", "me"]) => h(users::deactivate_own_user(ctx)),
        (Post, ["users", "me", "avatar"]) => h(avatars::upload_avatar(ctx)),
        (Delete, ["users", "me", "avatar"]) => h(avatars::delete_avatar(ctx)),
        (Patch, ["users", "me", "profile_data"]) => h(profile_fields::update_own_profile_data(ctx)),
        (Delete, ["users", user]) => h(users::deactivate_user(ctx, user)),
        (Patch, ["users", user]) => h(users::update_user(ctx, user)),
        (Post, ["users", user, "reactivate"]) => h(users::reactivate_user(ctx, user)),

        // Custom profile fields
        (Get, ["realm", "profile_fields"]) => h(profile_fields::get_profile_fields(ctx)),
        (Post, ["realm", "profile_fields"]) => h(profile_fields::create_profile_field(ctx)),
        (Patch, ["realm", "profile_fields"]) => h(profile_fields::reorder_profile_fields(ctx)),

        // Bots and their storage
        (Post, ["external", integration]) => h(webhooks::incoming(ctx, integration)),
        (Post, ["bots"]) => h(bots::create_bot(ctx)),
        (Get, ["bots"]) => h(bots::get_bots(ctx)),
        (Patch, ["bots", bot]) => h(bots::update_bot(ctx, bot)),
        (Post, ["bots", bot, "api_key", "regenerate"]) => h(bots::regenerate_bot_api_key(ctx, bot)),
        (Put, ["bot_storage"]) => h(bot_storage::update_storage(ctx)),
        (Get, ["bot_storage"]) => h(bot_storage::get_storage(ctx)),
        (Delete, ["bot_storage"]) => h(bot_storage::remove_storage(ctx)),

        // User groups
        (Get, ["user_groups"]) => h(user_groups::get_user_groups(ctx)),
        (Post, ["user_groups", "create"]) => h(user_groups::create_user_group(ctx)),
        (Patch, ["user_groups", group]) => h(user_groups::update_user_group(ctx, group)),
        (Post, ["user_groups", group, "deactivate"]) => h(user_groups::deactivate_user_group(ctx, group)),
        (Post, ["user_groups", group, "members"]) => h(user_groups::update_members(ctx, group)),
        (Get, ["user_groups", group, "members"]) => h(user_groups::get_members(ctx, group)),
        (Get, ["user_groups", group, "members", user]) => h(user_groups::get_is_member(ctx, group, user)),
        (Post, ["user_groups", group, "subgroups"]) => h(user_groups::update_subgroups(ctx, group)),
        (Get, ["user_groups", group, "subgroups"]) => h(user_groups::get_subgroups(ctx, group)),

        // Channels and subscriptions
        (Post, ["users", "me", "subscriptions"]) => h(channels::subscribe(ctx)),
        (Delete, ["users", "me", "subscriptions"]) => h(channels::unsubscribe(ctx)),
        (Patch, ["users", "me", "subscriptions"]) => h(channels::update_subscriptions(ctx)),
        (Get, ["users", "me", "subscriptions"]) => h(channels::get_subscriptions(ctx)),
        (Get, ["users", user_id, "subscriptions", stream_id]) => h(channels::get_subscription_status(ctx, user_id, stream_id)),
        (Get, ["users", "me", stream_id, "topics"]) => h(channels::get_stream_topics(ctx, stream_id)),
        (Post, ["channels", "create"]) => h(channels::create_channel(ctx)),
        (Get, ["streams"]) => h(channels::get_streams(ctx)),
        (Get, ["streams", stream_id]) => h(channels::get_stream(ctx, stream_id)),
        (Patch, ["streams", stream_id]) => h(channels::update_stream(ctx, stream_id)),
        (Get, ["streams", stream_id, "members"]) => h(channels::get_stream_members(ctx, stream_id)),
        (Delete, ["streams", stream_id]) => h(channels::archive_stream(ctx, stream_id)),
        (Post, ["streams", stream_id, "delete_topic"]) => h(channels::delete_topic(ctx, stream_id)),
        (Get, ["streams", stream_id, "email_address"]) => h(channels::get_stream_email_address(ctx, stream_id)),
        (Get, ["get_stream_id"]) => h(channels::get_stream_id(ctx)),
        (Post, ["default_streams"]) => h(default_channels::add_default_stream(ctx)),
        (Delete, ["default_streams"]) => h(default_channels::remove_default_stream(ctx)),

        // Channel folders
        (Post, ["channel_folders", "create"]) => h(channel_folders::create_channel_folder(ctx)),
        (Get, ["channel_folders"]) => h(channel_folders::get_channel_folders(ctx)),
        (Patch, ["channel_folders"]) => h(channel_folders::reorder_channel_folders(ctx)),
        (Patch, ["channel_folders", id]) => h(channel_folders::update_channel_folder(ctx, id)),

        // Messages
        (Post, ["messages"]) => h(messages::send_message(ctx)),
        (Get, ["messages"]) => h(messages::get_messages(ctx)),
        (Post, ["messages", "render"]) => h(messages::render_message(ctx)),
        (Get, ["messages", "matches_narrow"]) => h(messages::matches_narrow(ctx)),
        (Post, ["messages", message_id, "report"]) => h(messages::report_message(ctx, message_id)),
        (Get, ["messages", message_id]) => h(messages::get_message(ctx, message_id)),
        (Get, ["messages", message_id, "read_receipts"]) => h(read_receipts::get_read_receipts(ctx, message_id)),
        (Post, ["messages", message_id, "typing"]) => h(typing::set_typing_status_for_message_edit(ctx, message_id)),
        (Post, ["messages", "flags"]) => h(message_flags::update_message_flags(ctx)),
        (Post, ["messages", "flags", "narrow"]) => h(read_state::update_message_flags_for_narrow(ctx)),
        (Post, ["mark_all_as_read"]) => h(read_state::mark_all_as_read(ctx)),
        (Post, ["mark_stream_as_read"]) => h(read_state::mark_stream_as_read(ctx)),
        (Post, ["mark_topic_as_read"]) => h(read_state::mark_topic_as_read(ctx)),
        (Post, ["messages", message_id, "reactions"]) => h(reactions::add_reaction(ctx, message_id)),
        (Delete, ["messages", message_id, "reactions"]) => h(reactions::remove_reaction(ctx, message_id)),
        (Post, ["user_topics"]) => h(message_flags::update_user_topic(ctx)),

        // Scheduled messages
        (Post, ["reminders"]) => h(reminders::create_reminder(ctx)),
        (Get, ["reminders"]) => h(reminders::get_reminders(ctx)),
        (Delete, ["reminders", id]) => h(reminders::delete_reminder(ctx, id)),
        (Post, ["scheduled_messages"]) => h(scheduled_messages::create_scheduled_message(ctx)),
        (Get, ["scheduled_messages"]) => h(scheduled_messages::get_scheduled_messages(ctx)),
        (Patch, ["scheduled_messages", id]) => h(scheduled_messages::update_scheduled_message(ctx, id)),
        (Delete, ["scheduled_messages", id]) => h(scheduled_messages::delete_scheduled_message(ctx, id)),

        // Drafts
        (Get, ["drafts"]) => h(drafts::get_drafts(ctx)),
        (Post, ["drafts"]) => h(drafts::create_drafts(ctx)),
        (Patch, ["drafts", id]) => h(drafts::edit_draft(ctx, id)),
        (Delete, ["drafts", id]) => h(drafts::delete_draft(ctx, id)),

        // Mobile push
        (Post, ["mobile_push", "register"]) => h(push::register_push_device(ctx)),
        (Post, ["mobile_push", "test_notification"]) => h(push::send_test_notification(ctx)),
        (Post, ["users", "me", "apns_device_token"]) => h(push::add_apns_device_token(ctx)),
        (Post, ["users", "me", "android_gcm_reg_id"]) => h(push::add_android_reg_id(ctx)),
        (Delete, ["users", "me", "apns_device_token"]) => h(push::remove_legacy_token(ctx, "apns")),
        (Delete, ["users", "me", "android_gcm_reg_id"]) => h(push::remove_legacy_token(ctx, "fcm")),

        // Saved snippets
        (Get, ["saved_snippets"]) => h(saved_snippets::get_saved_snippets(ctx)),
        (Post, ["saved_snippets"]) => h(saved_snippets::create_saved_snippet(ctx)),
        (Patch, ["saved_snippets", id]) => h(saved_snippets::edit_saved_snippet(ctx, id)),
        (Delete, ["saved_snippets", id]) => h(saved_snippets::delete_saved_snippet(ctx, id)),

        // Navigation views (the fragment may span several path segments)
        (Get, ["navigation_views"]) => h(navigation_views::get_navigation_views(ctx)),
        (Post, ["navigation_views"]) => h(navigation_views::add_navigation_view(ctx)),
        (Patch, ["navigation_views", fragment @ ..]) => h(navigation_views::update_navigation_view(ctx, fragment)),
        (Delete, ["navigation_views", fragment @ ..]) => h(navigation_views::remove_navigation_view(ctx, fragment)),

        // Invitations
        (Post, ["invites"]) => h(invites::send_invites(ctx)),
        (Get, ["invites"]) => h(invites::list_invites(ctx)),
        (Post, ["invites", "multiuse"]) => h(invites::create_multiuse_invite(ctx)),
        (Delete, ["invites", "multiuse", id]) => h(invites::revoke_multiuse_invite(ctx, id)),
        (Delete, ["invites", id]) => h(invites::revoke_invite(ctx, id)),
        (Post, ["invites", id, "resend"]) => h(invites::resend_invite(ctx, id)),

        // Organization settings
        (Patch, ["realm"]) => h(realm::update_realm(ctx)),
        (Patch, ["realm", "user_settings_defaults"]) => h(realm::update_user_settings_defaults(ctx)),
        (Get, ["realm", "domains"]) => h(realm_domains::list_realm_domains(ctx)),
        (Post, ["realm", "domains"]) => h(realm_domains::add_realm_domain(ctx)),
        (Patch, ["realm", "domains", domain]) => h(realm_domains::update_realm_domain(ctx, domain)),
        (Delete, ["realm", "domains", domain]) => h(realm_domains::remove_realm_domain(ctx, domain)),
        (Post, ["realm", "playgrounds"]) => h(realm_playgrounds::add_playground(ctx)),
        (Delete, ["realm", "playgrounds", id]) => h(realm_playgrounds::remove_playground(ctx, id)),

        // Linkifiers
        (Get, ["realm", "linkifiers"]) => h(linkifiers::get_linkifiers(ctx)),
        (Patch, ["realm", "linkifiers"]) => h(linkifiers::reorder_linkifiers(ctx)),
        (Get, ["realm", "filters"]) => h(linkifiers::get_filters_legacy(ctx)),
        (Post, ["realm", "filters"]) => h(linkifiers::create_linkifier(ctx)),
        (Patch, ["realm", "filters", filter_id]) => h(linkifiers::update_linkifier(ctx, filter_id)),
        (Delete, ["realm", "filters", filter_id]) => h(linkifiers::delete_linkifier(ctx, filter_id)),

        // Custom emoji (a name may hold slashes: the name check refuses it)
        (Get, ["realm", "emoji"]) => h(realm_emoji::list_emoji(ctx)),
        (Post, ["realm", "emoji", name @ ..]) if !name.is_empty() => h(realm_emoji::upload_emoji(ctx, name)),
        (Delete, ["realm", "emoji", name @ ..]) if !name.is_empty() => h(realm_emoji::delete_emoji(ctx, name)),

        // The organization's icon and logos
        (Post, ["realm", "icon"]) => h(realm_icon::upload_icon(ctx)),
        (Delete, ["realm", "icon"]) => h(realm_icon::delete_icon(ctx)),
        (Get, ["realm", "icon"]) => h(realm_icon::get_icon(ctx)),
        (Post, ["realm", "logo"]) => h(realm_icon::upload_logo(ctx)),
        (Delete, ["realm", "logo"]) => h(realm_icon::delete_logo(ctx)),
        (Get, ["realm", "logo"]) => h(realm_icon::get_logo(ctx)),

        // Editing, moving and deleting messages
        (Patch, ["messages", id]) => h(message_edit::update_message(ctx, id)),
        (Delete, ["messages", id]) => h(message_edit::delete_message(ctx, id)),
        (Get, ["messages", id, "history"]) => h(message_edit::get_message_history(ctx, id)),

        // Uploaded files
        (Post, ["user_uploads"]) => h(uploads::upload_file(ctx)),
        (Get, ["user_uploads", path_id @ ..]) => h(uploads::get_file_url(ctx, path_id)),
        (Post, ["export", "realm"]) => h(realm_export::export_realm(ctx)),
        (Get, ["export", "realm"]) => h(realm_export::get_realm_exports(ctx)),
        (Get, ["export", "realm", "consents"]) => h(realm_export::get_export_consents(ctx)),
        (Delete, ["export", "realm", export_id]) => h(realm_export::delete_realm_export(ctx, export_id)),
        (Get, ["thumbnail"]) => h(uploads::serve_thumbnail(ctx)),
        (Get, ["attachments"]) => h(uploads::get_attachments(ctx)),
        (Delete, ["attachments", id]) => h(uploads::delete_attachment(ctx, id)),

        // Resumable uploads (tus 1.0)
        (Options, ["tus"] | ["tus", _]) => h(tus::options(ctx)),
        (Post, ["tus"]) => h(tus::create_upload(ctx)),
        (Head, ["tus", upload_id]) => h(tus::upload_status(ctx, upload_id)),
        (Patch, ["tus", upload_id]) => h(tus::append_chunk(ctx, upload_id)),

        _ => None,
    }
}

/// The routes under `/user_uploads/`: file downloads, authenticated like the API.
async fn dispatch_files(ctx: &RequestContext, path: &[&str]) -> ApiResult<Reply> {
    match (ctx.method.clone(), path) {
        (Method::Get, ["temporary", token, _file_name]) => uploads::serve_temporary_file(ctx, token).await,
        (Method::Get, path_id) => uploads::serve_file(ctx, path_id).await,
        _ => Err(ApiError::not_found()),
    }
}

/// The routes under `/user_avatars/`: custom emoji images, uploaded avatars and the
/// organization's uploaded icon and logos, open to
/// anyone, and data export archives, to the organization's administrators.
async fn dispatch_avatars(ctx: &RequestContext, path: &[&str]) -> ApiResult<Reply> {
    match (ctx.method.clone(), path) {
        (Method::Get, ["exports", realm_id, token, file_name]) => realm_export::serve_export(ctx, realm_id, token, file_name).await,
        (Method::Get, [realm_id, "emoji", "images", file_name]) => realm_emoji::serve_emoji_image(ctx, realm_id, file_name, false).await,
        (Method::Get, [realm_id, "emoji", "images", "still", file_name]) => {
            realm_emoji::serve_emoji_image(ctx, realm_id, file_name, true).await
        }
        (Method::Get, [realm_id, "avatars", file_name]) => avatars::serve_avatar(ctx, realm_id, file_name).await,
        (Method::Get, [realm_id, "realm", file_name]) => realm_icon::serve_realm_image(ctx, realm_id, file_name).await,
        _ => Err(ApiError::not_found()),
    }
}
