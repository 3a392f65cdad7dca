//! `make bench`: every performance figure of the server beside its platform floor, measured
//! in the same run against a private `wrangler dev` on 127.0.0.1 (TEST_SERVER_URL), as a
//! ratio.
//!
//! Floors: a second, bare worker (examples/bare-worker, no request context, started here
//! on its own `wrangler dev`) for one D1 read, one D1 read of 100 rows and one
//! 5-statement D1 write batch; the server's development-only `dev_bench` routes for N bare
//! long-polls held in ONE Durable Object woken by one storage write. Cold start: a fresh
//! `wrangler dev` of each, on a copy of its state, up to its first answer.
//!
//! Throughput figures are the median of [`ROUNDS`] rounds of at most [`ROUND_REQUESTS`]
//! requests or [`ROUND_TIME`] each; fan-out figures the median of [`fan_out_rounds`]
//! messages, whose rounds take turns with their floors' rounds. A benchmark, not a test:
//! no figure fails the run; only a server error does.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::Value;

mod workers;
use workers::{Served, BARE_CONFIG};

const ROUNDS: usize = 3;
const ROUND_REQUESTS: usize = 300;
const ROUND_TIME: Duration = Duration::from_secs(3);
const REGISTER_ALONE: usize = 15;
const REGISTRATIONS: usize = 1000;
const REGISTER_CONCURRENCY: usize = 16;
const FAN_OUTS: [usize; 3] = [10, 100, 1000];
/// Sends of each kind in the notified-send figure, and the pause after each, longer than
/// a send's after-work takes here.
const NOTIFIED_SENDS: usize = 15;
const AFTER_WORK_GAP: Duration = Duration::from_millis(400);
/// The most long-polls one local Durable Object holds without its runtime restarting it.
const MAX_FLOOR_POLLS: usize = 1000;
/// The load figures: connections at once, and how long and how many requests at most.
const LOAD_CONCURRENCY: usize = 64;
const LOAD_TIME: Duration = Duration::from_secs(10);
const LOAD_REQUESTS: usize = 20_000;
const DEADLINE: Duration = Duration::from_secs(120);
/// Fresh `wrangler dev` processes of each worker in the cold-start figure.
const COLD_STARTS: usize = 3;

/// How many messages a fan-out figure is the median of. One message to 10 polls takes
/// 10–40 ms here, and the machine's scheduling moves it by several ms, so small fan-outs
/// take many (a round of 10 costs well under a second); at N = 1000 one message takes a
/// second and moves by a third.
fn fan_out_rounds(n: usize) -> usize {
    match n {
        0..=10 => 45,
        11..=100 => 15,
        101..=1000 => 5,
        _ => 3,
    }
}

/// Bare long-polls the platform refused (and the bench repeated), reported with the floor.
static REFUSED: AtomicUsize = AtomicUsize::new(0);

struct Api {
    base: String,
    agent: ureq::Agent,
}

#[derive(Clone)]
struct User {
    auth: String,
    id: i64,
}

/// One request of a measured figure.
#[derive(Clone)]
struct Call {
    method: &'static str,
    path: String,
    user: Option<User>,
    form: Vec<(String, String)>,
}

impl Call {
    fn new(method: &'static str, path: impl Into<String>, user: Option<&User>, form: &[(&str, &str)]) -> Call {
        Call { method, path: path.into(), user: user.cloned(), form: form.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect() }
    }
}

impl Api {
    fn new(base: &str, connections: usize) -> Api {
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(90))
            .max_idle_connections(connections)
            .max_idle_connections_per_host(connections)
            .build();
        Api { base: base.to_string(), agent }
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
            // A refused or reset connection (the platform sheds a burst of connections).
            Err(e) => return (0, Value::String(format!("{method} {path}: {e}"))),
        };
        let status = resp.status();
        let text = resp.into_string().unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    fn ok(&self, method: &str, path: &str, user: Option<&User>, form: &[(&str, &str)]) -> Value {
        let (status, body) = self.call(method, path, user, form);
        assert_eq!(status, 200, "{method} {path}: {body}");
        body
    }

    fn run(&self, call: &Call) -> Value {
        let form: Vec<(&str, &str)> = call.form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        self.ok(call.method, &call.path, call.user.as_ref(), &form)
    }

    fn login(&self, email: &str) -> User {
        let body = self.ok("POST", "/dev_fetch_api_key", None, &[("username", email)]);
        let key = body["api_key"].as_str().unwrap();
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{email}:{key}"));
        User { auth: format!("Basic {token}"), id: body["user_id"].as_i64().unwrap() }
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    if values.is_empty() {
        f64::NAN
    } else {
        values[values.len() / 2]
    }
}

/// Throughput and latency of one request at a concurrency.
#[derive(Clone, Copy)]
struct Rate {
    per_sec: f64,
    p50_ms: f64,
}

/// One run of `call` from [`LOAD_CONCURRENCY`] connections for [`LOAD_TIME`] (at most
/// [`LOAD_REQUESTS`]): the rate of successes, the p99 of every answer, the failures.
struct Load {
    per_sec: f64,
    p99_ms: f64,
    errors: usize,
    /// The first failure's status and answer, shown with the figure.
    first_error: Option<String>,
}

