//! Reactions and personal message flags.

mod chat;
mod common;
use chat::*;
use common::*;

#[test]
fn reaction_by_name_appears_on_the_message() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("react");
    create_channel(&hamlet, &name, &[], &[othello.user_id]);
    let id = send_to_channel(&hamlet, &name, "t", "react to me");
    othello.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "octopus")]).success();
    hamlet.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "big_smile"), ("emoji_code", "1f604")]).success();
    let reactions = fetch(&hamlet, id)["reactions"].clone();
    assert_eq!(reactions.as_array().unwrap().len(), 2);
    assert_eq!(reactions[0]["emoji_name"], "octopus");
    assert_eq!(reactions[0]["emoji_code"], "1f419");
    assert_eq!(reactions[0]["reaction_type"], "unicode_emoji");
    assert_eq!(reactions[0]["user_id"], othello.user_id);
    assert_eq!(reactions[1]["user_id"], hamlet.user_id, "oldest first");
}

#[test]
fn duplicate_reaction_is_rejected() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("react-dup");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "x");
    hamlet.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "tada")]).success();
    hamlet.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "tada")]).bad_request("BAD_REQUEST", "Reaction already exists.");
}

#[test]
fn unknown_emoji_name_is_rejected() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("react-unknown");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "x");
    hamlet
        .post(&format!("/messages/{id}/reactions"), &[("emoji_name", "no_such_emoji_here")])
        .bad_request("BAD_REQUEST", "Emoji 'no_such_emoji_here' does not exist");
}

#[test]
fn remove_reaction_by_name_and_by_code() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("react-remove");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "x");
    hamlet.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "heart")]).success();
    hamlet.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "tada")]).success();
    hamlet.delete(&format!("/messages/{id}/reactions"), &[("emoji_name", "heart")]).success();
    hamlet.delete(&format!("/messages/{id}/reactions"), &[("emoji_code", "1f389")]).success();
    assert_eq!(fetch(&hamlet, id)["reactions"], serde_json::json!([]));
    hamlet.delete(&format!("/messages/{id}/reactions"), &[("emoji_name", "heart")]).bad_request("BAD_REQUEST", "Reaction doesn't exist.");
}

#[test]
fn reacting_to_an_invisible_message_is_invalid() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let id = send_direct(&hamlet, &[othello.user_id], "private");
    iago.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "smile")]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn star_and_unstar_and_read() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let id = send_direct(&hamlet, &[othello.user_id], "star me");
    let list = format!("[{id}]");
    let body = othello.post("/messages/flags", &[("messages", &list), ("op", "add"), ("flag", "starred")]).success();
    assert_eq!(body["messages"], serde_json::json!([id]));
    othello.post("/messages/flags", &[("messages", &list), ("op", "add"), ("flag", "read")]).success();
    let f = flags(&fetch(&othello, id));
    assert!(f.contains(&"starred".to_string()) && f.contains(&"read".to_string()), "{f:?}");
    othello.post("/messages/flags", &[("messages", &list), ("op", "remove"), ("flag", "starred")]).success();
    assert!(!flags(&fetch(&othello, id)).contains(&"starred".to_string()));
}

#[test]
fn flags_on_invisible_messages_are_invalid() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let id = send_direct(&hamlet, &[othello.user_id], "private");
    iago.post("/messages/flags", &[("messages", &format!("[{id}]")), ("op", "add"), ("flag", "starred")])
        .bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn non_editable_and_unknown_flags_are_rejected() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/messages/flags", &[("messages", "[]"), ("op", "add"), ("flag", "mentioned")])
        .bad_request("BAD_REQUEST", "Flag not editable: 'mentioned'");
    hamlet
        .post("/messages/flags", &[("messages", "[]"), ("op", "add"), ("flag", "bogus")])
        .bad_request("BAD_REQUEST", "Invalid flag: 'bogus'");
    hamlet
        .post("/messages/flags", &[("messages", "[]"), ("op", "toggle"), ("flag", "read")])
        .bad_request("BAD_REQUEST", "Invalid message flag operation: 'toggle'");
}

#[test]
fn starring_a_public_channel_message_not_received() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let name = unique("star-historical");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "x");
    cordelia.post("/messages/flags", &[("messages", &format!("[{id}]")), ("op", "add"), ("flag", "starred")]).success();
    let f = flags(&fetch(&cordelia, id));
    assert!(f.contains(&"starred".to_string()) && f.contains(&"historical".to_string()), "{f:?}");
}

#[test]
fn user_topic_visibility_policy() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("user-topic");
    let channel_id = create_channel(&hamlet, &name, &[], &[]);
    let sid = channel_id.to_string();
    hamlet.post("/user_topics", &[("stream_id", &sid), ("topic", "quiet"), ("visibility_policy", "1")]).success();
    hamlet.post("/user_topics", &[("stream_id", &sid), ("topic", "quiet"), ("visibility_policy", "0")]).success();
    hamlet
        .post("/user_topics", &[("stream_id", &sid), ("topic", "quiet"), ("visibility_policy", "7")])
        .bad_request("BAD_REQUEST", "Invalid visibility_policy");
    hamlet
        .post("/user_topics", &[("stream_id", "99999999"), ("topic", "quiet"), ("visibility_policy", "1")])
        .bad_request("BAD_REQUEST", "Invalid channel ID");
}

#[test]
fn marking_unread_skips_channels_not_subscribed() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let name = unique("unread-unsub");
    let channel_id = create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "x");
    let list = format!("[{id}]");
    let body = cordelia.post("/messages/flags", &[("messages", &list), ("op", "remove"), ("flag", "read")]).success();
    assert_eq!(body["messages"], serde_json::json!([]));
    assert_eq!(body["ignored_because_not_subscribed_channels"], serde_json::json!([channel_id]));
    let body = hamlet.post("/messages/flags", &[("messages", &list), ("op", "add"), ("flag", "read")]).success();
    assert_eq!(body["messages"], serde_json::json!([id]));
    assert!(body.get("ignored_because_not_subscribed_channels").is_none());
    let body = hamlet.post("/messages/flags", &[("messages", &list), ("op", "remove"), ("flag", "read")]).success();
    assert_eq!(body["messages"], serde_json::json!([id]));
    assert_eq!(body["ignored_because_not_subscribed_channels"], serde_json::json!([]));
}

#[test]
fn emoji_code_must_be_known_and_match_the_name() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("react-code");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "x");
    let path = format!("/messages/{id}/reactions");
    hamlet.post(&path, &[("emoji_name", "smile"), ("emoji_code", "ffffff")]).bad_request("BAD_REQUEST", "Invalid emoji code.");
    hamlet.post(&path, &[("emoji_name", "octopus"), ("emoji_code", "1f642")]).bad_request("BAD_REQUEST", "Invalid emoji name.");
    hamlet.post(&path, &[("emoji_name", "thumbs_up"), ("emoji_code", "1f44d")]).success();
}

#[test]
fn zulip_extra_emoji_by_name() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("react-zulip");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "x");
    hamlet.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "zulip")]).success();
    let r = fetch(&hamlet, id)["reactions"][0].clone();
    assert_eq!((r["emoji_code"].as_str(), r["reaction_type"].as_str()), (Some("zulip"), Some("zulip_extra_emoji")));
    hamlet.delete(&format!("/messages/{id}/reactions"), &[("emoji_name", "zulip")]).success();
}
