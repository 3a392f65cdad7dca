//! `make bench-render`: how long rendering a 10,000-character message that mixes every
//! construct takes, beside Cloudflare Workers' CPU time per request (10 ms on the Free
//! plan; 30 s by default on the Paid plan).
//!
//! - Natively (this process, release build): the Rust renderer alone. Math is not typeset
//!   here (no KaTeX outside the worker), so formulas take the `tex-error` path.
//! - In the worker (when TEST_SERVER_URL names a running development server, as
//!   `make bench-render` arranges): `POST /dev_bench/render`, timed by the worker itself,
//!   with the bundled KaTeX and without it.

use std::time::Instant;

use base64::Engine;
use serde_json::Value;
use team_chat::markdown::{render, LinkableChannel, Linkifier, MentionableGroup, MentionableUser, Resolved};

const MAX_MESSAGE_LENGTH: usize = 10_000;
const NATIVE_ITERATIONS: usize = 200;
const WORKER_ITERATIONS: &str = "20";
const CPU_BUDGET_FREE_MS: f64 = 10.0;
const CPU_BUDGET_PAID_MS: f64 = 30_000.0;

/// One section of the message: every construct Zulip's Markdown has, numbered by `n`.
fn section(n: usize) -> String {
    format!(
        "# Section {n}\n\
         Some **bold**, *italic*, ***both***, ~~struck~~ and `code {n}` text with :smile: 🎉 :) and a \
         <time:2024-01-0{d}T10:00:00Z> timestamp.\n\
         Hello @**King Hamlet** and @_**Othello, the Moor of Venice**, cc @*support team* @**all**; see \
         #**Verona** and #**Verona>topic {n}**, ticket #{n}0 and https://example.com/page_(x)?q={n}.\n\
         Inline math $$\\frac{{a_{n}}}{{b^2}} + \\sqrt{{x}}$$ and a [link](https://zulip.com/{n}) or me@example.com.\n\n\
         > A quote with *emphasis*\n> and a second line\n\n\
         - item one\n- item two\n  - nested **item**\n1. first\n2. second\n\n\
         | col | value |\n| --- | :---: |\n| a{n} | `b` |\n\n\
         ```python\ndef f(x):\n    return x * {n}  # comment\n```\n\n\
         ```math\n\\int_0^{n} x^2 \\, dx = \\frac{{{n}^3}}{{3}}\n```\n\n\
         ```spoiler Secret {n}\nHidden *text* here\n```\n\n\
         ```quote\nQuoted block\n```\n\n---\n\n",
        d = n % 9 + 1
    )
}

/// Sections until the message is as long as a message may be (10,000 characters).
fn message() -> String {
    let mut message = String::new();
    let mut n = 1;
    loop {
        let next = section(n);
        if message.chars().count() + next.chars().count() > MAX_MESSAGE_LENGTH {
            // Pad with plain text to exactly the limit.
            let missing = MAX_MESSAGE_LENGTH - message.chars().count();
            message.push_str(&"lorem ipsum ".repeat(missing / 12 + 1).chars().take(missing).collect::<String>());
            return message;
        }
        message.push_str(&next);
        n += 1;
    }
}

fn resolved() -> Resolved {
    Resolved {
        users: vec![
            MentionableUser { id: 10, full_name: "King Hamlet".into() },
            MentionableUser { id: 11, full_name: "Othello, the Moor of Venice".into() },
        ],
        groups: vec![MentionableGroup { id: 30, name: "support team".into() }],
        channels: vec![LinkableChannel { id: 9, name: "Verona".into() }],
        linkifiers: vec![Linkifier { pattern: "#(?P<id>[0-9]{2,})".into(), url_template: "https://trac.example.com/ticket/{id}".into() }],
        ..Resolved::default()
    }
}

fn ratio(ms: f64) -> String {
    format!(
        "{:.1}% of the Free plan's {CPU_BUDGET_FREE_MS} ms, {:.4}% of the Paid plan's default {} s",
        ms / CPU_BUDGET_FREE_MS * 100.0,
        ms / CPU_BUDGET_PAID_MS * 100.0,
        CPU_BUDGET_PAID_MS / 1000.0
    )
}

fn native(content: &str) {
    let resolved = resolved();
    let html_length = render(content, &resolved).html.len();
    let mut times: Vec<f64> = (0..NATIVE_ITERATIONS)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(render(std::hint::black_box(content), &resolved));
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    let median = times[times.len() / 2];
    let p99 = times[(times.len() - 1) * 99 / 100];
    println!(
        "native (release, no KaTeX): median {median:.3} ms, p99 {p99:.3} ms over {NATIVE_ITERATIONS} renders ({html_length} bytes of HTML)"
    );
    println!("  median is {}", ratio(median));
}

fn worker(base: &str, content: &str) {
    let agent = ureq::AgentBuilder::new().timeout(std::time::Duration::from_secs(120)).build();
    let email = "hamlet@zulip.com";
    let login: Value = agent
        .post(&format!("{base}/api/v1/dev_fetch_api_key"))
        .send_form(&[("username", email)])
        .expect("dev_fetch_api_key")
        .into_json()
        .expect("JSON");
    let key = login["api_key"].as_str().expect("api_key");
    let auth = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{email}:{key}")));
    let bench = |iterations: &str| -> Value {
        agent
            .post(&format!("{base}/api/v1/dev_bench/render"))
            .set("Authorization", &auth)
            .send_form(&[("content", content), ("iterations", iterations)])
            .expect("POST /dev_bench/render")
            .into_json()
            .expect("JSON")
    };
    // The first renders of a fresh isolate include compiling KaTeX's JavaScript.
    let cold = bench("1");
    let body = bench(WORKER_ITERATIONS);
    let with_katex = body["render_ms"].as_f64().expect("render_ms");
    let without = body["render_without_katex_ms"].as_f64().expect("render_without_katex_ms");
    println!(
        "worker (wrangler dev, workerd): {with_katex:.2} ms per render with KaTeX, {without:.2} ms without (mean of {} warm renders, {} bytes of HTML)",
        body["iterations"], body["html_length"]
    );
    println!("  first render of a fresh isolate: {} ms with KaTeX", cold["render_ms"]);
    println!("  warm, with KaTeX: {}", ratio(with_katex));
}

fn main() {
    let content = message();
    let formulas = content.matches("$$").count() / 2 + content.matches("```math").count();
    println!("message: {} characters, {} sections, {formulas} formulas", content.chars().count(), content.matches("# Section").count());
    native(&content);
    match std::env::var("TEST_SERVER_URL") {
        Ok(base) => worker(&base, &content),
        Err(_) => println!("worker: skipped (no TEST_SERVER_URL; `make bench-render` starts a server)"),
    }
}
