//! `make bench`: event delivery latency against the platform floor of the same run.
//!
//! Prints, for a private `wrangler dev` on 127.0.0.1 (TEST_SERVER_URL):
//! - the floor: a trivial route, one D1 write, one Durable Object round trip;
//! - the latency from `POST /messages` answering to the message event reaching a waiting
//!   long-poll (median, p99 over MESSAGES messages);
//! - the time until one message has reached every one of 10, 100 and 1000 waiting
//!   long-polls, with a count of lost deliveries (must be 0).
//!
//! Bounded: a fixed number of requests, and every wait has a deadline.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::Value;

const FLOOR_SAMPLES: usize = 200;
const MESSAGES: usize = 200;
const FAN_OUTS: [usize; 3] = [10, 100, 1000];
const DEADLINE: Duration = Duration::from_secs(120);

struct Api {
    base: String,
    agent: ureq::Agent,
}

#[derive(Clone)]
struct User {
    auth: String,
    id: i64,
}

impl Api {
    fn new(base: String, connections: usize) -> Api {
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(90))
            .max_idle_connections(connections)
            .max_idle_connections_per_host(connections)
            .build();
        Api { base, agent }
    }

    fn call(&self, method: &str, path: &str, user: Option<&User>, form: &[(&str, &str)]) -> (u16, Value) {
        let mut req = self.agent.request(method, &format!("{}/api/v1{}", self.base, path));
        if let Some(u) = user {
            req = req.set("Authorization", &u.auth);
        }
        let resp = if method == "GET" {
            for (k, v) in form {
                req = req.query(k, v);
            }
            req.call()
        } else {
            req.send_form(form)
        };
        let resp = match resp {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {path}: {e}"),
        };
        let status = resp.status();
        (status, resp.into_json().unwrap_or(Value::Null))
    }

    fn ok(&self, method: &str, path: &str, user: Option<&User>, form: &[(&str, &str)]) -> Value {
        let (status, body) = self.call(method, path, user, form);
        assert_eq!(status, 200, "{method} {path}: {body}");
        body
    }

    fn login(&self, email: &str) -> User {
        let body = self.ok("POST", "/dev_fetch_api_key", None, &[("username", email)]);
        let key = body["api_key"].as_str().unwrap();
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{email}:{key}"));
        User { auth: format!("Basic {token}"), id: body["user_id"].as_i64().unwrap() }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx]
}

fn summarize(mut ms: Vec<f64>) -> String {
    ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    format!("median {:7.2} ms   p99 {:7.2} ms   (n={})", percentile(&ms, 0.5), percentile(&ms, 0.99), ms.len())
}

fn time_ms(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1000.0
}

