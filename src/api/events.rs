//! Event queues: `POST /register`, `GET /events`, `DELETE /events`.

use serde_json::{json, Value};
use team_chat_durable_objects::protocol::{QueueSpec, Registered};

use crate::api::params::include_subscribers;
use crate::context::RequestContext;
use crate::db::users::UserRow;
use crate::domain::register_state::{initial_state, StateData, StateReads, StateRequest};
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::params::Params;
use crate::platform::event_queues::{self, Capabilities};
use crate::platform::realm_cache::RealmState;
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

/// What `POST /register` was asked for.
struct RegisterRequest {
    event_types: Option<Vec<String>>,
    /// `fetch_event_types`, else `event_types`; `None`: every type.
    fetch: Option<Vec<String>>,
    narrow: Vec<(String, String)>,
    all_public_streams: bool,
    apply_markdown: bool,
    client_gravatar: bool,
    slim_presence: bool,
    include_subscribers: bool,
    capabilities: Capabilities,
}

impl RegisterRequest {
    fn parse(p: &Params) -> ApiResult<RegisterRequest> {
        let event_types: Option<Vec<String>> = p.json_as("event_types", "a list of strings")?;
        let fetch_event_types: Option<Vec<String>> = p.json_as("fetch_event_types", "a list of strings")?;
        let narrow_raw: Vec<Value> = p.json_as("narrow", "a list")?.unwrap_or_default();
        let narrow = narrow_raw
            .iter()
            .map(|t| narrow_term(t).ok_or_else(|| ApiError::invalid_argument("narrow", "a list of [operator, operand] terms")))
            .collect::<ApiResult<Vec<_>>>()?;
        let request = RegisterRequest {
            fetch: fetch_event_types.or_else(|| event_types.clone()),
            event_types,
            narrow,
            all_public_streams: p.bool_or("all_public_streams", false)?,
            apply_markdown: p.bool_or("apply_markdown", false)?,
            client_gravatar: p.bool_or("client_gravatar", true)?,
            slim_presence: p.bool_or("slim_presence", false)?,
            include_subscribers: include_subscribers(p, "one of true, false, partial")?,
            capabilities: client_capabilities(p)?,
        };
        p.accept("presence_history_limit_days");
        p.accept("queue_lifespan_secs");
        Ok(request)
    }

    /// `fetch_event_types=[]`: a queue without initial state (no state query at all).
    fn wants_state(&self) -> bool {
        !self.fetch.as_ref().is_some_and(Vec::is_empty)
    }

    fn queue_spec(&self, user: &UserRow, realm: &RealmState) -> QueueSpec {
        QueueSpec {
            realm_id: user.realm_id,
            user_id: user.id,
            event_types: self.event_types.clone(),
            narrow: self.narrow.clone(),
            all_public_streams: self.all_public_streams,
            apply_markdown: self.apply_markdown,
            client_gravatar: self.client_gravatar,
            capabilities: self.capabilities.clone(),
            realm_empty_topic_display_name: realm.settings.empty_topic_display_name.clone(),
        }
    }
}

/// # `POST /register`
/// Registers an event queue for the caller and answers the initial state of the requested
/// event types. The queue is registered before the state is read, so no change falls
/// between the state and the first event.
pub async fn register(ctx: &RequestContext) -> ApiResult<Reply> {
    let request = ctx.after_authentication(RegisterRequest::parse(&ctx.params)).await?;
    let reads = StateReads { fetch_event_types: request.fetch.as_deref() };
    let reads = request.wants_state().then_some(&reads);
    let (user, registered, data) = match ctx.auth.guessed_user() {
        Some((realm_state, guessed)) => match queue_for_guess(ctx, &request, reads, &guessed, &realm_state).await? {
            Some(answer) => answer,
            None => queue_then_state(ctx, &request, reads).await?,
        },
        None => queue_then_state(ctx, &request, reads).await?,
    };
    let mut fields = match data {
        Some(data) => {
            let realm = ctx.realm().await?;
            let state_request = StateRequest {
                fetch_event_types: request.fetch.as_deref(),
                capabilities: &request.capabilities,
                client_gravatar: request.client_gravatar,
                slim_presence: request.slim_presence,
                include_subscribers: request.include_subscribers,
                realm_host: &ctx.realm_host,
                base_url: &ctx.base_url,
                longpoll_timeout_secs: longpoll_timeout_secs(ctx),
                push_notifications_enabled: ctx.settings.push_relay.is_some(),
            };
            initial_state(&user, &realm, &data, &state_request)
        }
        None => serde_json::Map::new(),
    };
    fields.insert("queue_id".into(), json!(registered.queue_id));
    fields.insert("last_event_id".into(), json!(registered.last_event_id));
    fields.insert("zulip_version".into(), json!(ZULIP_VERSION));
    fields.insert("zulip_feature_level".into(), json!(ZULIP_FEATURE_LEVEL));
    fields.insert("zulip_merge_base".into(), json!(ZULIP_MERGE_BASE));
    fields.insert("event_queue_longpoll_timeout_seconds".into(), json!(longpoll_timeout_secs(ctx)));
    Ok(Reply::Json(fields))
}

