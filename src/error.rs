//! The one error type of the API.
//!
//! Every failure a handler can answer is an [`ApiError`]: a Zulip error `code`, a
//! human-readable `msg`, the HTTP status and the code's extra fields. Handlers and actions
//! return it; `response::error_response` is the only place that turns it into the
//! `{"result":"error",...}` envelope.

use serde_json::{json, Map, Value};

/// Zulip's machine-readable error codes that this server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    BadRequest,
    RequestVariableMissing,
    Unauthorized,
    UserDeactivated,
    RealmDeactivated,
    NonexistentSubdomain,
    AuthenticationFailed,
    CsrfFailed,
    InvalidApiKey,
    PermissionDenied,
    UnauthorizedPrincipal,
    StreamDoesNotExist,
    StreamWildcardMentionNotAllowed,
    TopicWildcardMentionNotAllowed,
    MoveMessagesTimeLimitExceeded,
    BadEventQueueId,
    CannotDeactivateLastUser,
    CannotDeactivateGroupInUse,
    RateLimitHit,
    PushServiceNotConfigured,
    InvalidPushDeviceToken,
    InvalidRemotePushDeviceToken,
    BadImage,
    InvitationFailed,
    UnsupportedWebhookEventType,
    MissingHttpEventHeader,
    ChannelAlreadyExists,
    InternalServerError,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "BAD_REQUEST",
            ErrorCode::RequestVariableMissing => "REQUEST_VARIABLE_MISSING",
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::UserDeactivated => "USER_DEACTIVATED",
            ErrorCode::RealmDeactivated => "REALM_DEACTIVATED",
            ErrorCode::NonexistentSubdomain => "NONEXISTENT_SUBDOMAIN",
            ErrorCode::AuthenticationFailed => "AUTHENTICATION_FAILED",
            ErrorCode::CsrfFailed => "CSRF_FAILED",
            ErrorCode::InvalidApiKey => "INVALID_API_KEY",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::UnauthorizedPrincipal => "UNAUTHORIZED_PRINCIPAL",
            ErrorCode::RateLimitHit => "RATE_LIMIT_HIT",
            ErrorCode::StreamDoesNotExist => "STREAM_DOES_NOT_EXIST",
            ErrorCode::StreamWildcardMentionNotAllowed => "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
            ErrorCode::TopicWildcardMentionNotAllowed => "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
            ErrorCode::MoveMessagesTimeLimitExceeded => "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
            ErrorCode::BadEventQueueId => "BAD_EVENT_QUEUE_ID",
            ErrorCode::CannotDeactivateLastUser => "CANNOT_DEACTIVATE_LAST_USER",
            ErrorCode::CannotDeactivateGroupInUse => "CANNOT_DEACTIVATE_GROUP_IN_USE",
            ErrorCode::PushServiceNotConfigured => "PUSH_SERVICE_NOT_CONFIGURED",
            ErrorCode::InvalidPushDeviceToken => "INVALID_PUSH_DEVICE_TOKEN",
            ErrorCode::InvalidRemotePushDeviceToken => "INVALID_REMOTE_PUSH_DEVICE_TOKEN",
            ErrorCode::BadImage => "BAD_IMAGE",
            ErrorCode::InvitationFailed => "INVITATION_FAILED",
            ErrorCode::UnsupportedWebhookEventType => "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
            ErrorCode::MissingHttpEventHeader => "MISSING_HTTP_EVENT_HEADER",
            ErrorCode::ChannelAlreadyExists => "CHANNEL_ALREADY_EXISTS",
            ErrorCode::InternalServerError => "INTERNAL_SERVER_ERROR",
        }
    }
}