fn load(base: &str, call: &Call) -> Load {
    let next = Arc::new(AtomicUsize::new(0));
    let answers = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let workers: Vec<_> = (0..LOAD_CONCURRENCY)
        .map(|_| {
            let (next, answers, call) = (next.clone(), answers.clone(), call.clone());
            let api = Api::new(base, 1);
            thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || {
                    let form: Vec<(&str, &str)> = call.form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                    while next.fetch_add(1, Ordering::SeqCst) < LOAD_REQUESTS && started.elapsed() < LOAD_TIME {
                        let t = Instant::now();
                        let (status, body) = api.call(call.method, &call.path, call.user.as_ref(), &form);
                        let error = (status != 200).then(|| format!("{status} {}", body.to_string().chars().take(200).collect::<String>()));
                        answers.lock().unwrap().push((status, t.elapsed().as_secs_f64() * 1000.0, error));
                    }
                })
                .unwrap()
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let answers = answers.lock().unwrap().clone();
    let mut times: Vec<f64> = answers.iter().map(|(_, ms, _)| *ms).collect();
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let p99_ms = times.get((times.len() * 99 / 100).min(times.len().saturating_sub(1))).copied().unwrap_or(f64::NAN);
    let errors = answers.iter().filter(|(status, _, _)| *status != 200).count();
    let first_error = answers.iter().find_map(|(_, _, error)| error.clone());
    Load { per_sec: (answers.len() - errors) as f64 / elapsed, p99_ms, errors, first_error }
}

/// `call` under [`LOAD_CONCURRENCY`] connections beside its floor under the same load.
fn load_figure(server: (&str, &Call), name: &str, floor: (&str, &Call), floor_name: &str) -> Figure {
    let server = load(server.0, server.1);
    let bare = load(floor.0, floor.1);
    Figure {
        name: format!("{name} (c={LOAD_CONCURRENCY}, {} s)", LOAD_TIME.as_secs()),
        server: format!(
            "{:.0} req/s, p99 {:.0} ms, {} errors{}",
            server.per_sec,
            server.p99_ms,
            server.errors,
            server.first_error.map(|e| format!(" (first: {e})")).unwrap_or_default()
        ),
        floor: format!("{floor_name}: {:.0} req/s, p99 {:.0} ms, {} errors", bare.per_sec, bare.p99_ms, bare.errors),
        ratio: server.per_sec / bare.per_sec,
        goal: "rate / floor ≥ 0.5, no error",
    }
}

/// Medians over [`ROUNDS`] rounds of `call` from `concurrency` connections at once.
fn rate(base: &str, concurrency: usize, call: &Call) -> Rate {
    let mut rates = Vec::new();
    let mut p50s = Vec::new();
    for _ in 0..ROUNDS {
        let next = Arc::new(AtomicUsize::new(0));
        let latencies = Arc::new(Mutex::new(Vec::new()));
        let started = Instant::now();
        let workers: Vec<_> = (0..concurrency)
            .map(|_| {
                let (next, latencies, call) = (next.clone(), latencies.clone(), call.clone());
                let api = Api::new(base, 1);
                thread::spawn(move || {
                    while next.fetch_add(1, Ordering::SeqCst) < ROUND_REQUESTS && started.elapsed() < ROUND_TIME {
                        let t = Instant::now();
                        api.run(&call);
                        latencies.lock().unwrap().push(t.elapsed().as_secs_f64() * 1000.0);
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let elapsed = started.elapsed().as_secs_f64();
        let latencies = latencies.lock().unwrap().clone();
        rates.push(latencies.len() as f64 / elapsed);
        p50s.push(median(latencies));
    }
    Rate { per_sec: median(rates), p50_ms: median(p50s) }
}

/// Runs `count` calls, `concurrency` at a time; answers the total time in ms.
fn total_ms(count: usize, concurrency: usize, each: impl Fn(&Api) + Send + Sync + 'static, base: &str) -> f64 {
    let next = Arc::new(AtomicUsize::new(0));
    let each = Arc::new(each);
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (next, each) = (next.clone(), each.clone());
            let api = Api::new(base, 1);
            thread::spawn(move || {
                while next.fetch_add(1, Ordering::SeqCst) < count {
                    each(&api);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    started.elapsed().as_secs_f64() * 1000.0
}

/// One line of the table.
struct Figure {
    name: String,
    server: String,
    floor: String,
    ratio: f64,
    /// How the ratio is formed (rates and times are both server / floor, so 1 is the
    /// floor: a rate below it, a time above it) and the issue's goal for it.
    goal: &'static str,
}

fn row(f: &Figure) -> String {
    format!("| {} | {} | {} | {:.2} | {} |", f.name, f.server, f.floor, f.ratio, f.goal)
}

/// Adds a figure, and prints it at once (a run cut short keeps what it measured).
fn push(figures: &mut Vec<Figure>, figure: Figure) {
    eprintln!("{}", row(&figure));
    figures.push(figure);
}

fn print_table(figures: &[Figure]) {
    println!();
    println!("| figure | this server | floor | ratio | goal |");
    println!("|---|---|---|---|---|");
    for f in figures {
        println!("{}", row(f));
    }
}

fn main() {
    let base = std::env::var("TEST_SERVER_URL").expect("run through `make bench` (TEST_SERVER_URL)");
    assert!(base.starts_with("http://127.0.0.1:"), "the benchmark only runs against 127.0.0.1");
    let api = Arc::new(Api::new(&base, 64));
    let hamlet = api.login("hamlet@zulip.com");
    let cordelia = api.login("cordelia@zulip.com");
    let othello = api.login("othello@zulip.com");
    let mut figures = Vec::new();

    // A channel of 12 subscribers (not cordelia, whose queues the fan-out counts).
    let channel_name = format!("bench {}", std::process::id());
    let mut subscribers = vec![hamlet.id, othello.id];
    for email in [
        "iago@zulip.com",
        "shiva@zulip.com",
        "prospero@zulip.com",
        "aaron@zulip.com",
        "extrauser0@zulip.com",
        "extrauser1@zulip.com",
        "extrauser2@zulip.com",
        "extrauser3@zulip.com",
        "extrauser4@zulip.com",
        "extrauser5@zulip.com",
    ] {
        subscribers.push(api.login(email).id);
    }
    let subscriptions = serde_json::json!([{ "name": channel_name }]).to_string();
    let principals = serde_json::json!(subscribers).to_string();
    api.ok("POST", "/users/me/subscriptions", Some(&hamlet), &[("subscriptions", &subscriptions), ("principals", &principals)]);
    let channel_id = api.ok("GET", "/get_stream_id", Some(&hamlet), &[("stream", &channel_name)])["stream_id"].as_i64().unwrap();
    let send = Call::new(
        "POST",
        "/messages",
        Some(&hamlet),
        &[("type", "stream"), ("to", &channel_id.to_string()), ("topic", "bench"), ("content", "A benchmark message.")],
    );
    // At least 100 messages in the channel, and every path warm.
    let mut message_id = 0;
    for _ in 0..110 {
        message_id = api.run(&send)["id"].as_i64().unwrap();
    }
    let mut bare = Served::start(Some(BARE_CONFIG), workers::state_dir("bare"));
    bare.first_answer("/api/v1/noop", None);
    let floor = bare.url.clone();
    let floor_api = Api::new(&floor, 1);
    floor_api.ok("POST", "/setup", None, &[]);
    for path in ["/d1_read", "/d1_read_rows"] {
        floor_api.ok("GET", path, None, &[]);
    }
    floor_api.ok("POST", "/d1_batch", None, &[]);

    // `BENCH_ONLY=fan_out`, `search`, `register`, `notified_send`, `load`, `requests` (the
    // request, register and load figures) or `cold_start`: only those figures.
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    if only == "cold_start" {
        cold_start_figures(&bare, &hamlet, &mut figures);
        print_table(&figures);
        return;
    }
    if only == "requests" {
        request_figures(&base, &floor, &api, &[&hamlet, &othello], channel_id, message_id, &send, &mut figures);
        print_table(&figures);
        return;
    }
    if only == "load" {
        load_figures(&base, &floor, &hamlet, message_id, &send, &mut figures);
        print_table(&figures);
        return;
    }
    if only == "notified_send" {
        notified_send_figure(&base, &api, &[&hamlet, &othello], channel_id, &send, &mut figures);
        print_table(&figures);
        return;
    }
    if only == "register" {
        let reads_ms = register_figures(&floor, &api, &othello, &mut figures);
        let server = ServerFanOut::register(&base, &hamlet, &cordelia, REGISTRATIONS);
        let registered_ms = server.registered_ms;
        server.delete(&base);
        figures.push(registrations_figure(registered_ms, reads_ms));
        print_table(&figures);
        return;
    }
    if only == "search" {
        search_figures(&base, &api, &hamlet, &mut figures);
        print_table(&figures);
        return;
    }
    let only_fan_out = only == "fan_out";
    let reads_ms = if only_fan_out {
        f64::NAN
    } else {
        eprintln!("measuring reads ...");
        cold_start_figures(&bare, &hamlet, &mut figures);
        request_figures(&base, &floor, &api, &[&hamlet, &othello], channel_id, message_id, &send, &mut figures)
    };

    if !only_fan_out {
        search_figures(&base, &api, &hamlet, &mut figures);
    }

    eprintln!("measuring fan-out ...");
    let mut registrations_ms = None;
    // `BENCH_FAN_OUTS=2000,5000`: other sizes (with BENCH_ONLY=fan_out, for docs/scaling.md).
    let fan_outs: Vec<usize> = match std::env::var("BENCH_FAN_OUTS") {
        Ok(list) => list.split(',').map(|n| n.trim().parse().expect("BENCH_FAN_OUTS: numbers")).collect(),
        Err(_) => FAN_OUTS.to_vec(),
    };
    for &n in &fan_outs {
        let mut server = ServerFanOut::register(&base, &hamlet, &cordelia, n);
        let (mut floors, mut committed_floors, mut sends) = (Vec::new(), Vec::new(), Vec::new());
        // The three take turns, each round starting with the next, so that the machine's
        // drift over the run (and the first place in a round) falls on each alike.
        // Past MAX_FLOOR_POLLS the floor's one object is restarted by the local runtime; the
        // server's own time is still measured.
        let with_floor = n <= MAX_FLOOR_POLLS;
        for round in 0..fan_out_rounds(n) {
            for turn in 0..3 {
                match (round + turn) % 3 {
                    0 if with_floor => floors.push(fan_out_floor(&base, n, false, round)),
                    1 if with_floor => committed_floors.push(fan_out_floor(&base, n, true, round)),
                    0 | 1 => {}
                    _ => sends.push(server.round(&base, round)),
                }
            }
        }
        let (floor, committed_floor, project) = (median(floors), median(committed_floors), median(sends));
        let (lost, reg_ms, shards) = (server.lost, server.registered_ms, server.shards);
        server.delete(&base);
        if n == REGISTRATIONS {
            registrations_ms = Some(reg_ms);
        }
        push(
            &mut figures,
            Figure {
                name: format!("one message to {n} waiting long-polls, all delivered ({})", homes(shards)),
                server: format!("{project:.0} ms, lost {lost}"),
                floor: format!("{n} long-polls in ONE Durable Object, one write: {floor:.0} ms"),
                ratio: project / floor,
                goal: "time / floor ≤ 1.3, lost 0",
            },
        );
        // What this send cannot beat: its message commits in D1 before its event exists.
        push(
            &mut figures,
            Figure {
                name: format!("the same floor behind the least a send commits first (one 5-write D1 batch), N = {n}"),
                server: format!("{committed_floor:.0} ms"),
                floor: format!("{n} long-polls in ONE Durable Object, one write: {floor:.0} ms"),
                ratio: committed_floor / floor,
                goal: "time / floor (context)",
            },
        );
    }
    if let Some(reg_ms) = registrations_ms {
        figures.insert(figures.len() - 2 * fan_outs.len(), registrations_figure(reg_ms, reads_ms));
    }
    // Last: its after-work (pushes, emails due later) would run into the figures after it.
    if !only_fan_out {
        notified_send_figure(&base, &api, &[&hamlet, &othello], channel_id, &send, &mut figures);
    }
    print_table(&figures);
}

fn registrations_figure(reg_ms: f64, reads_ms: f64) -> Figure {
    Figure {
        name: format!("{REGISTRATIONS} × `POST /register` (message events), {REGISTER_CONCURRENCY} at a time"),
        server: format!("{:.1} s", reg_ms / 1000.0),
        floor: format!("{REGISTRATIONS} one-D1-read requests, {REGISTER_CONCURRENCY} at a time: {:.1} s", reads_ms / 1000.0),
        ratio: reg_ms / reads_ms,
        goal: "time / floor ≤ 1.5",
    }
}

/// The request figures; answers the time of [`REGISTRATIONS`] one-read requests, the floor
/// of the registration figure that the fan-out measures.
#[allow(clippy::too_many_arguments)]
fn request_figures(
    base: &str,
    floor: &str,
    api: &Api,
    users: &[&User; 2],
    channel_id: i64,
    message_id: i64,
    send: &Call,
    figures: &mut Vec<Figure>,
) -> f64 {
    let [hamlet, othello] = *users;
    let base = base.to_string();
    let d1_read = rate(floor, 1, &Call::new("GET", "/d1_read", None, &[]));
    let me = rate(&base, 1, &Call::new("GET", "/users/me", Some(hamlet), &[]));
    push(
        figures,
        Figure {
            name: "`GET /users/me` (c=1)".into(),
            server: format!("{:.0} req/s", me.per_sec),
            floor: format!("one D1 read: {:.0} req/s", d1_read.per_sec),
            ratio: me.per_sec / d1_read.per_sec,
            goal: "rate / floor",
        },
    );
    let one = rate(&base, 1, &Call::new("GET", format!("/messages/{message_id}"), Some(hamlet), &[]));
    push(
        figures,
        Figure {
            name: "`GET /messages/{id}` (c=1)".into(),
            server: format!("{:.0} req/s, p50 {:.1} ms", one.per_sec, one.p50_ms),
            floor: format!("one D1 read: {:.0} req/s, p50 {:.1} ms", d1_read.per_sec, d1_read.p50_ms),
            ratio: one.per_sec / d1_read.per_sec,
            goal: "rate / floor ≥ 0.8",
        },
    );
    let rows = rate(floor, 1, &Call::new("GET", "/d1_read_rows", None, &[]));
    let narrow = serde_json::json!([{ "operator": "channel", "operand": channel_id }]).to_string();
    let window = rate(
        &base,
        1,
        &Call::new(
            "GET",
            "/messages",
            Some(hamlet),
            &[("anchor", "newest"), ("num_before", "100"), ("num_after", "0"), ("narrow", &narrow)],
        ),
    );
    push(
        figures,
        Figure {
            name: "`GET /messages`, newest 100 of a channel (c=1)".into(),
            server: format!("{:.0} req/s", window.per_sec),
            floor: format!("one D1 read of 100 rows: {:.0} req/s", rows.per_sec),
            ratio: window.per_sec / rows.per_sec,
            goal: "rate / floor ≥ 0.7",
        },
    );

    eprintln!("measuring writes ...");
    for concurrency in [1, 8] {
        let batch = rate(floor, concurrency, &Call::new("POST", "/d1_batch", None, &[]));
        let sends = rate(&base, concurrency, send);
        push(
            figures,
            Figure {
                name: format!("`POST /messages` to a 12-subscriber channel (c={concurrency})"),
                server: format!("{:.0} req/s", sends.per_sec),
                floor: format!("one 5-statement D1 batch: {:.0} req/s", batch.per_sec),
                ratio: sends.per_sec / batch.per_sec,
                goal: "rate / floor ≥ 0.6",
            },
        );
    }

    let reads_ms = register_figures(floor, api, othello, figures);
    load_figures(&base, floor, hamlet, message_id, send, figures);
    reads_ms
}

/// Fetch and send under [`LOAD_CONCURRENCY`] connections, each beside its floor.
fn load_figures(base: &str, floor: &str, hamlet: &User, message_id: i64, send: &Call, figures: &mut Vec<Figure>) {
    eprintln!("measuring load ...");
    let fetch = Call::new("GET", format!("/messages/{message_id}"), Some(hamlet), &[]);
    let d1_read = Call::new("GET", "/d1_read", None, &[]);
    push(figures, load_figure((base, &fetch), "`GET /messages/{id}`", (floor, &d1_read), "one D1 read"));
    let batch = Call::new("POST", "/d1_batch", None, &[]);
    push(figures, load_figure((base, send), "`POST /messages` to a 12-subscriber channel", (floor, &batch), "one 5-statement D1 batch"));
}

/// A send that mentions an outgoing-webhook bot and an offline subscriber with a phone
/// (a push notification and a missed-message email to schedule), beside the plain send in
/// the same sitting: what those features do happens after the answer, so both should cost
/// the same.
fn notified_send_figure(base: &str, api: &Api, users: &[&User; 2], channel_id: i64, plain: &Call, figures: &mut Vec<Figure>) {
    let [hamlet, othello] = *users;
    let pid = std::process::id();
    let bot_name = format!("Bench hook {pid}");
    let short_name = format!("benchhook{pid}");
    let payload_url = serde_json::json!(webhook_receiver()).to_string();
    let bot = api.ok(
        "POST",
        "/bots",
        Some(hamlet),
        &[("full_name", &bot_name), ("short_name", &short_name), ("bot_type", "3"), ("payload_url", &payload_url), ("interface_type", "1")],
    );
    let bot_id = bot["user_id"].as_i64().unwrap();
    let subscriptions =
        serde_json::json!([{ "name": api.ok("GET", &format!("/streams/{channel_id}"), Some(hamlet), &[])["stream"]["name"] }]).to_string();
    api.ok("POST", "/users/me/subscriptions", Some(hamlet), &[("subscriptions", &subscriptions), ("principals", &format!("[{bot_id}]"))]);
    api.ok("POST", "/users/me/android_gcm_reg_id", Some(othello), &[("token", &format!("bench-phone-{pid}"))]);
    let content = format!("@**Othello, the Moor of Venice|{}** and @**{bot_name}|{bot_id}**: a benchmark message.", othello.id);
    let notified = Call::new(
        "POST",
        "/messages",
        Some(hamlet),
        &[("type", "stream"), ("to", &channel_id.to_string()), ("topic", "bench"), ("content", &content)],
    );
    // The send's own cost: each send alone, after the previous one's after-work is done,
    // taking turns so that the machine's drift falls on both alike.
    let (mut plain_ms, mut notified_ms) = (Vec::new(), Vec::new());
    for _ in 0..NOTIFIED_SENDS {
        for (call, times) in [(plain, &mut plain_ms), (&notified, &mut notified_ms)] {
            let t = Instant::now();
            api.run(call);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            thread::sleep(AFTER_WORK_GAP);
        }
    }
    let (plain_p50, notified_p50) = (median(plain_ms), median(notified_ms));
    push(
        figures,
        Figure {
            name: "`POST /messages` mentioning an outgoing-webhook bot and an offline user with a phone, alone".into(),
            server: format!("p50 {notified_p50:.1} ms"),
            floor: format!("the same send without them: p50 {plain_p50:.1} ms"),
            ratio: notified_p50 / plain_p50,
            goal: "time / floor ≈ 1 (within noise)",
        },
    );
    // Back to back, their after-work (the webhook's call, the push, the email's scheduling)
    // shares this one-process runtime with the next sends.
    let (plain_rate, notified_rate) = (rate(base, 1, plain).per_sec, rate(base, 1, &notified).per_sec);
    push(
        figures,
        Figure {
            name: "the same sends back to back (c=1), after-work included".into(),
            server: format!("{notified_rate:.0} req/s"),
            floor: format!("the same send without them: {plain_rate:.0} req/s"),
            ratio: notified_rate / plain_rate,
            goal: "rate / floor (context)",
        },
    );
}

/// A loopback receiver for the outgoing webhook (a service outside the project): it answers
/// every request at once with an empty JSON object, which asks for no reply; its URL.
fn webhook_receiver() -> String {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut length = 0;
            let mut line = String::new();
            while reader.read_line(&mut line).map(|n| n > 2).unwrap_or(false) {
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
                line.clear();
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let _ = reader
                .get_mut()
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
        }
    });
    url
}

/// `POST /register` alone (full state) beside one D1 read; answers the time of
/// [`REGISTRATIONS`] one-read requests, the floor of the registration figure.
fn register_figures(floor: &str, api: &Api, othello: &User, figures: &mut Vec<Figure>) -> f64 {
    let d1_read = rate(floor, 1, &Call::new("GET", "/d1_read", None, &[]));
    eprintln!("measuring registration ...");
    // Full state (no event_types, no fetch_event_types), one at a time; othello's queues
    // are deleted at once so that they receive nothing later.
    let mut alone = Vec::new();
    for _ in 0..REGISTER_ALONE {
        let t = Instant::now();
        let body = api.ok("POST", "/register", Some(othello), &[]);
        alone.push(t.elapsed().as_secs_f64() * 1000.0);
        api.ok("DELETE", "/events", Some(othello), &[("queue_id", body["queue_id"].as_str().unwrap())]);
    }
    let alone = median(alone);
    push(
        figures,
        Figure {
            name: "`POST /register`, full state, alone".into(),
            server: format!("p50 {alone:.1} ms"),
            floor: format!("one D1 read: p50 {:.1} ms", d1_read.p50_ms),
            ratio: alone / d1_read.p50_ms,
            goal: "time / floor ≤ 2",
        },
    );
    total_ms(
        REGISTRATIONS,
        REGISTER_CONCURRENCY,
        |api| {
            api.ok("GET", "/d1_read", None, &[]);
        },
        floor,
    )
}

/// A fresh isolate's first answer: a new `wrangler dev` of the server (on a copy of the
/// running server's state) up to its first `GET /users/me`, beside a new `wrangler dev` of
/// the bare worker up to its first D1 read, taking turns; and both bundles.
fn cold_start_figures(bare: &Served, hamlet: &User, figures: &mut Vec<Figure>) {
    eprintln!("measuring cold starts ...");
    let server_state = std::path::PathBuf::from(std::env::var("TEST_SERVER_STATE").expect("run through `make bench` (TEST_SERVER_STATE)"));
    // The running servers idle (a send's after-work done) while their state is copied.
    thread::sleep(AFTER_WORK_GAP);
    // (configuration, state to copy, the first request, its authorization)
    let server = (None, server_state.as_path(), "/api/v1/users/me", Some(hamlet.auth.as_str()));
    let floor = (Some(BARE_CONFIG), bare.state(), "/api/v1/d1_read", None);
    let (mut server_first, mut server_request, mut bare_first, mut bare_request) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..COLD_STARTS {
        for turn in 0..2 {
            let ((config, state, path, auth), firsts, requests) = if (round + turn) % 2 == 0 {
                (server, &mut server_first, &mut server_request)
            } else {
                (floor, &mut bare_first, &mut bare_request)
            };
            let (first, request) = Served::start(config, workers::copy_state(state, "cold")).first_answer(path, auth);
            firsts.push(first.as_secs_f64() * 1000.0);
            requests.push(request.as_secs_f64() * 1000.0);
        }
    }
    let (server_first, bare_first) = (median(server_first), median(bare_first));
    push(
        figures,
        Figure {
            name: format!("cold start: a new `wrangler dev` to its first `GET /users/me` (median of {COLD_STARTS})"),
            server: format!("{server_first:.0} ms"),
            floor: format!("the bare worker to its first D1 read: {bare_first:.0} ms"),
            ratio: server_first / bare_first,
            goal: "time / floor ≤ 2",
        },
    );
    let (server_request, bare_request) = (median(server_request), median(bare_request));
    push(
        figures,
        Figure {
            name: "cold start: that first request alone".into(),
            server: format!("{server_request:.1} ms"),
            floor: format!("the bare worker's: {bare_request:.1} ms"),
            ratio: server_request / bare_request,
            goal: "time / floor (context)",
        },
    );
    let ((server_kib, server_gzip), (bare_kib, bare_gzip)) = (workers::bundle_kib(None), workers::bundle_kib(Some(BARE_CONFIG)));
    push(
        figures,
        Figure {
            name: "worker bundle (`wrangler deploy --dry-run`)".into(),
            server: format!("{server_kib:.0} KiB, gzip {server_gzip:.0} KiB"),
            floor: format!("the bare worker: {bare_kib:.0} KiB, gzip {bare_gzip:.0} KiB"),
            ratio: server_gzip / bare_gzip,
            goal: "gzip / floor's (context); gzip ≤ 1,536 KiB",
        },
    );
}

/// What each poller reports: its index, when it answered, what it found.
type Answers<T> = mpsc::Receiver<(usize, Instant, T)>;

/// `n` threads, each holding one long-poll on its own connection.
fn spawn_pollers<T: Send + 'static>(
    n: usize,
    poll: impl Fn(usize, &Api) -> T + Send + Sync + 'static,
    base: &str,
) -> (Vec<thread::JoinHandle<()>>, Answers<T>) {
    let ready = Arc::new(Barrier::new(n + 1));
    let poll = Arc::new(poll);
    let (tx, rx) = mpsc::channel();
    let pollers = (0..n)
        .map(|i| {
            let (ready, tx, poll) = (ready.clone(), tx.clone(), poll.clone());
            let api = Api::new(base, 1);
            thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || {
                    ready.wait();
                    // Connections open over half a second, not in one burst.
                    thread::sleep(Duration::from_micros(500 * i as u64));
                    let value = poll(i, &api);
                    let _ = tx.send((i, Instant::now(), value));
                })
                .unwrap()
        })
        .collect();
    ready.wait();
    (pollers, rx)
}

/// One round of the floor: `n` bare long-polls held in one Durable Object, woken by one
/// storage write (with `commit_first`, behind one five-write D1 batch); the
/// time from the wake to the last answer.
fn fan_out_floor(base: &str, n: usize, commit_first: bool, round: usize) -> f64 {
    let api = Api::new(base, 1);
    let room = format!("{}-{n}-{round}-{commit_first}", std::process::id());
    let path_room = room.clone();
    let (pollers, rx) = spawn_pollers(
        n,
        move |_, api| {
            // A refused wait (the platform sheds load under a busy machine) is retried:
            // the floor counts only held long-polls.
            let deadline = Instant::now() + DEADLINE;
            while api.call("POST", "/dev_bench/fan_out/wait", None, &[("room", &path_room)]).0 != 200 && Instant::now() < deadline {
                REFUSED.fetch_add(1, Ordering::SeqCst);
                thread::sleep(Duration::from_millis(50));
            }
        },
        base,
    );
    let deadline = Instant::now() + DEADLINE;
    while api.ok("GET", "/dev_bench/fan_out/waiting", None, &[("room", &room)])["waiting"].as_u64() != Some(n as u64) {
        assert!(Instant::now() < deadline, "the bare long-polls did not all arrive");
        thread::sleep(Duration::from_millis(20));
    }
    let sent = Instant::now();
    let commit_first_s = commit_first.to_string();
    Api::new(base, 0).ok("POST", "/dev_bench/fan_out/wake", None, &[("room", &room), ("commit_first", &commit_first_s)]);
    let answered = sent.elapsed();
    let arrivals: Vec<Instant> = rx.iter().take(n).map(|(_, at, ())| at).collect();
    let first = arrivals.iter().min().copied().unwrap_or(sent);
    let last = arrivals.iter().max().copied().unwrap_or(sent);
    for p in pollers {
        p.join().unwrap();
    }
    eprintln!(
        "  floor n={n}{}: wake answered {:.1} ms, first long-poll {:.1} ms, last {:.1} ms (refused and repeated so far: {})",
        if commit_first { " (commit first)" } else { "" },
        answered.as_secs_f64() * 1000.0,
        (first - sent).as_secs_f64() * 1000.0,
        (last - sent).as_secs_f64() * 1000.0,
        REFUSED.load(Ordering::SeqCst)
    );
    (last - sent).as_secs_f64() * 1000.0
}

/// Where a fan-out's queues live: the hub holds the organization's first queues.
fn homes(shards: usize) -> String {
    match shards {
        0 => "queues in the hub".to_string(),
        1 => "queues in the hub and 1 shard".to_string(),
        n => format!("queues in the hub and {n} shards"),
    }
}

fn register(api: &Api, user: &User) -> String {
    let body = api.ok("POST", "/register", Some(user), &[("event_types", r#"["message"]"#), ("fetch_event_types", "[]")]);
    body["queue_id"].as_str().unwrap().to_string()
}

/// The server's side of a fan-out: `n` queues of the receiver, registered 16 at a time,
/// each with a long-poll waiting for the sender's direct message in every round.
struct ServerFanOut {
    sender: User,
    receiver: User,
    n: usize,
    queue_ids: Arc<Vec<String>>,
    /// The last event id each queue's poller has seen.
    last_ids: Arc<Mutex<Vec<i64>>>,
    /// How long registering the queues took.
    registered_ms: f64,
    /// Shards holding the queues, besides the hub.
    shards: usize,
    /// Deliveries lost, over all rounds.
    lost: usize,
}

impl ServerFanOut {
    fn register(base: &str, sender: &User, receiver: &User, n: usize) -> ServerFanOut {
        let ids = Arc::new(Mutex::new(Vec::with_capacity(n)));
        let (receiver_for_register, ids_for_register) = (receiver.clone(), ids.clone());
        let registered_ms = total_ms(
            n,
            REGISTER_CONCURRENCY,
            move |api| {
                let q = register(api, &receiver_for_register);
                ids_for_register.lock().unwrap().push(q);
            },
            base,
        );
        let queue_ids: Vec<String> = ids.lock().unwrap().clone();
        // Shards are numbered from 0 and open in order, once the hub holds its share (`h:`).
        let shards = queue_ids.iter().filter_map(|q| q.split(':').next()?.parse::<usize>().ok()).max().map_or(0, |s| s + 1);
        ServerFanOut {
            sender: sender.clone(),
            receiver: receiver.clone(),
            n,
            queue_ids: Arc::new(queue_ids),
            last_ids: Arc::new(Mutex::new(vec![-1i64; n])),
            registered_ms,
            shards,
            lost: 0,
        }
    }

    /// One message to the `n` waiting long-polls: the time until every one has answered
    /// with it.
    fn round(&mut self, base: &str, round: usize) -> f64 {
        let n = self.n;
        let (receiver, queue_ids, last_ids_in) = (self.receiver.clone(), self.queue_ids.clone(), self.last_ids.clone());
        let (pollers, rx) = spawn_pollers(
            n,
            move |i, api| {
                let deadline = Instant::now() + DEADLINE;
                let mut last = last_ids_in.lock().unwrap()[i];
                while Instant::now() < deadline {
                    let last_s = last.to_string();
                    let (status, body) =
                        api.call("GET", "/events", Some(&receiver), &[("queue_id", &queue_ids[i]), ("last_event_id", &last_s)]);
                    if status == 0 || status == 503 {
                        // Refused before reaching the queue: try again.
                        thread::sleep(Duration::from_millis(50));
                        continue;
                    }
                    if status != 200 {
                        break;
                    }
                    for e in body["events"].as_array().unwrap() {
                        last = last.max(e["id"].as_i64().unwrap());
                        if e["type"] == "message" {
                            return Some(last);
                        }
                    }
                }
                None
            },
            base,
        );
        // Send only once every long-poll waits in its home.
        let deadline = Instant::now() + DEADLINE;
        let shards_s = self.shards.to_string();
        while Api::new(base, 0).ok("GET", "/dev_bench/fan_out/waiting_polls", None, &[("shards", &shards_s)])["waiting"].as_u64()
            != Some(n as u64)
        {
            assert!(Instant::now() < deadline, "the long-polls did not all arrive");
            thread::sleep(Duration::from_millis(20));
        }
        // A fresh connection: a pooled one may have been closed by the server while idle.
        let to = format!("[{}]", self.receiver.id);
        let sent = Instant::now();
        Api::new(base, 0).ok(
            "POST",
            "/messages",
            Some(&self.sender),
            &[("type", "direct"), ("to", &to), ("content", &format!("fan-out to {n}, round {round}"))],
        );
        let answered = sent.elapsed();
        let mut first_arrival = None::<Instant>;
        let mut last_arrival = sent;
        let mut delivered = 0;
        for (i, at, last) in rx.iter().take(n) {
            if let Some(last) = last {
                delivered += 1;
                first_arrival = Some(first_arrival.map_or(at, |f| f.min(at)));
                last_arrival = last_arrival.max(at);
                self.last_ids.lock().unwrap()[i] = last;
            }
        }
        eprintln!(
            "  server n={n}: POST /messages answered {:.1} ms, first long-poll {:.1} ms, last {:.1} ms",
            answered.as_secs_f64() * 1000.0,
            (first_arrival.unwrap_or(sent) - sent).as_secs_f64() * 1000.0,
            (last_arrival - sent).as_secs_f64() * 1000.0
        );
        for p in pollers {
            let _ = p.join();
        }
        self.lost += n - delivered;
        (last_arrival - sent).as_secs_f64() * 1000.0
    }

    /// Deletes the queues, 16 at a time.
    fn delete(self, base: &str) {
        let next = Arc::new(AtomicUsize::new(0));
        let (receiver, queue_ids) = (self.receiver, self.queue_ids);
        total_ms(
            self.n,
            REGISTER_CONCURRENCY,
            move |api| {
                let i = next.fetch_add(1, Ordering::SeqCst);
                api.call("DELETE", "/events", Some(&receiver), &[("queue_id", &queue_ids[i])]);
            },
            base,
        );
    }
}

/// Sizes of the organization's history the search figures are measured at.
const SEARCH_SIZES: [usize; 2] = [10_000, 100_000];

/// Keyword search over a channel seeded straight into the local D1 (through the API it
/// would take hours) up to each of [`SEARCH_SIZES`], beside the plain newest-100 read of
/// the same channel in the same run: a keyword in one message of ten ("reports", 1,000
/// then 10,000 matches) and one in one of a thousand ("needle").
fn search_figures(base: &str, api: &Api, hamlet: &User, figures: &mut Vec<Figure>) {
    let name = format!("bench search {}", std::process::id());
    let subscriptions = serde_json::json!([{ "name": name }]).to_string();
    api.ok("POST", "/users/me/subscriptions", Some(hamlet), &[("subscriptions", &subscriptions)]);
    let channel_id = api.ok("GET", "/get_stream_id", Some(hamlet), &[("stream", &name)])["stream_id"].as_i64().unwrap();
    let window = |narrow: serde_json::Value| {
        let narrow = narrow.to_string();
        Call::new("GET", "/messages", Some(hamlet), &[("anchor", "newest"), ("num_before", "100"), ("num_after", "0"), ("narrow", &narrow)])
    };
    let mut seeded = 0;
    for size in SEARCH_SIZES {
        eprintln!("seeding {} messages for search ...", size - seeded);
        seed_messages(channel_id, hamlet.id, seeded, size);
        seeded = size;
        let plain = rate(base, 1, &window(serde_json::json!([["channel", channel_id]])));
        for (word, share) in [("reports", "1 in 10"), ("needle", "1 in 1000")] {
            let found = api.run(&window(serde_json::json!([["channel", channel_id], ["search", word]])));
            assert_eq!(found["messages"].as_array().map(Vec::len), Some(100.min(if word == "needle" { size / 1000 } else { size / 10 })));
            let search = rate(base, 1, &window(serde_json::json!([["channel", channel_id], ["search", word]])));
            push(
                figures,
                Figure {
                    name: format!("`GET /messages`, newest 100 of a search for a word in {share} of {size} messages (c=1)"),
                    server: format!("{:.0} req/s, p50 {:.1} ms", search.per_sec, search.p50_ms),
                    floor: format!("newest 100 of the channel, no search: {:.0} req/s, p50 {:.1} ms", plain.per_sec, plain.p50_ms),
                    ratio: search.p50_ms / plain.p50_ms,
                    goal: "time / floor ≤ 3 at 100,000; sublinear growth",
                },
            );
        }
    }
}

/// Inserts messages `from + 1 ..= to` of the channel (sent by `sender`, each received by
/// them) into the test server's local D1 with `wrangler d1 execute`: eight words of a
/// 5,000-word vocabulary each, "reports" in every tenth and "needle" in every thousandth.
/// The index's triggers index them as any insert.
fn seed_messages(channel_id: i64, sender: i64, from: usize, to: usize) {
    let state = std::env::var("TEST_SERVER_STATE").expect("TEST_SERVER_STATE (scripts/with-test-server.sh)");
    let words: Vec<String> = (1..=8)
        .map(|k| format!("'w' || ((n * {}) % 5000)", [7919, 104729, 1299709, 15485863, 179424673, 2147483647, 86028121, 32452843][k - 1]))
        .collect();
    let body = format!(
        "{} || CASE WHEN n % 10 = 0 THEN ' reports ready' ELSE '' END || CASE WHEN n % 1000 = 0 THEN ' needle' ELSE '' END",
        words.join(" || ' ' || ")
    );
    let sql = format!(
        "WITH RECURSIVE seq(n) AS (SELECT {first} UNION ALL SELECT n + 1 FROM seq WHERE n < {to}) \
         INSERT INTO messages (realm_id, sender_id, recipient_id, channel_id, topic, content, rendered_content, date_sent, client) \
         SELECT c.realm_id, {sender}, rc.id, c.id, 'topic ' || (n % 50), body, '<p>' || body || '</p>', 1700000000 + n, 'bench' \
         FROM (SELECT n, {body} AS body FROM seq), channels c JOIN recipients rc ON rc.type = 2 AND rc.type_id = c.id WHERE c.id = {channel_id}; \
         INSERT OR IGNORE INTO user_messages (user_id, message_id, flags) SELECT {sender}, id, 1 FROM messages WHERE channel_id = {channel_id}",
        first = from + 1
    );
    let out = std::process::Command::new("node_modules/.bin/wrangler")
        .args(["d1", "execute", "DB", "--local", "--persist-to", &state, "--command", &sql])
        .env("WRANGLER_SEND_METRICS", "false")
        .output()
        .expect("wrangler runs");
    assert!(out.status.success(), "seeding: {} {}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}