type Registration = (UserRow, Registered, Option<StateData>);

/// Authenticates, registers the queue, then reads the state: three round trips.
async fn queue_then_state(ctx: &RequestContext, request: &RegisterRequest, reads: Option<&StateReads<'_>>) -> ApiResult<Registration> {
    let user = ctx.user().await?;
    let realm_state = ctx.realm_state(user.realm_id).await?;
    let registered = event_queues::register(&ctx.env, &request.queue_spec(&user, &realm_state)).await?;
    let Some(reads) = reads else { return Ok((user, registered, None)) };
    // The credentials are checked again in the state's batch; they could only fail now.
    let checked =
        ctx.read_as_user(reads).await.and_then(|(me, _, data)| if me.id == user.id { Ok(data) } else { Err(ApiError::invalid_api_key()) });
    match checked {
        Ok(data) => Ok((user, registered, Some(data))),
        Err(err) => {
            forget_queue(ctx, &user, &registered).await;
            Err(err)
        }
    }
}

/// When the isolate knows whose key this is, the queue is registered for that user first,
/// and the credentials are checked beside it (no state) or in the state's own batch:
/// two round trips, or one. `None` when the guess was wrong (its queue deleted again).
async fn queue_for_guess(
    ctx: &RequestContext,
    request: &RegisterRequest,
    reads: Option<&StateReads<'_>>,
    guessed: &UserRow,
    realm_state: &RealmState,
) -> ApiResult<Option<Registration>> {
    let spec = request.queue_spec(guessed, realm_state);
    let (registered, checked) = match reads {
        Some(reads) => {
            let registered = event_queues::register(&ctx.env, &spec).await?;
            let checked = ctx.read_as_user(reads).await.map(|(me, state, data)| (me, state, Some(data)));
            (registered, checked)
        }
        None => {
            let (registered, me) = futures_util::future::join(event_queues::register(&ctx.env, &spec), ctx.user()).await;
            let checked = match me {
                Ok(me) => ctx.realm_state(me.realm_id).await.map(|state| (me, state, None)),
                Err(err) => Err(err),
            };
            (registered?, checked)
        }
    };
    match checked {
        Ok((me, state, data)) if me.id == guessed.id && state.settings.empty_topic_display_name == spec.realm_empty_topic_display_name => {
            Ok(Some((me, registered, data)))
        }
        Ok(_) => {
            forget_queue(ctx, guessed, &registered).await;
            Ok(None)
        }
        Err(err) => {
            forget_queue(ctx, guessed, &registered).await;
            Err(err)
        }
    }
}

/// Deletes a queue registered for an answer that is not given; a queue left behind
/// expires unpolled.
async fn forget_queue(ctx: &RequestContext, user: &UserRow, registered: &Registered) {
    if let Err(err) = event_queues::delete(&ctx.env, RealmId(user.realm_id), UserId(user.id), &registered.queue_id).await {
        worker::console_error!("queue {} of a refused register not deleted: {}", registered.queue_id, err.msg);
    }
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
    let events = event_queues::poll(&ctx.env, RealmId(user.realm_id), UserId(user.id), &queue_id, last_event_id, dont_block).await?;
    Ok(Reply::json(json!({"events": events, "queue_id": queue_id})))
}

/// # `DELETE /events`
/// Deletes the queue; a pending long-poll on it ends. A second delete is
/// `BAD_EVENT_QUEUE_ID`.
pub async fn delete_queue(ctx: &RequestContext) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let queue_id = ctx.params.required_str("queue_id")?;
    event_queues::delete(&ctx.env, RealmId(user.realm_id), UserId(user.id), &queue_id).await?;
    Ok(Reply::ok())
}
