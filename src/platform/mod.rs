//! The platform under the API: where an organization's data lives ([`directory`]), the
//! isolate's caches ([`realm_cache`], [`remembered_reads`]), and the Durable Objects the
//! worker talks to (rate limits, event queues, the scheduled-message alarm). Nothing here
//! knows an endpoint.

pub mod directory;
pub mod event_queues;
pub mod gzip;
pub mod rate_limits;
pub mod realm_cache;
pub mod remembered_reads;
pub mod scheduler;
