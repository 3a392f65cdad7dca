//! A `wrangler dev` of a test's own, on its own `--persist-to` state, for the tests that
//! stop and restart the runtime (the shared server of `make test` must keep running).
#![allow(dead_code)]

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::unique;

/// A fresh state directory with the migrations applied to every D1 database: a copy of the
/// run's migrated template (`TEST_STATE_TEMPLATE`, from scripts/with-test-server.sh) when
/// there is one, which saves seconds of CPU per database.
pub fn fresh_state() -> PathBuf {
    let state = std::env::temp_dir().join(unique("team-chat-own-server-"));
    std::fs::create_dir_all(&state).unwrap();
    if let Ok(template) = std::env::var("TEST_STATE_TEMPLATE") {
        let copy = Command::new("cp").arg("-a").arg(Path::new(&template).join(".")).arg(&state).status().expect("cp runs");
        assert!(copy.success(), "copying the state template {template}");
        return state;
    }
    // Both D1 databases of wrangler.toml (organizations are spread over them).
    for database in ["DB", "DB_2"] {
        let migrate = Command::new("node_modules/.bin/wrangler")
            .args(["d1", "migrations", "apply", database, "--local", "--persist-to"])
            .arg(&state)
            .output()
            .expect("wrangler runs");
        assert!(migrate.status.success(), "migrations: {}", String::from_utf8_lossy(&migrate.stderr));
    }
    state
}

/// Everything the servers started on `state` logged (`Server::start` writes `wrangler-*.log`).
pub fn server_logs(state: &Path) -> String {
    std::fs::read_dir(state)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("wrangler-"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect()
}

/// A fresh state and a free port for a server of the test's own, with `TEST_SERVER_URL`
/// pointing there: every request of this test binary goes to the server started on them.
pub fn own_server_address() -> (PathBuf, u16) {
    let (state, port) = (fresh_state(), free_port());
    std::env::set_var("TEST_SERVER_URL", format!("http://127.0.0.1:{port}"));
    (state, port)
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub struct Server {
    child: Child,
    stopped: bool,
}

impl Server {
    /// Starts `wrangler dev` on `state` and waits until it answers. `vars` are extra
    /// `--var NAME:VALUE` settings.
    pub fn start(state: &Path, port: u16, vars: &[&str]) -> Server {
        Server::start_in(None, state, port, vars)
    }

    /// [`Server::start`] with a `wrangler.toml` environment (`--env production`): its own
    /// bindings and variables, run locally.
    pub fn start_in(environment: Option<&str>, state: &Path, port: u16, vars: &[&str]) -> Server {
        let log = std::fs::File::create(state.join(format!("wrangler-{}.log", unique("")))).unwrap();
        let mut command = Command::new("node_modules/.bin/wrangler");
        command.args(["dev", "--ip", "127.0.0.1", "--port", &port.to_string(), "--persist-to"]).arg(state).args([
            "--log-level",
            "warn",
            "--show-interactive-dev-session=false",
        ]);
        // A devtools port of its own: the default (9229) may be taken by another server.
        command.args(["--inspector-port", &free_port().to_string()]);
        if let Some(environment) = environment {
            command.args(["--env", environment]);
        }
        for var in vars {
            command.args(["--var", var]);
        }
        let child = command
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null())
            // Its own process group, so stopping it by PID also stops workerd, its child.
            .process_group(0)
            .spawn()
            .expect("wrangler dev starts");
        let server = Server { child, stopped: false };
        let deadline = Instant::now() + Duration::from_secs(120);
        // Any answer of the worker's, an error status included (a refused configuration).
        let answers =
            || matches!(ureq::get(&format!("http://127.0.0.1:{port}/api/v1/server_settings")).call(), Ok(_) | Err(ureq::Error::Status(..)));
        while !answers() {
            assert!(Instant::now() < deadline, "wrangler dev did not answer");
            std::thread::sleep(Duration::from_millis(300));
        }
        server
    }

    /// SIGTERM to the whole group, as scripts/with-test-server.sh does.
    pub fn stop(mut self) {
        self.signal("-TERM");
    }

    /// SIGKILL to the whole group: the runtime dies as in a crash, mid-request.
    pub fn kill(mut self) {
        self.signal("-KILL");
    }

    fn signal(&mut self, signal: &str) {
        if !self.stopped {
            self.stopped = true;
            let _ = Command::new("kill").args([signal, "--", &format!("-{}", self.child.id())]).status();
            let _ = self.child.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.signal("-TERM");
    }
}

/// A production server of this test's own (`--env production`, local bindings); requests of
/// this binary go to it. Its database is production's binding, migrated here as `make
/// deploy` migrates it.
pub fn production_server(vars: &[&str]) -> Server {
    let (state, port) = own_server_address();
    let migrate = Command::new("node_modules/.bin/wrangler")
        .args(["d1", "migrations", "apply", "DB", "--local", "--env", "production", "--persist-to"])
        .arg(&state)
        .output()
        .expect("wrangler runs");
    assert!(migrate.status.success(), "migrations: {}", String::from_utf8_lossy(&migrate.stderr));
    Server::start_in(Some("production"), &state, port, vars)
}
