//! The official JavaScript client (npm `zulip-js` 2.1.0, installed in `tests/js` by
//! `make test`) against the server: send, narrowed fetch with `anchor=first_unread`, edit
//! (PATCH parameters in the query string) and an event queue; see `tests/js/client_flow.js`.

mod chat;
mod common;
use chat::*;
use common::*;
use std::process::Command;

#[test]
fn zulip_js_sends_fetches_edits_and_receives_events() {
    let root = env!("CARGO_MANIFEST_DIR");
    assert!(
        std::path::Path::new(&format!("{root}/tests/js/node_modules/zulip-js")).exists(),
        "tests/js/node_modules/zulip-js is missing: `make test` installs it"
    );
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let channel = unique("zulip-js");
    let channel_id = create_channel(&hamlet, &channel, &[], &[hamlet.user_id, othello.user_id]);
    // Othello has read the channel's opening notice: the next message is the first unread.
    othello.post("/mark_stream_as_read", &[("stream_id", &channel_id.to_string())]).success();
    let out = Command::new("node")
        .arg(format!("{root}/tests/js/client_flow.js"))
        .current_dir(format!("{root}/tests/js"))
        .env("TEST_SERVER_URL", server_url())
        .env("CHANNEL", &channel)
        .env("SENDER_EMAIL", &hamlet.email)
        .env("SENDER_KEY", &hamlet.api_key)
        .env("READER_EMAIL", &othello.email)
        .env("READER_KEY", &othello.api_key)
        .output()
        .expect("run node");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "zulip-js flow failed:\n{text}");
    assert!(text.contains("ok: the message event arrives"), "{text}");
}
