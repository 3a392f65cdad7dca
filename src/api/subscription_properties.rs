//! The caller's per-channel subscription settings.

use serde_json::Value;

use crate::actions::subscription_properties::check_update_subscription_properties;
use crate::context::RequestContext;
use crate::domain::subscription_properties::parse_change;
use crate::error::{ApiError, ApiResult};
use crate::params::{json_value, parse_int};
use crate::response::Reply;

/// # `POST /users/me/subscriptions/properties`
/// Any user, for channels they are subscribed to. `subscription_data`: a JSON list of
/// `{stream_id, property, value}`; every entry is checked before any is applied.
pub async fn update_subscription_properties(ctx: &RequestContext) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let data: Vec<Value> =
        ctx.params.json_as("subscription_data", "a list")?.ok_or_else(|| ApiError::missing_argument("subscription_data"))?;
    let mut changes = Vec::with_capacity(data.len());
    for (i, item) in data.iter().enumerate() {
        let field = |name: &str| item.get(name).ok_or_else(|| ApiError::bad_request(format!("subscription_data[{i}] is missing {name}")));
        let stream_id = field("stream_id")?
            .as_i64()
            .ok_or_else(|| ApiError::invalid_argument(&format!("subscription_data[{i}][\"stream_id\"]"), "an integer"))?;
        let property = field("property")?
            .as_str()
            .ok_or_else(|| ApiError::invalid_argument(&format!("subscription_data[{i}][\"property\"]"), "a string"))?;
        changes.push(parse_change(stream_id, property, field("value")?)?);
    }
    check_update_subscription_properties(ctx, &user, &changes).await?;
    Ok(Reply::ok())
}

/// # `PATCH /users/me/subscriptions/{stream_id}`
/// The single-channel form: `property` and `value` (a JSON value; a bare string is read as
/// a string).
pub async fn update_subscription_property(ctx: &RequestContext, stream_id: &str) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let stream_id = parse_int(stream_id).ok_or_else(ApiError::invalid_channel_id)?;
    let property = ctx.params.required_str("property")?;
    let raw = ctx.params.required_str("value")?;
    let value = json_value(&raw).unwrap_or(Value::String(raw));
    let change = parse_change(stream_id, &property, &value)?;
    check_update_subscription_properties(ctx, &user, &[change]).await?;
    Ok(Reply::ok())
}
