//! `RateLimiter`: one object per rate-limit bucket (a user, an IP address, the failed
//! logins of one account), named by the worker (`rate_limits::Bucket`). Being one object
//! per bucket, wherever the requests land, is what makes a limit hold across isolates and
//! machines.
//!
//! `wrangler.toml`: `[[durable_objects.bindings]] name = "RATE_LIMITER" class_name =
//! "RateLimiter"`, declared in a migration.
//!
//! The window is a log of the times of the requests it counted, kept in memory only: a
//! bucket that sits idle long enough to be evicted has nothing left to remember, and an
//! eviction of a busy one (rare) only lets a client through early; writing storage on every
//! request would cost more than the limit saves.

use std::cell::RefCell;
use std::collections::VecDeque;

use worker::{durable_object, DurableObject, Env, Method, Request, Response, Result, State};

use crate::protocol::{RateLimitCheck, RateLimitDecision, RateLimitRefund};
use crate::storage::{json_response, now_ms};

#[durable_object]
pub struct RateLimiter {
    /// Times (ms) of the counted requests inside the current window, oldest first.
    hits: RefCell<VecDeque<i64>>,
}

impl DurableObject for RateLimiter {
    fn new(_state: State, _env: Env) -> Self {
        RateLimiter { hits: RefCell::new(VecDeque::new()) }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        match (req.method(), req.path().as_str()) {
            (Method::Post, "/check") => {
                let check: RateLimitCheck = req.json().await?;
                json_response(&self.check(&check, now_ms()), 200)
            }
            (Method::Post, "/refund") => {
                let refund: RateLimitRefund = req.json().await?;
                refund_count(&mut self.hits.borrow_mut(), refund.counted_at_ms);
                json_response(&serde_json::json!({}), 200)
            }
            _ => Response::error("no such command", 404),
        }
    }
}

impl RateLimiter {
    /// Counts one request unless the window is full (or `check.count` is false, for a look
    /// before a login attempt that only failures count).
    fn check(&self, check: &RateLimitCheck, now: i64) -> RateLimitDecision {
        let mut hits = self.hits.borrow_mut();
        decide(&mut hits, check, now)
    }
}

/// The sliding-window rule, apart from the object so it can be unit-tested.
fn decide(hits: &mut VecDeque<i64>, check: &RateLimitCheck, now: i64) -> RateLimitDecision {
    let window_ms = check.window_secs as i64 * 1000;
    while hits.front().is_some_and(|&t| t <= now - window_ms) {
        hits.pop_front();
    }
    let allowed = (hits.len() as u32) < check.limit;
    let counted = allowed && check.count;
    if counted {
        hits.push_back(now);
    }
    // The window frees a place when its oldest counted request leaves it.
    let reset_ms = hits.front().map_or(now, |&oldest| oldest + window_ms);
    RateLimitDecision {
        allowed,
        limit: check.limit,
        remaining: check.limit.saturating_sub(hits.len() as u32),
        reset_ms,
        retry_after_ms: if allowed { 0 } else { (reset_ms - now).max(0) },
        counted_at_ms: counted.then_some(now),
    }
}

/// Frees the place a counted request took (one of the requests counted at that time).
fn refund_count(hits: &mut VecDeque<i64>, counted_at_ms: i64) {
    if let Some(at) = hits.iter().rposition(|&t| t == counted_at_ms) {
        hits.remove(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(limit: u32, count: bool) -> RateLimitCheck {
        RateLimitCheck { limit, window_secs: 60, count }
    }

    #[test]
    fn the_request_over_the_limit_is_refused_until_the_oldest_leaves_the_window() {
        let mut hits = VecDeque::new();
        assert!(decide(&mut hits, &check(2, true), 1_000).allowed);
        let second = decide(&mut hits, &check(2, true), 2_000);
        assert!(second.allowed);
        assert_eq!(second.remaining, 0);
        let third = decide(&mut hits, &check(2, true), 3_000);
        assert!(!third.allowed);
        assert_eq!(third.retry_after_ms, 58_000);
        assert_eq!(third.reset_ms, 61_000);
        assert!(decide(&mut hits, &check(2, true), 61_000).allowed, "the first request left the window");
    }

    #[test]
    fn a_refund_frees_the_place_its_request_took() {
        let mut hits = VecDeque::new();
        let first = decide(&mut hits, &check(1, true), 1_000);
        assert_eq!(first.counted_at_ms, Some(1_000));
        assert!(!decide(&mut hits, &check(1, true), 2_000).allowed);
        refund_count(&mut hits, 1_000);
        assert!(decide(&mut hits, &check(1, true), 3_000).allowed, "the refunded place is free again");
        refund_count(&mut hits, 9_999);
        assert_eq!(hits.len(), 1, "a refund of a count that is not there changes nothing");
    }

    #[test]
    fn a_look_counts_nothing() {
        let mut hits = VecDeque::new();
        for _ in 0..5 {
            assert!(decide(&mut hits, &check(1, false), 1_000).allowed);
        }
        assert!(hits.is_empty());
    }
}
