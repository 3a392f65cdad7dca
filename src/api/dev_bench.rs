//! Development-only probes of the platform's floor, for `make bench` (examples/bench/):
//! the same runtime path as an API call. Production answers 404. The request floors live in
//! a worker of their own (examples/bare-worker).

use serde_json::json;

use crate::context::RequestContext;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::response::Reply;

/// The routes under `/dev_bench/`, answered only by a development server (404 elsewhere),
/// kept out of the production route table.
pub async fn dispatch(ctx: &RequestContext, path: &[&str]) -> ApiResult<Reply> {
    use worker::Method::*;
    if !ctx.settings.development {
        return Err(ApiError::not_found());
    }
    match (ctx.method.clone(), path) {
        (Get, ["noop"]) => noop(ctx).await,
        (Post, ["render"]) => render(ctx).await,
        (Post, ["fan_out", "wait"]) => fan_out_wait(ctx).await,
        (Get, ["fan_out", "waiting"]) => fan_out_waiting(ctx).await,
        (Post, ["fan_out", "wake"]) => fan_out_wake(ctx).await,
        (Get, ["fan_out", "waiting_polls"]) => fan_out_waiting_polls(ctx).await,
        _ => Err(ApiError::not_found()),
    }
}

/// # `GET /dev_bench/noop`
/// No storage at all: the cost of a request through the worker.
pub async fn noop(_ctx: &RequestContext) -> ApiResult<Reply> {
    Ok(Reply::ok())
}

/// One D1 batch of five updates that leave an account's row as it was.
async fn five_write_batch(ctx: &RequestContext) -> ApiResult<()> {
    let statements = (0..5).map(|_| crate::db::bench::touch_stmt(&ctx.realm_string_id)).collect::<worker::Result<Vec<_>>>()?;
    crate::db::run_batch(&ctx.db, statements).await?;
    Ok(())
}

/// Workers' CPU time per request: the Free plan's limit and the Paid plan's default.
const CPU_BUDGET_FREE_MS: f64 = 10.0;
const CPU_BUDGET_PAID_MS: f64 = 30_000.0;

/// # `POST /dev_bench/render`
/// Any user (development only): renders `content` `iterations` times (default 20, 1 to
/// 1000) with the caller's organization resolved once, KaTeX on and off, timed by the
/// worker. The clock of a Worker stands still while it computes, so each timing starts and
/// ends after a zero-length timer.
pub async fn render(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let content = ctx.params.required_str("content")?;
    let iterations = ctx.params.int("iterations")?.unwrap_or(20);
    if !(1..=1000).contains(&iterations) {
        return Err(ApiError::bad_request("Invalid iterations"));
    }
    let refs = crate::markdown::references(&content);
    let mut batch = crate::db::batch::Batch::new();
    let reads = crate::domain::rendering::ResolutionReads::add(&mut batch, RealmId(me.realm_id), UserId(me.id), &refs, None)?;
    let (with_katex, _) = reads.take(&batch.run(&ctx.db).await?)?;
    let without_katex = crate::markdown::Resolved { tex: crate::markdown::TexRenderer::none(), ..with_katex.clone() };
    let html_length = crate::markdown::render(&content, &with_katex).html.len();
    let mut timings = Vec::new();
    for resolved in [&with_katex, &without_katex] {
        worker::Delay::from(std::time::Duration::ZERO).await;
        let start = worker::Date::now().as_millis();
        for _ in 0..iterations {
            std::hint::black_box(crate::markdown::render(&content, resolved));
        }
        worker::Delay::from(std::time::Duration::ZERO).await;
        timings.push((worker::Date::now().as_millis() - start) as f64 / iterations as f64);
    }
    let (katex_ms, plain_ms) = (timings[0], timings[1]);
    Ok(Reply::json(serde_json::json!({
        "content_length": content.chars().count(),
        "html_length": html_length,
        "iterations": iterations,
        "render_ms": katex_ms,
        "render_without_katex_ms": plain_ms,
        "cpu_budget_free_ms": CPU_BUDGET_FREE_MS,
        "cpu_budget_paid_ms": CPU_BUDGET_PAID_MS,
        "share_of_free_budget": katex_ms / CPU_BUDGET_FREE_MS,
        "share_of_paid_budget": katex_ms / CPU_BUDGET_PAID_MS,
    })))
}

fn room(ctx: &RequestContext) -> ApiResult<String> {
    ctx.params.required_str("room")
}

/// # `POST /dev_bench/fan_out/wait`
/// A bare long-poll: held in the Durable Object of `room` until `fan_out/wake`.
pub async fn fan_out_wait(ctx: &RequestContext) -> ApiResult<Reply> {
    crate::platform::event_queues::bench_wait(&ctx.env, &room(ctx)?).await?;
    Ok(Reply::ok())
}

/// # `GET /dev_bench/fan_out/waiting`
/// How many bare long-polls `room` holds: `{"waiting": n}`.
pub async fn fan_out_waiting(ctx: &RequestContext) -> ApiResult<Reply> {
    Ok(Reply::json(crate::platform::event_queues::bench_waiting(&ctx.env, &room(ctx)?).await?))
}

/// # `POST /dev_bench/fan_out/wake`
/// One storage write in `room`, then every held long-poll answers: `{"woken": n}`. With
/// `commit_first=true`, one five-write D1 batch comes first: the least a send commits
/// before its event may exist (a repeated send's one round trip writes the message).
pub async fn fan_out_wake(ctx: &RequestContext) -> ApiResult<Reply> {
    if ctx.params.bool_or("commit_first", false)? {
        five_write_batch(ctx).await?;
    }
    Ok(Reply::json(crate::platform::event_queues::bench_wake(&ctx.env, &room(ctx)?).await?))
}

/// # `GET /dev_bench/fan_out/waiting_polls`
/// How many `GET /events` long-polls wait in the organization's hub and its shards `0..shards`:
/// `{"waiting": n}`.
pub async fn fan_out_waiting_polls(ctx: &RequestContext) -> ApiResult<Reply> {
    let shards = ctx.params.required_int("shards")?.clamp(0, 1000) as u32;
    let realm = ctx.realm().await?;
    let waiting = crate::platform::event_queues::bench_waiting_polls(&ctx.env, realm.id, shards).await?;
    Ok(Reply::json(json!({ "waiting": waiting })))
}
