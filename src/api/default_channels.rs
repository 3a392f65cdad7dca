//! The organization's default channels.

use crate::actions::default_channels;
use crate::context::RequestContext;
use crate::error::ApiResult;
use crate::response::Reply;

/// # `POST /default_streams`
/// Administrators ("Must be an organization administrator"): makes the channel `stream_id`
/// a default channel, subscribed to by people who join. Only a public, unarchived channel
/// whose content the caller can access ("Invalid channel ID"; "Private channels cannot be
/// made default."). Sends `default_streams` to the organization's members but guests.
pub async fn add_default_stream(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let stream_id = ctx.params.required_int("stream_id")?;
    default_channels::check_add_default_channel(ctx, &me, &stream_id.to_string()).await?;
    Ok(Reply::ok())
}

/// # `DELETE /default_streams`
/// Administrators: the channel `stream_id` is no longer a default channel.
pub async fn remove_default_stream(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let stream_id = ctx.params.required_int("stream_id")?;
    default_channels::check_remove_default_channel(ctx, &me, &stream_id.to_string()).await?;
    Ok(Reply::ok())
}
