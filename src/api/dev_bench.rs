//! Development-only probes of the platform's floor, for `make bench` (examples/bench.rs):
//! the same runtime path as an API call, with one known cost each. Production answers 404.

use crate::context::RequestContext;
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

fn require_development(ctx: &RequestContext) -> ApiResult<()> {
    if ctx.settings.development {
        Ok(())
    } else {
        Err(ApiError::not_found())
    }
}

/// # `GET /dev_bench/noop`
/// No storage at all: the cost of a request through the worker.
pub async fn noop(ctx: &RequestContext) -> ApiResult<Reply> {
    require_development(ctx)?;
    Ok(Reply::ok())
}

/// # `POST /dev_bench/d1_write`
/// Exactly one D1 write (an update that leaves the organization's row as it was).
pub async fn d1_write(ctx: &RequestContext) -> ApiResult<Reply> {
    require_development(ctx)?;
    crate::db::run(crate::db::realms::touch_stmt(&ctx.db, &ctx.realm_string_id)?).await?;
    Ok(Reply::ok())
}

/// # `POST /dev_bench/durable_object`
/// One round trip to the organization's `RealmHub` (a command that touches no storage).
pub async fn durable_object(ctx: &RequestContext) -> ApiResult<Reply> {
    require_development(ctx)?;
    let realm = ctx.realm().await?;
    crate::event_queues::ping_hub(&ctx.env, realm.id).await?;
    Ok(Reply::ok())
}
