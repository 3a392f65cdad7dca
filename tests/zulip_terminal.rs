//! The official terminal client (PyPI `zulip-term` 0.7.0, in `.venv-zterm`, which
//! `make test` installs along with tmux) in tmux against the server, read with
//! `tmux capture-pane`: it starts, shows the channels, opens the home view at the first
//! unread message, shows live a message of another user, and sends a reply that the server
//! stores.
//!
//! The client starts with the keyboard focus in the left column (the channel list: its
//! `urwid.Columns(..., focus_column=0)`, so that focusing the message list does not mark
//! the first unread message read before the user looks at it). Keys of the message list,
//! such as `r` (reply), do nothing there; `Right` moves the focus to the message list first.

mod chat;
mod common;
use chat::*;
use common::*;
use std::process::Command;
use std::time::{Duration, Instant};

/// A private tmux server running the client; killed when the test ends.
struct Tmux(String);

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-L").arg(&self.0).args(args).output().expect("run tmux");
        String::from_utf8_lossy(&out.stdout).to_string()
    }
    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "zt"])
    }
    #[track_caller]
    fn wait_for(&self, what: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(40);
        loop {
            let screen = self.screen();
            if screen.contains(what) {
                return screen;
            }
            assert!(Instant::now() < deadline, "`{what}` not on the screen within 40 s:\n{screen}");
            std::thread::sleep(Duration::from_millis(300));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

#[test]
fn zulip_terminal_shows_channels_opens_at_first_unread_receives_live_and_sends() {
    let root = env!("CARGO_MANIFEST_DIR");
    let program = format!("{root}/.venv-zterm/bin/zulip-term");
    assert!(std::path::Path::new(&program).exists(), "{program} is missing: `make test` installs zulip-term");
    // A user of its own, so that the home view holds only this test's messages.
    let iago = Client::dev("iago@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let email = format!("{}@zulip.com", unique("zterm"));
    iago.post("/users", &[("email", &email), ("password", "pw-123456789"), ("full_name", "Terminal User")]).success();
    let user = Client::dev(&email);
    let channel = unique("zterm");
    let channel_id = create_channel(&othello, &channel, &[], &[othello.user_id, user.user_id]);
    let tag = unique("z");
    send_to_channel(&othello, &channel, "terminal", &format!("already read {tag}"));
    // The user has read the channel so far: its opening notice and that message.
    user.post("/mark_stream_as_read", &[("stream_id", &channel_id.to_string())]).success();
    send_to_channel(&othello, &channel, "terminal", &format!("first unread {tag}"));

    let rc = std::env::temp_dir().join(format!("{tag}.zuliprc"));
    std::fs::write(&rc, format!("[api]\nemail={}\nkey={}\nsite={}\n", user.email, user.api_key, server_url())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&rc, std::fs::Permissions::from_mode(0o600)).unwrap();
    let tmux = Tmux(format!("zt-{tag}"));
    let command = format!("{program} -c {} ; sleep 60", rc.display());
    tmux.run(&["new-session", "-d", "-s", "zt", "-x", "200", "-y", "50", &command]);

    // Started, with the channel list and the home view at the first unread message.
    let screen = tmux.wait_for(&format!("first unread {tag}"));
    assert!(screen.contains(&format!("# {channel}")), "{screen}");
    assert!(screen.contains(&format!("{channel} ▶  terminal")), "{screen}");

    // A message of another user appears live.
    send_to_channel(&othello, &channel, "terminal", &format!("live from othello {tag}"));
    tmux.wait_for(&format!("live from othello {tag}"));

    // A reply from the terminal: focus the message list, `r` opens the compose box on the
    // focused message's topic, ctrl+d sends.
    tmux.run(&["send-keys", "-t", "zt", "Right"]);
    tmux.run(&["send-keys", "-t", "zt", "r"]);
    tmux.wait_for(&format!("│# {channel} "));
    let reply = format!("sent from the terminal {tag}");
    tmux.run(&["send-keys", "-t", "zt", "-l", &reply]);
    tmux.wait_for(&reply);
    tmux.run(&["send-keys", "-t", "zt", "C-d"]);
    let deadline = Instant::now() + Duration::from_secs(40);
    let stored = loop {
        let narrow = format!(r#"[["channel", "{channel}"], ["topic", "terminal"], ["sender", "{}"]]"#, user.email);
        let body = user.get("/messages", &[("narrow", &narrow), ("anchor", "newest"), ("num_before", "5"), ("num_after", "0")]).success();
        if let Some(m) = body["messages"].as_array().unwrap().iter().find(|m| m["content"] == format!("<p>{reply}</p>")) {
            break m.clone();
        }
        assert!(Instant::now() < deadline, "the reply was not stored within 40 s:\n{}", tmux.screen());
        std::thread::sleep(Duration::from_millis(300));
    };
    assert_eq!(stored["sender_id"], user.user_id);
    assert_eq!(stored["subject"], "terminal");
    // And the message list shows it (the compose box is emptied on sending).
    tmux.wait_for(&format!("▒ {reply}"));
    let _ = std::fs::remove_file(&rc);
}