#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: ErrorCode,
    pub msg: String,
    pub status: u16,
    /// The code's extra fields, serialised beside `result`, `msg` and `code`.
    pub extra: Map<String, Value>,
    /// Response headers the answer carries (a 429's `X-RateLimit-*`).
    pub headers: Vec<(&'static str, String)>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(code: ErrorCode, msg: impl Into<String>) -> Self {
        ApiError { code, msg: msg.into(), status: 400, extra: Map::new(), headers: Vec::new() }
    }

    pub fn with_status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

    pub fn with_extra(mut self, key: &str, value: Value) -> Self {
        self.extra.insert(key.to_string(), value);
        self
    }

    /// 413: a body over `limit` bytes, refused before it is parsed.
    pub fn request_too_large(limit: usize) -> Self {
        Self::bad_request(format!("Request body too large (limit: {} MiB)", limit >> 20)).with_status(413)
    }

    /// An incoming webhook's event its integration does not handle: 200 (so the sender
    /// does not retry it), as Zulip answers it.
    pub fn unsupported_webhook_event(webhook_name: &str, event_type: &str) -> Self {
        let msg = format!("The '{event_type}' event isn't currently supported by the {webhook_name} webhook; ignoring");
        Self::new(ErrorCode::UnsupportedWebhookEventType, msg)
            .with_status(200)
            .with_extra("webhook_name", json!(webhook_name))
            .with_extra("event_type", json!(event_type))
    }

    /// An incoming webhook request without the header that names its event.
    pub fn missing_http_event_header(header: &str) -> Self {
        Self::new(ErrorCode::MissingHttpEventHeader, format!("Missing the HTTP event header '{header}'"))
            .with_extra("header", json!(header))
    }

    /// The generic 400 `BAD_REQUEST`.
    pub fn bad_request(msg: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, msg)
    }

    pub fn missing_argument(name: &str) -> Self {
        Self::new(ErrorCode::RequestVariableMissing, format!("Missing '{name}' argument")).with_extra("var_name", json!(name))
    }

    /// A channel that does not exist or that the user may not see (Zulip's wording for both).
    pub fn invalid_channel_id() -> Self {
        Self::bad_request("Invalid channel ID")
    }

    /// A user id or email the organization does not have.
    pub fn no_such_user() -> Self {
        Self::bad_request("No such user")
    }

    /// A bot id the organization does not have, or a user who is not a bot.
    pub fn no_such_bot() -> Self {
        Self::bad_request("No such bot")
    }

    /// A user group that does not exist in the organization.
    pub fn invalid_user_group() -> Self {
        Self::bad_request("Invalid user group")
    }

    /// What guests may not do (create bots, add emoji, ...).
    pub fn not_allowed_for_guests() -> Self {
        Self::bad_request("Not allowed for guest users")
    }

    pub fn invalid_argument(name: &str, expected: &str) -> Self {
        Self::bad_request(format!("{name} is not {expected}"))
    }

    pub fn invalid_json(name: &str) -> Self {
        Self::bad_request(format!("Argument \"{name}\" is not valid JSON."))
    }

    pub fn conflicting_aliases(name: &str, alias: &str) -> Self {
        Self::bad_request(format!("Can't decide between '{name}' and '{alias}' arguments"))
    }

    /// Zulip's IncompatibleParametersError: parameters that may not be sent together.
    pub fn incompatible_parameters(names: &[&str]) -> Self {
        let names = names.join(", ");
        Self::bad_request(format!("Unsupported parameter combination: {names}")).with_extra("parameters", json!(names))
    }

    pub fn too_long(what: &str, limit: i64) -> Self {
        Self::bad_request(format!("{what} is too long (limit: {limit} characters)"))
    }

    /// 401: no credentials were sent.
    pub fn not_logged_in() -> Self {
        Self::new(ErrorCode::Unauthorized, "Not logged in: API authentication or user session required").with_status(401)
    }

    /// 403: a write with the web client's session cookie lacks its CSRF token, or carries
    /// another (Zulip's `CsrfFailureError`).
    pub fn csrf_failed(reason: &str) -> Self {
        Self::new(ErrorCode::CsrfFailed, format!("CSRF error: {reason}")).with_status(403).with_extra("reason", Value::from(reason))
    }

    /// 401: the email/API key pair matches no active credentials.
    pub fn invalid_api_key() -> Self {
        Self::new(ErrorCode::InvalidApiKey, "Invalid API key").with_status(401)
    }

    /// 429: over a rate limit; `retry-after` says in how many seconds to try again (also
    /// sent as the `Retry-After` header).
    /// 429, with the limit's `X-RateLimit-*` headers like every rate-limited answer.
    pub fn rate_limit_hit(retry_after_secs: f64, headers: Vec<(&'static str, String)>) -> Self {
        let mut err = Self::new(ErrorCode::RateLimitHit, "API usage exceeded rate limit")
            .with_status(429)
            .with_extra("retry-after", Value::from(retry_after_secs));
        err.headers = headers;
        err
    }

    /// 401: the server operator's secret does not match.
    pub fn invalid_server_admin_secret() -> Self {
        Self::new(ErrorCode::Unauthorized, "Invalid server administrator secret").with_status(401)
    }

    pub fn malformed_credentials() -> Self {
        Self::new(ErrorCode::InvalidApiKey, "Malformed API key").with_status(401)
    }

    pub fn user_deactivated() -> Self {
        Self::new(ErrorCode::UserDeactivated, "Account is deactivated").with_status(401)
    }

    pub fn realm_deactivated() -> Self {
        Self::new(ErrorCode::RealmDeactivated, "This organization has been deactivated").with_status(401)
    }

    pub fn nonexistent_subdomain() -> Self {
        Self::new(ErrorCode::NonexistentSubdomain, "Invalid subdomain").with_status(404)
    }

    /// Username/password (or other credentials) rejected by a login endpoint.
    pub fn authentication_failed(msg: impl Into<String>) -> Self {
        Self::new(ErrorCode::AuthenticationFailed, msg).with_status(401)
    }

    pub fn permission_denied(msg: impl Into<String>) -> Self {
        Self::new(ErrorCode::PermissionDenied, msg).with_status(403)
    }

    /// A bot-only endpoint (bot storage) called by a human: Zulip's BotRequiredError, a 400
    /// with the code `PERMISSION_DENIED` (Zulip 12, feature level 494).
    pub fn bot_required() -> Self {
        Self::new(ErrorCode::PermissionDenied, "Must be a bot user")
    }

    /// A user group still named by a setting or a supergroup cannot be deactivated;
    /// `objections` say where (Zulip's CannotDeactivateGroupInUseError).
    pub fn group_in_use(objections: Vec<Value>) -> Self {
        Self::new(ErrorCode::CannotDeactivateGroupInUse, "Cannot deactivate user group in use.").with_extra("objections", json!(objections))
    }

    /// "Must be an organization administrator": Zulip answers it as a 400 with the code
    /// `UNAUTHORIZED_PRINCIPAL` (zerver/lib/exceptions.py, OrganizationAdministratorRequiredError).
    pub fn must_be_admin() -> Self {
        Self::new(ErrorCode::UnauthorizedPrincipal, "Must be an organization administrator")
    }

    /// `POST /channels/create` of a name the organization has (a 409).
    pub fn channel_already_exists(name: &str) -> Self {
        Self::new(ErrorCode::ChannelAlreadyExists, format!("Channel '{name}' already exists")).with_status(409)
    }

    /// Role changes to or from owner by a non-owner (OrganizationOwnerRequiredError).
    pub fn must_be_owner() -> Self {
        Self::new(ErrorCode::UnauthorizedPrincipal, "Must be an organization owner")
    }

    /// Zulip's ResourceNotFoundError: a 404 `BAD_REQUEST` naming the missing object.
    pub fn resource_not_found(msg: impl Into<String>) -> Self {
        Self::bad_request(msg).with_status(404)
    }

    pub fn not_found() -> Self {
        Self::bad_request("Not Found").with_status(404)
    }

    /// Zulip's answer for a scheduled message that is not the caller's, delivered or gone.
    pub fn scheduled_message_not_found() -> Self {
        Self::bad_request("Scheduled message does not exist").with_status(404)
    }

    pub fn reminder_not_found() -> Self {
        Self::bad_request("Reminder does not exist").with_status(404)
    }

    /// Uploads: no file part, or more than one.
    pub fn upload_file_count(count: usize) -> Self {
        if count == 0 {
            Self::bad_request("You must specify a file to upload")
        } else {
            Self::bad_request("You may only upload one file at a time")
        }
    }

    pub fn upload_too_large(max_mib: i64) -> Self {
        Self::bad_request(format!("File is larger than this server's configured maximum upload size ({max_mib} MiB)."))
    }

    /// A download of an upload that does not exist.
    pub fn upload_not_found() -> Self {
        Self::bad_request("File not found").with_status(404)
    }

    /// A download by a user who may not see the file (neither uploader nor shown a message linking it).
    pub fn upload_not_authorized() -> Self {
        Self::permission_denied("You are not authorized to view this file.")
    }

    /// Zulip's BadImageError: an upload that is not an image of an accepted type.
    pub fn bad_image(msg: &str) -> Self {
        Self::new(ErrorCode::BadImage, msg)
    }

    /// Zulip's custom emoji upload: no file part, or more than one.
    pub fn emoji_file_count() -> Self {
        Self::bad_request("You must upload exactly one file.")
    }

    /// Zulip's emoji upload size check (`max_emoji_file_size_mib`).
    pub fn file_over_limit(max_mib: i64) -> Self {
        Self::bad_request(format!("Uploaded file is larger than the allowed limit of {max_mib} MiB"))
    }

    /// An active custom emoji already has the name.
    pub fn custom_emoji_exists() -> Self {
        Self::bad_request("A custom emoji with this name already exists.")
    }

    /// `DELETE /realm/emoji/{name}` of a name no active emoji has (Zulip's ResourceNotFoundError).
    pub fn emoji_does_not_exist(name: &str) -> Self {
        Self::resource_not_found(format!("Emoji '{name}' does not exist"))
    }

    pub fn invalid_attachment() -> Self {
        Self::bad_request("Invalid attachment")
    }

    pub fn range_not_satisfiable() -> Self {
        Self::bad_request("Requested range not satisfiable").with_status(416)
    }

    /// tus: a request whose `Tus-Resumable` is missing or not the version spoken.
    pub fn tus_unsupported_version() -> Self {
        Self::bad_request("Unsupported tus version: Tus-Resumable must be 1.0.0").with_status(412)
    }

    /// tus: an upload id that is not one of the caller's uploads.
    pub fn tus_upload_not_found() -> Self {
        Self::bad_request("Upload not found").with_status(404)
    }

    /// tus: a PATCH whose `Upload-Offset` is not where the upload stands.
    pub fn tus_offset_mismatch() -> Self {
        Self::bad_request("Upload-Offset does not match the upload's offset").with_status(409)
    }

    pub fn tus_invalid_header(name: &str) -> Self {
        Self::bad_request(format!("Missing or invalid {name} header"))
    }

    /// tus: creation without `Upload-Length` (the deferred-length extension is not offered).
    pub fn tus_length_required() -> Self {
        Self::bad_request("Uploads of unknown length are not supported").with_status(411)
    }

    /// tus: Zulip's answer to an upload over `max_file_upload_size_mib`.
    pub fn tus_upload_too_large(max_mib: i64) -> Self {
        Self::bad_request(format!("Uploaded file is larger than the allowed limit of {max_mib} MiB")).with_status(413)
    }

    /// tus: a chunk that would take the upload past its `Upload-Length`.
    pub fn tus_chunk_past_length() -> Self {
        Self::bad_request("The chunk goes past the upload's Upload-Length").with_status(413)
    }

    pub fn tus_invalid_content_type() -> Self {
        Self::bad_request("Content-Type must be application/offset+octet-stream").with_status(415)
    }

    /// tus: a chunk that arrived shorter than its `Content-Length` (a dropped connection).
    pub fn tus_incomplete_chunk() -> Self {
        Self::bad_request("The chunk arrived incomplete; nothing of it was stored")
    }

    /// 405 for a path that has other methods: `allowed_methods`, and HTTP's `Allow` header.
    pub fn method_not_allowed(allowed: &[&str]) -> Self {
        let mut err = Self::bad_request("Method Not Allowed").with_status(405).with_extra("allowed_methods", json!(allowed));
        err.headers = vec![("Allow", allowed.join(", "))];
        err
    }

    pub fn stream_does_not_exist(name: &str) -> Self {
        Self::new(ErrorCode::StreamDoesNotExist, format!("Channel '{name}' does not exist")).with_extra("stream", json!(name))
    }

    pub fn stream_id_does_not_exist(stream_id: i64) -> Self {
        Self::new(ErrorCode::StreamDoesNotExist, format!("Channel with ID '{stream_id}' does not exist"))
            .with_extra("stream_id", json!(stream_id))
    }

    pub fn stream_wildcard_mention_not_allowed() -> Self {
        Self::new(
            ErrorCode::StreamWildcardMentionNotAllowed,
            "You do not have permission to use channel wildcard mentions in this channel.",
        )
    }

    pub fn topic_wildcard_mention_not_allowed() -> Self {
        Self::new(ErrorCode::TopicWildcardMentionNotAllowed, "You do not have permission to use topic wildcard mentions in this topic.")
    }

    pub fn move_messages_time_limit_exceeded(
        first_message_id_allowed_to_move: Option<i64>,
        total_messages_allowed_to_move: i64,
        total_messages_in_topic: i64,
    ) -> Self {
        Self::new(
            ErrorCode::MoveMessagesTimeLimitExceeded,
            "You only have permission to move the ".to_string()
                + &format!("{total_messages_allowed_to_move}/{total_messages_in_topic} most recent messages in this topic."),
        )
        .with_extra("first_message_id_allowed_to_move", json!(first_message_id_allowed_to_move))
        .with_extra("total_messages_allowed_to_move", json!(total_messages_allowed_to_move))
        .with_extra("total_messages_in_topic", json!(total_messages_in_topic))
    }

    /// 403: a `principals` entry names no active user of the organization (Zulip does not
    /// reveal whether the address exists elsewhere).
    pub fn unauthorized_principal(principal: &str) -> Self {
        Self::new(ErrorCode::UnauthorizedPrincipal, format!("User not authorized to execute queries on behalf of '{principal}'"))
            .with_status(403)
            .with_extra("principal", json!(principal))
    }

    pub fn insufficient_permission() -> Self {
        Self::bad_request("Insufficient permission")
    }

    pub fn bad_event_queue_id(queue_id: &str) -> Self {
        Self::new(ErrorCode::BadEventQueueId, format!("Bad event queue ID: {queue_id}")).with_extra("queue_id", json!(queue_id))
    }

    pub fn cannot_deactivate_last_user(is_last_owner: bool) -> Self {
        let entity = if is_last_owner { "organization owner" } else { "user" };
        Self::new(ErrorCode::CannotDeactivateLastUser, format!("Cannot deactivate the only {entity}."))
            .with_extra("entity", json!(entity))
            .with_extra("is_last_owner", json!(is_last_owner))
    }

    /// Zulip's InvitationError: some or all addresses of `POST /invites` were refused.
    /// `errors` holds `[address, reason, is_deactivated_account]` for each.
    pub fn invitation_failed(msg: &str, errors: &[(String, String, bool)], sent_invitations: bool, daily_limit_reached: bool) -> Self {
        let errors: Vec<Value> = errors.iter().map(|(email, reason, deactivated)| json!([email, reason, deactivated])).collect();
        Self::new(ErrorCode::InvitationFailed, msg)
            .with_extra("errors", json!(errors))
            .with_extra("sent_invitations", json!(sent_invitations))
            .with_extra("license_limit_reached", json!(false))
            .with_extra("daily_limit_reached", json!(daily_limit_reached))
    }

    /// `DELETE`/resend of an invitation that is not one of the organization's pending ones.
    pub fn no_such_invitation() -> Self {
        Self::bad_request("No such invitation")
    }

    /// A sign-up or password-reset link whose key matches nothing (mistyped or forged).
    pub fn confirmation_link_not_found() -> Self {
        Self::bad_request("We couldn't find your confirmation ID.").with_status(404)
    }

    /// A sign-up or password-reset link past its expiry.
    pub fn confirmation_link_expired() -> Self {
        Self::bad_request("The confirmation link has expired or been deactivated.")
    }

    /// A single-use link that was used already.
    pub fn confirmation_link_used() -> Self {
        Self::bad_request("This confirmation link has already been used.")
    }

    /// A link whose invitation an administrator (or its creator) revoked.
    pub fn invitation_revoked() -> Self {
        Self::bad_request("This invitation has been revoked.")
    }

    /// A failure inside the runtime (D1, Durable Objects, JS). The detail is logged by the
    /// caller of `internal`, never sent: clients only learn that the server failed.
    pub fn push_service_not_configured() -> Self {
        Self::new(ErrorCode::PushServiceNotConfigured, "Server is not configured to use push notification service.")
    }

    pub fn invalid_push_device_token() -> Self {
        Self::new(ErrorCode::InvalidPushDeviceToken, "Device not recognized")
    }

    pub fn invalid_remote_push_device_token() -> Self {
        Self::new(ErrorCode::InvalidRemotePushDeviceToken, "Device not recognized by the push bouncer")
    }

    /// The push relay could not be reached or failed (Zulip's PushNotificationBouncerRetryLaterError).
    pub fn push_relay_unavailable() -> Self {
        Self::new(ErrorCode::InternalServerError, "Network error connecting to push notifications service").with_status(502)
    }

    /// 500: the deployment's configuration is unsafe to serve (logged; the message says
    /// what to fix, and carries no secret).
    pub fn misconfigured(problem: &str) -> Self {
        worker::console_error!("refusing to serve: {problem}");
        Self::new(ErrorCode::InternalServerError, format!("Server misconfigured: {problem}")).with_status(500)
    }

    pub fn internal(detail: impl std::fmt::Display) -> Self {
        worker::console_error!("internal error: {detail}");
        Self::new(ErrorCode::InternalServerError, "Internal server error").with_status(500)
    }

    /// The body of the error envelope.
    pub fn to_json(&self) -> Value {
        let mut body = Map::new();
        body.insert("result".into(), json!("error"));
        body.insert("msg".into(), json!(self.msg));
        body.insert("code".into(), json!(self.code.as_str()));
        for (k, v) in &self.extra {
            body.insert(k.clone(), v.clone());
        }
        Value::Object(body)
    }
}

impl From<worker::Error> for ApiError {
    fn from(err: worker::Error) -> Self {
        ApiError::internal(err)
    }
}

impl From<serde_json::Error> for ApiError {
    fn from(err: serde_json::Error) -> Self {
        ApiError::internal(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_puts_extra_fields_beside_code() {
        let body = ApiError::bad_event_queue_id("abc").to_json();
        assert_eq!(body["result"], "error");
        assert_eq!(body["code"], "BAD_EVENT_QUEUE_ID");
        assert_eq!(body["queue_id"], "abc");
    }

    #[test]
    fn missing_argument_uses_zulip_wording() {
        let err = ApiError::missing_argument("content");
        assert_eq!(err.msg, "Missing 'content' argument");
        assert_eq!(err.status, 400);
        assert_eq!(err.to_json()["var_name"], "content");
    }

    #[test]
    fn last_owner_names_the_owner_entity() {
        let body = ApiError::cannot_deactivate_last_user(true).to_json();
        assert_eq!(body["is_last_owner"], true);
        assert_eq!(body["entity"], "organization owner");
    }
}
