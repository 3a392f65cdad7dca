//! The Durable Objects of the team-chat server.
//!
//! `wrangler.toml`:
//! ```toml
//! [[durable_objects.bindings]]
//! name = "REALM_HUB"
//! class_name = "RealmHub"
//! [[durable_objects.bindings]]
//! name = "EVENT_QUEUE_SHARD"
//! class_name = "EventQueueShard"
//! [[durable_objects.bindings]]
//! name = "RATE_LIMITER"
//! class_name = "RateLimiter"
//! ```

mod delivery;
mod event_queue_shard;
pub mod protocol;
mod queue_book;
mod rate_limiter;
mod realm_hub;
mod storage;

pub use event_queue_shard::EventQueueShard;
pub use rate_limiter::RateLimiter;
pub use realm_hub::RealmHub;
