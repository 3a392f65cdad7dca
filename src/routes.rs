//! The route table: method + path under `/api/v1` -> handler. Every route of the API is
//! declared here and nowhere else; anything else answers a JSON 404.

use worker::{Env, Method, Request, Response};

use crate::api::{
    bot_storage, bots, channel_folders, channels, dev, dev_bench, events, jwt_login, login, message_edit, message_flags, messages,
    navigation_views, profile_fields, reactions, realm, realm_playgrounds, saved_snippets, server, subscription_properties, typing,
    user_groups, users,
};
use crate::context::RequestContext;
use crate::error::{ApiError, ApiResult};
use crate::response::{error_response, success_response, Reply};

const API_PREFIX: &str = "/api/v1/";

pub async fn handle(req: Request, env: Env) -> Response {
    let path = req.path();
    let result = match path.strip_prefix(API_PREFIX) {
        None => Err(ApiError::not_found()),
        Some(rest) => {
            let segments: Vec<String> = rest.trim_end_matches('/').split('/').map(crate::params::percent_decode_path).collect();
            handle_api(req, env, segments).await
        }
    };
    result.unwrap_or_else(|err| error_response(&err))
}

async fn handle_api(req: Request, env: Env, segments: Vec<String>) -> ApiResult<Response> {
    let ctx = RequestContext::from_request(req, env).await?;
    if ctx.settings.development {
        crate::dev_seed::ensure_seeded(&ctx.db, &ctx.settings.default_realm).await?;
    }
    let path: Vec<&str> = segments.iter().map(String::as_str).collect();
    match dispatch(&ctx, &path).await? {
        Reply::Json(fields) => Ok(success_response(fields, ctx.params.ignored())),
        Reply::Raw(response) => Ok(response),
    }
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
        (Get, ["dev_bench", "noop"]) => dev_bench::noop(ctx).await,
        (Post, ["dev_bench", "d1_write"]) => dev_bench::d1_write(ctx).await,
        (Post, ["dev_bench", "durable_object"]) => dev_bench::durable_object(ctx).await,

        // Event queues and typing
        (Post, ["register"]) => events::register(ctx).await,
        (Get, ["events"]) => events::get_events(ctx).await,
        (Delete, ["events"]) => events::delete_queue(ctx).await,
        (Post, ["typing"]) => typing::set_typing_status(ctx).await,

        // Subscription settings
        (Post, ["users", "me", "subscriptions", "properties"]) => subscription_properties::update_subscription_properties(ctx).await,
        (Patch, ["users", "me", "subscriptions", "muted_topics"]) => message_flags::update_muted_topic(ctx).await,
        (Patch, ["users", "me", "subscriptions", stream_id]) => subscription_properties::update_subscription_property(ctx, stream_id).await,

        // Users
        (Get, ["users", "me"]) => users::get_own_user(ctx).await,
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
        (Get, ["messages", message_id]) => messages::get_message(ctx, message_id).await,
        (Post, ["messages", "flags"]) => message_flags::update_message_flags(ctx).await,
        (Post, ["messages", message_id, "reactions"]) => reactions::add_reaction(ctx, message_id).await,
        (Delete, ["messages", message_id, "reactions"]) => reactions::remove_reaction(ctx, message_id).await,
        (Post, ["user_topics"]) => message_flags::update_user_topic(ctx).await,

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

        // Organization settings
        (Patch, ["realm"]) => realm::update_realm(ctx).await,
        (Post, ["realm", "playgrounds"]) => realm_playgrounds::add_playground(ctx).await,
        (Delete, ["realm", "playgrounds", id]) => realm_playgrounds::remove_playground(ctx, id).await,

        // Editing, moving and deleting messages
        (Patch, ["messages", id]) => message_edit::update_message(ctx, id).await,
        (Delete, ["messages", id]) => message_edit::delete_message(ctx, id).await,
        (Get, ["messages", id, "history"]) => message_edit::get_message_history(ctx, id).await,

        _ => Err(ApiError::not_found()),
    }
}
