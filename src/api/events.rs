//! Event queues: `POST /register`, `GET /events`, `DELETE /events`.

use serde_json::{json, Value};
use team_chat_durable_objects::protocol::QueueSpec;

use crate::api::params::include_subscribers;
use crate::context::RequestContext;
use crate::domain::register_state::{initial_state, StateData, StateRequest};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::platform::event_queues::{self, Capabilities};
use crate::response::Reply;
use crate::settings::{ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION};

/// `[vars]` of the long-poll heartbeat; the announced client timeout stays above it.
pub fn longpoll_timeout_secs(ctx: &RequestContext) -> i64 {
    let heartbeat = crate::settings::event_queue_heartbeat_secs(&ctx.env);
    (heartbeat + 40).max(90)
}

/// A narrow term: `[operator, operand]` or `{"operator": .., "operand": ..}`.
fn narrow_term(term: &Value) -> Option<(String, String)> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    match term {
        Value::Array(pair) if pair.len() == 2 => Some((text(&pair[0])?, text(&pair[1])?)),
        Value::Object(obj) => Some((text(obj.get("operator")?)?, text(obj.get("operand")?)?)),
        _ => None,
    }
}

/// # `POST /register`
/// Registers an event queue for the caller and answers the initial state of the requested
/// event types. The queue is registered before the state is read, so no change falls
/// between the state and the first event.
pub async fn register(ctx: &RequestContext) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let p = &ctx.params;
    let event_types: Option<Vec<String>> = p.json_as("event_types", "a list of strings")?;
    let fetch_event_types: Option<Vec<String>> = p.json_as("fetch_event_types", "a list of strings")?;
    let narrow_raw: Vec<Value> = p.json_as("narrow", "a list")?.unwrap_or_default();
    let narrow = narrow_raw
        .iter()
        .map(|t| narrow_term(t).ok_or_else(|| ApiError::invalid_argument("narrow", "a list of [operator, operand] terms")))
        .collect::<ApiResult<Vec<_>>>()?;
    let all_public_streams = p.bool_or("all_public_streams", false)?;
    let apply_markdown = p.bool_or("apply_markdown", false)?;
    let client_gravatar = p.bool_or("client_gravatar", true)?;
    let slim_presence = p.bool_or("slim_presence", false)?;
    let include_subscribers = include_subscribers(p, "one of true, false, partial")?;
    let capabilities = client_capabilities(p)?;
    p.accept("presence_history_limit_days");
    p.accept("queue_lifespan_secs");

    let realm = ctx.realm().await?;
    // The queue needs the empty topic's display name before the state batch runs: the
    // isolate's copy, current for this request, costs no round trip.
    let realm_state = ctx.realm_state(realm.id).await?;
    let settings = &realm_state.settings;
    let spec = QueueSpec {
        realm_id: realm.id,
        user_id: user.id,
        event_types: event_types.clone(),
        narrow,
        all_public_streams,
        apply_markdown,
        client_gravatar,
        capabilities: capabilities.clone(),
        realm_empty_topic_display_name: settings.empty_topic_display_name.clone(),
    };
    let registered = event_queues::register(&ctx.env, &spec).await?;

    let fetch = fetch_event_types.or(event_types);
    let request = StateRequest {
        fetch_event_types: fetch.as_deref(),
        capabilities: &capabilities,
        client_gravatar,
        slim_presence,
        include_subscribers,
        realm_host: ctx.realm_host(),
        base_url: &ctx.base_url,
        longpoll_timeout_secs: longpoll_timeout_secs(ctx),
        push_notifications_enabled: ctx.settings.push_relay.is_some(),
    };
    // `fetch_event_types=[]`: a queue without initial state (no state query at all).
    let mut fields = if fetch.as_ref().is_some_and(Vec::is_empty) {
        serde_json::Map::new()
    } else {
        let data = StateData::load(&ctx.db, &user).await?;
        initial_state(&user, &realm, &data, &request)
    };
    fields.insert("queue_id".into(), json!(registered.queue_id));
    fields.insert("last_event_id".into(), json!(registered.last_event_id));
    fields.insert("zulip_version".into(), json!(ZULIP_VERSION));
    fields.insert("zulip_feature_level".into(), json!(ZULIP_FEATURE_LEVEL));
    fields.insert("zulip_merge_base".into(), json!(ZULIP_MERGE_BASE));
    fields.insert("event_queue_longpoll_timeout_seconds".into(), json!(longpoll_timeout_secs(ctx)));
    Ok(Reply::Json(fields))
}

/// `client_capabilities`: a JSON object of flags, each false when absent.
fn client_capabilities(p: &Params) -> ApiResult<Capabilities> {
    Ok(match p.json("client_capabilities")? {
        None => Capabilities::default(),
        Some(Value::Object(map)) => {
            let flag = |name: &str| map.get(name).and_then(Value::as_bool).unwrap_or(false);
            Capabilities {
                notification_settings_null: flag("notification_settings_null"),
                bulk_message_deletion: flag("bulk_message_deletion"),
                user_avatar_url_field_optional: flag("user_avatar_url_field_optional"),
                stream_typing_notifications: flag("stream_typing_notifications"),
                user_settings_object: flag("user_settings_object"),
                empty_topic_name: flag("empty_topic_name"),
                archived_channels: flag("archived_channels"),
                include_deactivated_groups: flag("include_deactivated_groups"),
            }
        }
        Some(_) => return Err(ApiError::invalid_argument("client_capabilities", "a dict")),
    })
}

/// # `GET /events`
/// The queue's events after `last_event_id` (which acknowledges the older ones). Blocks
/// until an event arrives or the heartbeat interval passes, unless `dont_block`.
/// An unknown, deleted or expired queue is `BAD_EVENT_QUEUE_ID`.
pub async fn get_events(ctx: &RequestContext) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let queue_id = ctx.params.required_str("queue_id")?;
    let last_event_id = ctx.params.int("last_event_id")?;
    let dont_block = ctx.params.bool_or("dont_block", false)?;
    ctx.params.accept("user_client");
    ctx.params.accept("slim_presence");
    let events = event_queues::poll(&ctx.env, user.realm_id, user.id, &queue_id, last_event_id, dont_block).await?;
    Ok(Reply::json(json!({"events": events, "queue_id": queue_id})))
}

/// # `DELETE /events`
/// Deletes the queue; a pending long-poll on it ends. A second delete is
/// `BAD_EVENT_QUEUE_ID`.
pub async fn delete_queue(ctx: &RequestContext) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let queue_id = ctx.params.required_str("queue_id")?;
    event_queues::delete(&ctx.env, user.realm_id, user.id, &queue_id).await?;
    Ok(Reply::ok())
}
