//! Code playgrounds of the organization.

use serde_json::json;

use crate::actions::realm_playgrounds::{do_add_playground, do_remove_playground};
use crate::auth::Administrator;
use crate::context::RequestContext;
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int;
use crate::response::Reply;

/// # `POST /realm/playgrounds`
/// Administrators. Answers `id`; emits `realm_playgrounds` to every user.
/// - `name` required, non-blank; `pygments_language` required (lexer-name characters);
/// - `url_template` required: an RFC 6570 template whose only variable is `code`;
/// - (language, name) unique in the organization.
pub async fn add_playground(ctx: &RequestContext) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let name = ctx.params.required_str("name")?;
    let language = ctx.params.required_str("pygments_language")?;
    let url_template = ctx.params.required_str("url_template")?;
    let id = do_add_playground(&ctx.db, &ctx.env, &admin, &name, &language, &url_template).await?;
    Ok(Reply::json(json!({ "id": id })))
}

/// # `DELETE /realm/playgrounds/{playground_id}`
/// Administrators; unknown id: `Invalid playground`. Emits `realm_playgrounds`.
pub async fn remove_playground(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let id = parse_int(id).ok_or_else(|| ApiError::bad_request("Invalid playground"))?;
    do_remove_playground(&ctx.db, &ctx.env, &admin, id).await?;
    Ok(Reply::ok())
}
