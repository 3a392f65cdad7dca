//! The route table: method + path under `/api/v1` (and the file URLs under `/user_uploads`)
//! -> handler. Every route of the API is declared here and nowhere else; anything else
//! answers a JSON 404.

use worker::{Context, Env, Method, Request, Response};

use crate::api::{
    alert_words, bot_storage, bots, channel_folders, channels, dev, dev_bench, drafts, events, health, invites, jwt_login, linkifiers,
    login, message_edit, message_flags, messages, muted_users, navigation_views, presence, profile_fields, push, reactions, read_state,
    realm, realm_domains, realm_emoji, realm_playgrounds, saved_snippets, scheduled_messages, server, server_admin, sessions, signup,
    subscription_properties, tus, typing, uploads, user_groups, user_settings, user_status, users, webhooks,
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
    /// Custom emoji images under `/user_avatars/`.
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
        .unwrap_or_else(|| crate::secrets::random_bytes::<8>().iter().map(|b| format!("{b:02x}")).collect())
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
    settings: crate::settings::Settings,
    worker: Context,
    segments: Vec<String>,
    area: Area,
    request_id: &str,
) -> ApiResult<Response> {
    let full_path = req.path();
    let mut ctx = RequestContext::from_request(req, env, settings).await?;
    ctx.worker = Some(worker);
    let path: Vec<&str> = segments.iter().map(String::as_str).collect();
    let mut response = match counted_dispatch(&ctx, &path, area).await {
        Ok(Reply::Json(fields)) => success_response(fields, ctx.params.ignored()),
        Ok(Reply::Raw(response)) => response,
        Err(err) => answer_error(err, request_id, ctx.method.as_ref(), &full_path),
    };
    if let Some(decision) = ctx.rate_limit() {
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
    if ctx.credentials().is_none() || open {
        ctx.count_unauthenticated().await?;
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
        (Get, ["unsubscribe", "missed_messages", raw]) => signup::unsubscribe_missed_messages(ctx, raw).await,
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

/// Handlers authenticate themselves (`ctx.user()`, `ctx.admin()`), so open endpoints are
/// the ones whose handler does not.
async fn dispatch(ctx: &RequestContext, path: &[&str]) -> ApiResult<Reply> {
    use Method::*;
    match (ctx.method.clone(), path) {
        // Server and login (open)
        (Get, ["server_settings"]) => server::get_server_settings(ctx).await,
        (Post, ["fetch_api_key"]) => login::fetch_api_key(ctx).await,
        (Post, ["jwt", "fetch_api_key"]) => jwt_login::jwt_fetch_api_key(ctx).await,
        (Post, ["dev_fetch_api_key"]) => dev::dev_fetch_api_key(ctx).await,
        (Get, ["dev_list_users"]) => dev::dev_list_users(ctx).await,
        (Get, ["dev_emails"]) => dev::dev_emails(ctx).await,
        (Post, ["server_admin", "organizations"]) => server_admin::create_organization(ctx).await,
        (Get, ["server_admin", "background_failures"]) => server_admin::get_background_failures(ctx).await,
        (Post, ["server_admin", "organizations", string_id, "deactivate"]) => {
            server_admin::set_organization_deactivated(ctx, string_id, true).await
        }
        (Post, ["server_admin", "organizations", string_id, "reactivate"]) => {
            server_admin::set_organization_deactivated(ctx, string_id, false).await
        }
        // Development only: measurements (`api::dev_bench`).
        (_, ["dev_bench", rest @ ..]) => dev_bench::dispatch(ctx, rest).await,

        // Event queues and typing
        (Post, ["register"]) => events::register(ctx).await,
        (Get, ["events"]) => events::get_events(ctx).await,
        (Delete, ["events"]) => events::delete_queue(ctx).await,
        (Post, ["typing"]) => typing::set_typing_status(ctx).await,

        // Subscription settings
        (Post, ["users", "me", "subscriptions", "properties"]) => subscription_properties::update_subscription_properties(ctx).await,
        (Patch, ["users", "me", "subscriptions", "muted_topics"]) => message_flags::update_muted_topic(ctx).await,
        (Patch, ["users", "me", "subscriptions", stream_id]) => subscription_properties::update_subscription_property(ctx, stream_id).await,

        // Per-user client state
        (Get, ["users", "me", "alert_words"]) => alert_words::list_alert_words(ctx).await,
        (Post, ["users", "me", "alert_words"]) => alert_words::add_alert_words(ctx).await,
        (Delete, ["users", "me", "alert_words"]) => alert_words::remove_alert_words(ctx).await,
        (Post, ["users", "me", "status"]) => user_status::update_user_status(ctx).await,
        (Get, ["users", user, "status"]) => user_status::get_user_status(ctx, user).await,
        (Post, ["users", "me", "presence"]) => presence::update_presence(ctx).await,
        (Get, ["users", user, "presence"]) => presence::get_user_presence(ctx, user).await,
        (Get, ["realm", "presence"]) => presence::get_realm_presence(ctx).await,
        (Get, ["users", "me", "muted_users"]) => muted_users::get_muted_users(ctx).await,
        (Post, ["users", "me", "muted_users", user]) => muted_users::mute_user(ctx, user).await,
        (Delete, ["users", "me", "muted_users", user]) => muted_users::unmute_user(ctx, user).await,

        // Users
        (Get, ["users", "me"]) => users::get_own_user(ctx).await,
        (Patch, ["settings"] | ["settings", "display"] | ["settings", "notifications"]) => user_settings::update_settings(ctx).await,
        (Post, ["users", "me", "api_key", "regenerate"]) => users::regenerate_own_api_key(ctx).await,
        (Get, ["users"]) => users::get_users(ctx).await,
        (Get, ["users", user]) => users::get_user(ctx, user).await,
        (Post, ["users"]) => users::create_user(ctx).await,
        (Delete, ["users", "me"]) => users::deactivate_own_user(ctx).await,
        (Patch, ["users", "me", "profile_data"]) => profile_fields::update_own_profile_data(ctx).await,
        (Delete, ["users", user]) => users::deactivate_user(ctx, user).await,
        (Patch, ["users", user]) => users::update_user(ctx, user).await,
        (Post, ["users", user, "reactivate"]) => users::reactivate_user(ctx, user).await,

        // Custom profile fields
        (Get, ["realm", "profile_fields"]) => profile_fields::get_profile_fields(ctx).await,
        (Post, ["realm", "profile_fields"]) => profile_fields::create_profile_field(ctx).await,

        // Bots and their storage
        (Post, ["external", integration]) => webhooks::incoming(ctx, integration).await,
        (Post, ["bots"]) => bots::create_bot(ctx).await,
        (Get, ["bots"]) => bots::get_bots(ctx).await,
        (Post, ["bots", bot, "api_key", "regenerate"]) => bots::regenerate_bot_api_key(ctx, bot).await,
        (Put, ["bot_storage"]) => bot_storage::update_storage(ctx).await,
        (Get, ["bot_storage"]) => bot_storage::get_storage(ctx).await,
        (Delete, ["bot_storage"]) => bot_storage::remove_storage(ctx).await,

        // User groups
        (Get, ["user_groups"]) => user_groups::get_user_groups(ctx).await,
        (Post, ["user_groups", "create"]) => user_groups::create_user_group(ctx).await,
        (Post, ["user_groups", group, "members"]) => user_groups::update_members(ctx, group).await,
        (Get, ["user_groups", group, "members"]) => user_groups::get_members(ctx, group).await,
        (Get, ["user_groups", group, "members", user]) => user_groups::get_is_member(ctx, group, user).await,
        (Post, ["user_groups", group, "subgroups"]) => user_groups::update_subgroups(ctx, group).await,
        (Get, ["user_groups", group, "subgroups"]) => user_groups::get_subgroups(ctx, group).await,

        // Channels and subscriptions
        (Post, ["users", "me", "subscriptions"]) => channels::subscribe(ctx).await,
        (Delete, ["users", "me", "subscriptions"]) => channels::unsubscribe(ctx).await,
        (Get, ["users", "me", "subscriptions"]) => channels::get_subscriptions(ctx).await,
        (Get, ["users", "me", stream_id, "topics"]) => channels::get_stream_topics(ctx, stream_id).await,
        (Get, ["streams"]) => channels::get_streams(ctx).await,
        (Get, ["streams", stream_id]) => channels::get_stream(ctx, stream_id).await,
        (Patch, ["streams", stream_id]) => channels::update_stream(ctx, stream_id).await,
        (Get, ["streams", stream_id, "members"]) => channels::get_stream_members(ctx, stream_id).await,
        (Get, ["get_stream_id"]) => channels::get_stream_id(ctx).await,

        // Channel folders
        (Post, ["channel_folders", "create"]) => channel_folders::create_channel_folder(ctx).await,
        (Get, ["channel_folders"]) => channel_folders::get_channel_folders(ctx).await,
        (Patch, ["channel_folders"]) => channel_folders::reorder_channel_folders(ctx).await,
        (Patch, ["channel_folders", id]) => channel_folders::update_channel_folder(ctx, id).await,

        // Messages
        (Post, ["messages"]) => messages::send_message(ctx).await,
        (Get, ["messages"]) => messages::get_messages(ctx).await,
        (Post, ["messages", "render"]) => messages::render_message(ctx).await,
        (Get, ["messages", message_id]) => messages::get_message(ctx, message_id).await,
        (Post, ["messages", "flags"]) => message_flags::update_message_flags(ctx).await,
        (Post, ["messages", "flags", "narrow"]) => read_state::update_message_flags_for_narrow(ctx).await,
        (Post, ["mark_all_as_read"]) => read_state::mark_all_as_read(ctx).await,
        (Post, ["mark_stream_as_read"]) => read_state::mark_stream_as_read(ctx).await,
        (Post, ["mark_topic_as_read"]) => read_state::mark_topic_as_read(ctx).await,
        (Post, ["messages", message_id, "reactions"]) => reactions::add_reaction(ctx, message_id).await,
        (Delete, ["messages", message_id, "reactions"]) => reactions::remove_reaction(ctx, message_id).await,
        (Post, ["user_topics"]) => message_flags::update_user_topic(ctx).await,

        // Scheduled messages
        (Post, ["scheduled_messages"]) => scheduled_messages::create_scheduled_message(ctx).await,
        (Get, ["scheduled_messages"]) => scheduled_messages::get_scheduled_messages(ctx).await,
        (Patch, ["scheduled_messages", id]) => scheduled_messages::update_scheduled_message(ctx, id).await,
        (Delete, ["scheduled_messages", id]) => scheduled_messages::delete_scheduled_message(ctx, id).await,

        // Drafts
        (Get, ["drafts"]) => drafts::get_drafts(ctx).await,
        (Post, ["drafts"]) => drafts::create_drafts(ctx).await,
        (Patch, ["drafts", id]) => drafts::edit_draft(ctx, id).await,
        (Delete, ["drafts", id]) => drafts::delete_draft(ctx, id).await,

        // Mobile push
        (Post, ["mobile_push", "register"]) => push::register_push_device(ctx).await,
        (Post, ["mobile_push", "test_notification"]) => push::send_test_notification(ctx).await,
        (Post, ["users", "me", "apns_device_token"]) => push::add_apns_device_token(ctx).await,
        (Post, ["users", "me", "android_gcm_reg_id"]) => push::add_android_reg_id(ctx).await,

        // Saved snippets
        (Get, ["saved_snippets"]) => saved_snippets::get_saved_snippets(ctx).await,
        (Post, ["saved_snippets"]) => saved_snippets::create_saved_snippet(ctx).await,
        (Patch, ["saved_snippets", id]) => saved_snippets::edit_saved_snippet(ctx, id).await,
        (Delete, ["saved_snippets", id]) => saved_snippets::delete_saved_snippet(ctx, id).await,

        // Navigation views (the fragment may span several path segments)
        (Get, ["navigation_views"]) => navigation_views::get_navigation_views(ctx).await,
        (Post, ["navigation_views"]) => navigation_views::add_navigation_view(ctx).await,
        (Patch, ["navigation_views", fragment @ ..]) => navigation_views::update_navigation_view(ctx, fragment).await,
        (Delete, ["navigation_views", fragment @ ..]) => navigation_views::remove_navigation_view(ctx, fragment).await,

        // Invitations
        (Post, ["invites"]) => invites::send_invites(ctx).await,
        (Get, ["invites"]) => invites::list_invites(ctx).await,
        (Post, ["invites", "multiuse"]) => invites::create_multiuse_invite(ctx).await,
        (Delete, ["invites", "multiuse", id]) => invites::revoke_multiuse_invite(ctx, id).await,
        (Delete, ["invites", id]) => invites::revoke_invite(ctx, id).await,
        (Post, ["invites", id, "resend"]) => invites::resend_invite(ctx, id).await,

        // Organization settings
        (Patch, ["realm"]) => realm::update_realm(ctx).await,
        (Get, ["realm", "domains"]) => realm_domains::list_realm_domains(ctx).await,
        (Post, ["realm", "domains"]) => realm_domains::add_realm_domain(ctx).await,
        (Patch, ["realm", "domains", domain]) => realm_domains::update_realm_domain(ctx, domain).await,
        (Delete, ["realm", "domains", domain]) => realm_domains::remove_realm_domain(ctx, domain).await,
        (Post, ["realm", "playgrounds"]) => realm_playgrounds::add_playground(ctx).await,
        (Delete, ["realm", "playgrounds", id]) => realm_playgrounds::remove_playground(ctx, id).await,

        // Linkifiers
        (Get, ["realm", "linkifiers"]) => linkifiers::get_linkifiers(ctx).await,
        (Patch, ["realm", "linkifiers"]) => linkifiers::reorder_linkifiers(ctx).await,
        (Get, ["realm", "filters"]) => linkifiers::get_filters_legacy(ctx).await,
        (Post, ["realm", "filters"]) => linkifiers::create_linkifier(ctx).await,
        (Patch, ["realm", "filters", filter_id]) => linkifiers::update_linkifier(ctx, filter_id).await,
        (Delete, ["realm", "filters", filter_id]) => linkifiers::delete_linkifier(ctx, filter_id).await,

        // Custom emoji (a name may hold slashes: the name check refuses it)
        (Get, ["realm", "emoji"]) => realm_emoji::list_emoji(ctx).await,
        (Post, ["realm", "emoji", name @ ..]) if !name.is_empty() => realm_emoji::upload_emoji(ctx, name).await,
        (Delete, ["realm", "emoji", name @ ..]) if !name.is_empty() => realm_emoji::delete_emoji(ctx, name).await,

        // Editing, moving and deleting messages
        (Patch, ["messages", id]) => message_edit::update_message(ctx, id).await,
        (Delete, ["messages", id]) => message_edit::delete_message(ctx, id).await,
        (Get, ["messages", id, "history"]) => message_edit::get_message_history(ctx, id).await,

        // Uploaded files
        (Post, ["user_uploads"]) => uploads::upload_file(ctx).await,
        (Get, ["user_uploads", path_id @ ..]) => uploads::get_file_url(ctx, path_id).await,
        (Get, ["thumbnail"]) => uploads::serve_thumbnail(ctx).await,
        (Get, ["attachments"]) => uploads::get_attachments(ctx).await,
        (Delete, ["attachments", id]) => uploads::delete_attachment(ctx, id).await,

        // Resumable uploads (tus 1.0)
        (Options, ["tus"] | ["tus", _]) => tus::options(ctx).await,
        (Post, ["tus"]) => tus::create_upload(ctx).await,
        (Head, ["tus", upload_id]) => tus::upload_status(ctx, upload_id).await,
        (Patch, ["tus", upload_id]) => tus::append_chunk(ctx, upload_id).await,

        _ => Err(ApiError::not_found()),
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

/// The routes under `/user_avatars/`: custom emoji images, open to anyone.
async fn dispatch_avatars(ctx: &RequestContext, path: &[&str]) -> ApiResult<Reply> {
    match (ctx.method.clone(), path) {
        (Method::Get, [realm_id, "emoji", "images", file_name]) => realm_emoji::serve_emoji_image(ctx, realm_id, file_name, false).await,
        (Method::Get, [realm_id, "emoji", "images", "still", file_name]) => {
            realm_emoji::serve_emoji_image(ctx, realm_id, file_name, true).await
        }
        _ => Err(ApiError::not_found()),
    }
}