fn register(api: &Api, user: &User) -> String {
    let body = api.ok("POST", "/register", Some(user), &[("event_types", r#"["message"]"#), ("fetch_event_types", "[]")]);
    body["queue_id"].as_str().unwrap().to_string()
}

fn main() {
    let base = std::env::var("TEST_SERVER_URL").expect("run through `make bench` (TEST_SERVER_URL)");
    assert!(base.starts_with("http://127.0.0.1:"), "the benchmark only runs against 127.0.0.1");
    let api = Arc::new(Api::new(base.clone(), 64));
    let hamlet = api.login("hamlet@zulip.com");
    let cordelia = api.login("cordelia@zulip.com");
    let to = format!("[{}]", cordelia.id);

    // Warm up every path once.
    api.ok("GET", "/dev_bench/noop", None, &[]);
    api.ok("POST", "/dev_bench/d1_write", None, &[]);
    api.ok("POST", "/dev_bench/durable_object", None, &[]);
    api.ok("POST", "/messages", Some(&hamlet), &[("type", "direct"), ("to", &to), ("content", "warm-up")]);

    println!("platform floor ({FLOOR_SAMPLES} sequential requests each):");
    for (name, method, path) in [
        ("trivial route", "GET", "/dev_bench/noop"),
        ("one D1 write", "POST", "/dev_bench/d1_write"),
        ("one Durable Object round trip", "POST", "/dev_bench/durable_object"),
    ] {
        let samples: Vec<f64> = (0..FLOOR_SAMPLES)
            .map(|_| {
                time_ms(|| {
                    api.ok(method, path, None, &[]);
                })
            })
            .collect();
        println!("  {name:<34} {}", summarize(samples));
    }
    let sends: Vec<f64> = (0..50)
        .map(|_| {
            time_ms(|| {
                api.ok("POST", "/messages", Some(&hamlet), &[("type", "direct"), ("to", &to), ("content", "floor")]);
            })
        })
        .collect();
    println!("  {:<34} {}", "POST /messages (no waiting queue)", summarize(sends));

    message_latency(&api, &hamlet, &cordelia);
    for n in FAN_OUTS {
        fan_out(&base, &api, &hamlet, &cordelia, n);
    }
}

/// POST /messages answered -> the event reaches a long-poll that was waiting.
fn message_latency(api: &Arc<Api>, sender: &User, receiver: &User) {
    let queue_id = register(api, receiver);
    let (tx, rx) = mpsc::channel::<(i64, Instant)>();
    let poller = {
        let (api, receiver, queue_id) = (api.clone(), receiver.clone(), queue_id.clone());
        thread::spawn(move || {
            let mut last = -1i64;
            let mut seen = 0;
            let deadline = Instant::now() + DEADLINE;
            while seen < MESSAGES && Instant::now() < deadline {
                let last_s = last.to_string();
                let body = api.ok("GET", "/events", Some(&receiver), &[("queue_id", &queue_id), ("last_event_id", &last_s)]);
                let arrived = Instant::now();
                for e in body["events"].as_array().unwrap() {
                    last = last.max(e["id"].as_i64().unwrap());
                    if e["type"] == "message" {
                        seen += 1;
                        let _ = tx.send((e["message"]["id"].as_i64().unwrap(), arrived));
                    }
                }
            }
        })
    };
    let to = format!("[{}]", receiver.id);
    let mut latencies = Vec::with_capacity(MESSAGES);
    let mut lost = 0;
    thread::sleep(Duration::from_millis(300));
    for i in 0..MESSAGES {
        let content = format!("latency {i}");
        let body = api.ok("POST", "/messages", Some(sender), &[("type", "direct"), ("to", &to), ("content", &content)]);
        let answered = Instant::now();
        let id = body["id"].as_i64().unwrap();
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok((got, arrived)) if got == id => {
                // Negative: the event reached the poller before the sender read its answer.
                let ms = if arrived >= answered { (arrived - answered).as_secs_f64() } else { -(answered - arrived).as_secs_f64() };
                latencies.push(ms * 1000.0);
            }
            _ => lost += 1,
        }
        // Let the poller go back to waiting before the next message.
        thread::sleep(Duration::from_millis(15));
    }
    poller.join().unwrap();
    api.ok("DELETE", "/events", Some(receiver), &[("queue_id", &queue_id)]);
    println!("message event latency, POST /messages answered -> waiting long-poll answered:");
    println!("  {:<34} {}   lost {lost}", "direct message, 1 queue", summarize(latencies));
}

/// One message; the time until each of `n` waiting long-polls has answered with it.
fn fan_out(base: &str, api: &Arc<Api>, sender: &User, receiver: &User, n: usize) {
    // Register the queues (16 at a time).
    let ids = Arc::new(std::sync::Mutex::new(Vec::with_capacity(n)));
    let next = Arc::new(AtomicUsize::new(0));
    let registrars: Vec<_> = (0..16)
        .map(|_| {
            let (api, receiver, ids, next) = (api.clone(), receiver.clone(), ids.clone(), next.clone());
            thread::spawn(move || {
                while next.fetch_add(1, Ordering::SeqCst) < n {
                    let q = register(&api, &receiver);
                    ids.lock().unwrap().push(q);
                }
            })
        })
        .collect();
    let reg_started = Instant::now();
    for r in registrars {
        r.join().unwrap();
    }
    let reg_ms = reg_started.elapsed().as_secs_f64() * 1000.0;
    let queue_ids: Vec<String> = ids.lock().unwrap().clone();
    let shards: std::collections::BTreeSet<&str> = queue_ids.iter().filter_map(|q| q.split(':').next()).collect();

    // One long-poll per queue, each on its own connection.
    let ready = Arc::new(Barrier::new(n + 1));
    let (tx, rx) = mpsc::channel::<Option<Instant>>();
    let pollers: Vec<_> = queue_ids
        .iter()
        .cloned()
        .map(|queue_id| {
            let (receiver, ready, tx) = (receiver.clone(), ready.clone(), tx.clone());
            let api = Api::new(base.to_string(), 1);
            thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || {
                    ready.wait();
                    let deadline = Instant::now() + DEADLINE;
                    let mut last = -1i64;
                    while Instant::now() < deadline {
                        let last_s = last.to_string();
                        let (status, body) =
                            api.call("GET", "/events", Some(&receiver), &[("queue_id", &queue_id), ("last_event_id", &last_s)]);
                        if status != 200 {
                            break;
                        }
                        let arrived = Instant::now();
                        for e in body["events"].as_array().unwrap() {
                            last = last.max(e["id"].as_i64().unwrap());
                            if e["type"] == "message" {
                                let _ = tx.send(Some(arrived));
                                return;
                            }
                        }
                    }
                    let _ = tx.send(None);
                })
                .unwrap()
        })
        .collect();
    drop(tx);
    ready.wait();
    // Give every long-poll time to reach its shard and wait there.
    thread::sleep(Duration::from_millis(500 + 3 * n as u64));
    let to = format!("[{}]", receiver.id);
    // A fresh connection: a pooled one may have been closed by the server while idle.
    let fresh = Api::new(base.to_string(), 0);
    let sent = Instant::now();
    fresh.ok("POST", "/messages", Some(sender), &[("type", "direct"), ("to", &to), ("content", &format!("fan-out to {n}"))]);
    let answered = sent.elapsed().as_secs_f64() * 1000.0;
    let mut last_arrival = sent;
    let mut delivered = 0;
    for at in rx.iter().take(n).flatten() {
        delivered += 1;
        last_arrival = last_arrival.max(at);
    }
    for p in pollers {
        let _ = p.join();
    }
    let all_ms = (last_arrival - sent).as_secs_f64() * 1000.0;
    println!(
        "fan-out to {n:>4} waiting long-polls ({} shard{}): POST /messages answered in {answered:7.1} ms, all {delivered}/{n} delivered after {all_ms:7.1} ms, lost {}   (registering the queues took {reg_ms:.0} ms)",
        shards.len(),
        if shards.len() == 1 { "" } else { "s" },
        n - delivered
    );
    // Clean up, 16 at a time.
    let next = Arc::new(AtomicUsize::new(0));
    let queue_ids = Arc::new(queue_ids);
    let cleaners: Vec<_> = (0..16)
        .map(|_| {
            let (api, receiver, queue_ids, next) = (api.clone(), receiver.clone(), queue_ids.clone(), next.clone());
            thread::spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= queue_ids.len() {
                    break;
                }
                api.call("DELETE", "/events", Some(&receiver), &[("queue_id", &queue_ids[i])]);
            })
        })
        .collect();
    for c in cleaners {
        c.join().unwrap();
    }
    let _ = sender;
}
