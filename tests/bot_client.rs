//! The official bot runner (`zulip-run-bot helloworld` from PyPI `zulip_bots`, in
//! `.venv-test`, which `make test` creates) against the server: the bot answers a direct
//! message and a mention in a channel.

mod chat;
mod common;
use chat::*;
use common::*;
use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Stops the bot when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The bot's messages in a narrow, as `client` sees them.
fn replies_from(client: &Client, narrow: &Value, bot_id: i64) -> Vec<Value> {
    let narrow = narrow.to_string();
    let body = client.get("/messages", &[("narrow", &narrow), ("anchor", "newest"), ("num_before", "50"), ("num_after", "0")]).success();
    body["messages"].as_array().unwrap().iter().filter(|m| m["sender_id"] == bot_id).cloned().collect()
}

/// Sends `send()` every few seconds (the bot may not have registered its queue yet) until
/// the bot has answered in `narrow`; answers the bot's reply.
fn until_answered(client: &Client, narrow: &Value, bot_id: i64, send: impl Fn()) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        send();
        for _ in 0..6 {
            std::thread::sleep(Duration::from_millis(500));
            if let Some(reply) = replies_from(client, narrow, bot_id).pop() {
                return reply;
            }
        }
    }
    panic!("the helloworld bot did not answer within 60 s");
}

#[test]
fn helloworld_bot_answers_a_direct_message_and_a_mention() {
    let root = env!("CARGO_MANIFEST_DIR");
    let runner = format!("{root}/.venv-test/bin/zulip-run-bot");
    assert!(std::path::Path::new(&runner).exists(), "{runner} is missing: `make test` installs zulip_bots");
    let hamlet = Client::dev("hamlet@zulip.com");
    let short = unique("hello");
    let full_name = format!("Hello {short}");
    let created = hamlet.post("/bots", &[("full_name", &full_name), ("short_name", &short)]).success();
    let bot_id = created["user_id"].as_i64().unwrap();
    let bots = hamlet.get("/bots", &[]).success();
    let bot = bots["bots"].as_array().unwrap().iter().find(|b| b["user_id"] == bot_id).unwrap().clone();
    let rc = std::env::temp_dir().join(format!("{short}.zuliprc"));
    std::fs::write(
        &rc,
        format!("[api]\nemail={}\nkey={}\nsite={}\n", bot["username"].as_str().unwrap(), bot["api_key"].as_str().unwrap(), server_url()),
    )
    .unwrap();
    let _bot = Running(
        Command::new(&runner)
            .args(["helloworld", "--config-file"])
            .arg(&rc)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start zulip-run-bot"),
    );

    let dm = json!([["dm", [bot_id]]]);
    let reply = until_answered(&hamlet, &dm, bot_id, || {
        send_direct(&hamlet, &[bot_id], "hello bot");
    });
    assert!(reply["content"].as_str().unwrap().contains("beep boop"), "{reply}");
    assert_eq!(reply["type"], "private");

    let channel = unique("bot-channel");
    create_channel(&hamlet, &channel, &[], &[hamlet.user_id, bot_id]);
    let narrow = json!([["stream", channel]]);
    let reply = until_answered(&hamlet, &narrow, bot_id, || {
        send_to_channel(&hamlet, &channel, "greetings", &format!("@**{full_name}** hello"));
    });
    assert!(reply["content"].as_str().unwrap().contains("beep boop"), "{reply}");
    assert_eq!(reply["subject"], "greetings");
    let _ = std::fs::remove_file(&rc);
}
