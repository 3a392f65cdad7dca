//! The official Python client (`pip install zulip`, in `.venv-test`, which `make test`
//! creates) against the server: `call_on_each_message` receives a message sent by another
//! user.

use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn python_client_call_on_each_message_receives_a_message() {
    let root = env!("CARGO_MANIFEST_DIR");
    let python = format!("{root}/.venv-test/bin/python");
    assert!(std::path::Path::new(&python).exists(), "{python} is missing: `make test` creates the virtual environment");
    let url = std::env::var("TEST_SERVER_URL").expect("TEST_SERVER_URL");
    let started = Instant::now();
    let out = Command::new(python)
        .arg(format!("{root}/tests/python/call_on_each_message.py"))
        .env("TEST_SERVER_URL", url)
        .output()
        .expect("run the Python client");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    assert!(text.contains("received:"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(60));
}
