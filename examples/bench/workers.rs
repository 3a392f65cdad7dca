//! The `wrangler dev` processes the bench starts itself: the bare worker (the floor of the
//! request figures) and fresh copies of the server for the cold-start figure. Each listens
//! on 127.0.0.1 and is stopped, with its workerd, by its process group when dropped.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The bare worker's configuration (examples/bare-worker, built by `make bench`).
pub const BARE_CONFIG: &str = "examples/bare-worker/wrangler.toml";

/// A `wrangler dev` of its own, on a state directory it owns.
pub struct Served {
    child: Child,
    pub url: String,
    state: PathBuf,
    started: Instant,
}

impl Served {
    /// Starts `wrangler dev` with `config` (the server's when `None`) on `state`, which it
    /// removes when stopped.
    pub fn start(config: Option<&str>, state: PathBuf) -> Served {
        let port = free_port();
        let mut command = Command::new("node_modules/.bin/wrangler");
        command.arg("dev");
        if let Some(config) = config {
            command.args(["--config", config]);
        }
        command
            .args(["--ip", "127.0.0.1", "--port", &port.to_string(), "--inspector-port", &free_port().to_string()])
            .arg("--persist-to")
            .arg(&state)
            .args(["--log-level", "error", "--show-interactive-dev-session=false"])
            .env("CLOUDFLARE_CF_FETCH_ENABLED", "false")
            .env("WRANGLER_SEND_METRICS", "false")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // A group of its own, so that stopping it stops workerd, its child.
            .process_group(0);
        let started = Instant::now();
        let child = command.spawn().expect("start wrangler dev");
        Served { child, url: format!("http://127.0.0.1:{port}"), state, started }
    }

    pub fn state(&self) -> &Path {
        &self.state
    }

    /// Waits for the first answer of `GET path` (with `auth`): the time from the process's
    /// start to that answer, and the time that one request took.
    pub fn first_answer(&mut self, path: &str, auth: Option<&str>) -> (Duration, Duration) {
        let agent = ureq::AgentBuilder::new().timeout_connect(Duration::from_millis(200)).timeout(Duration::from_secs(60)).build();
        let deadline = self.started + Duration::from_secs(120);
        loop {
            let mut req = agent.get(&format!("{}{path}", self.url));
            if let Some(auth) = auth {
                req = req.set("Authorization", auth);
            }
            let sent = Instant::now();
            match req.call() {
                Ok(r) if r.status() == 200 => return (self.started.elapsed(), sent.elapsed()),
                Ok(r) => panic!("GET {path} on a fresh worker: {}", r.status()),
                Err(ureq::Error::Status(status, r)) => {
                    panic!("GET {path} on a fresh worker: {status} {}", r.into_string().unwrap_or_default())
                }
                // Not listening yet.
                Err(_) => {
                    if let Ok(Some(status)) = self.child.try_wait() {
                        panic!("wrangler dev exited ({status}) before answering {path}");
                    }
                    assert!(Instant::now() < deadline, "wrangler dev did not answer {path} within 120 s");
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", "--", &format!("-{}", self.child.id())]).status();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.state);
    }
}

/// A fresh directory for a worker's state, unique to this run.
pub fn state_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A copy of a worker's local state (D1, R2, Durable Objects), taken while it is idle.
pub fn copy_state(from: &Path, name: &str) -> PathBuf {
    let to = state_dir(name);
    let status = Command::new("cp").arg("-a").arg(from.join("v3")).arg(&to).status().unwrap();
    assert!(status.success(), "copying {}", from.display());
    to
}

/// The bundle `wrangler deploy --dry-run` would upload for `config` (the server's when
/// `None`): (KiB, KiB gzip).
pub fn bundle_kib(config: Option<&str>) -> (f64, f64) {
    let out = state_dir("dry-run");
    let mut command = Command::new("node_modules/.bin/wrangler");
    command.args(["deploy", "--dry-run", "--outdir"]).arg(&out);
    if let Some(config) = config {
        command.args(["--config", config]);
    }
    let output = command.env("WRANGLER_SEND_METRICS", "false").output().expect("wrangler deploy --dry-run");
    let _ = std::fs::remove_dir_all(&out);
    let text = String::from_utf8_lossy(&output.stdout).to_string() + &String::from_utf8_lossy(&output.stderr);
    // "Total Upload: 6557.12 KiB / gzip: 2728.40 KiB"
    let sizes = text.split("Total Upload: ").nth(1).and_then(|rest| {
        let (raw, rest) = rest.split_once(" KiB / gzip: ")?;
        let (gzip, _) = rest.split_once(" KiB")?;
        Some((raw.trim().parse().ok()?, gzip.trim().parse().ok()?))
    });
    sizes.unwrap_or_else(|| panic!("wrangler deploy --dry-run: {text}"))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}
