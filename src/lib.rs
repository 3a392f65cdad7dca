//! A Zulip-compatible team-chat server on Cloudflare Workers.
//!
//! Request path: `fetch` (here) -> [`context::RequestContext`] (organization from the Host
//! header, parameters) -> [`routes::dispatch`] (method + path under `/api/v1`) -> a handler in
//! `api/` (authenticates, parses, calls one action) -> an action in `actions/` (D1 writes,
//! events) -> [`response`] (the success or error envelope).

#![recursion_limit = "512"]

pub mod actions;
pub mod api;
pub mod auth;
pub mod context;
pub mod db;
pub mod dev_seed;
pub mod domain;
pub mod emoji;
pub mod error;
pub mod event_types;
pub mod events;
pub mod markdown;
pub mod model;
pub mod params;
pub mod platform;
pub mod request_body;
pub mod response;
pub mod routes;
pub mod secrets;
pub mod settings;

// The Durable Object classes live in their own crate; re-exporting them is what makes the
// worker export the classes that `wrangler.toml` declares.
pub use team_chat_durable_objects::{EventQueueShard, RateLimiter, RealmHub};

use worker::{event, Context, Env, Request, Response, Result};

/// Once per isolate: a panic is logged with its message and place (Workers Logs), not as a
/// bare `unreachable` trap.
#[event(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[event(fetch)]
async fn fetch(req: Request, env: Env, ctx: Context) -> Result<Response> {
    Ok(routes::handle(req, env, ctx).await)
}
