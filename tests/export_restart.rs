//! An export survives a restart in the middle of its build: this test runs its own `wrangler
//! dev` on its own `--persist-to` state, with a pause between the build's steps, kills the
//! server once the first step's progress is saved, restarts it on the same state, and
//! checks the archive comes out whole.

mod common;
mod server_support;
mod upload_support;

use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;
use server_support::{own_server_address, Server};
use upload_support::{incompressible, unpack, upload};

/// A pause between steps long enough to kill the server between two of them.
const VARS: &[&str] = &["EXPORT_STEP_PAUSE_SECS:8"];

/// The export's row as the server's local database holds it: (status, whether progress is saved).
fn export_row(state: &std::path::Path, id: i64) -> Option<(i64, bool)> {
    for database in ["DB", "DB_2"] {
        let sql = format!("SELECT status, progress IS NOT NULL AS saved FROM realm_exports WHERE id = {id}");
        let out = execute_in_database(state, database, &sql);
        let Ok(answer) = serde_json::from_slice::<Value>(&out.stdout) else { continue };
        if let Some(row) = answer[0]["results"].as_array().and_then(|rows| rows.first()) {
            return Some((row["status"].as_i64().unwrap(), row["saved"].as_i64() == Some(1)));
        }
    }
    None
}

#[test]
fn an_export_interrupted_between_steps_by_a_restart_finishes_whole() {
    let (state, port) = own_server_address();
    let server = Server::start(&state, port, VARS);
    let iago = Client::dev("iago@zulip.com");
    // Messages, then the uploads in a step of their own, then the rest: three steps.
    let bytes = incompressible(64 << 10, 5);
    let url = upload(&iago, "across-restart.bin", &bytes);
    let marker = unique("exportrestart");
    let content = format!("{marker} [across-restart.bin]({url})");
    iago.post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", "export"), ("content", &content)]).success();
    let id = iago.post("/export/realm", &[("export_type", "1")]).success()["id"].as_i64().unwrap();

    // Sentinel: the first step's progress is saved while the build is still going.
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        match export_row(&state, id) {
            Some((status, true)) => {
                assert_eq!(status, 1, "the build finished before the restart: the pause is too short");
                break;
            }
            _ => assert!(Instant::now() < deadline, "no step of the export was saved"),
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    server.kill();
    let server = Server::start(&state, port, VARS);

    let deadline = Instant::now() + Duration::from_secs(120);
    let export = loop {
        let exports = iago.get("/export/realm", &[]).success();
        let export = exports["exports"].as_array().unwrap().iter().find(|e| e["id"] == id).cloned().unwrap();
        assert!(export["failed_timestamp"].is_null(), "the export failed after the restart: {export}");
        if !export["export_url"].is_null() {
            break export;
        }
        assert!(Instant::now() < deadline, "the export did not finish after the restart: {export}");
        std::thread::sleep(Duration::from_millis(500));
    };
    let files = unpack(&iago, &export);
    assert!(files[&format!("uploads/{}", url.trim_start_matches("/user_uploads/"))] == bytes, "the upload differs");
    let messages: Value = serde_json::from_slice(&files["messages-000001.json"]).unwrap();
    let sent =
        messages["zerver_message"].as_array().unwrap().iter().filter(|m| m["content"].as_str().unwrap_or("").contains(&marker)).count();
    assert_eq!(sent, 1, "the message is in the archive once");
    assert!(files.contains_key("realm.json") && files.contains_key("attachment.json"), "{:?}", files.keys());
    server.stop();
    let _ = std::fs::remove_dir_all(&state);
}
