//! `POST /messages`.

mod chat;
mod common;
use chat::*;
use common::*;

#[test]
fn channel_message_by_name_is_stored_and_fetchable() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("send-name");
    let channel_id = create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "greetings", "hello **world**");
    let m = fetch(&hamlet, id);
    assert_message_shape(&m);
    assert_eq!(m["stream_id"], channel_id);
    assert_eq!(m["display_recipient"], name.as_str());
    assert_eq!(m["subject"], "greetings");
    assert_eq!(m["content"], "<p>hello <strong>world</strong></p>");
    assert_eq!(m["sender_id"], hamlet.user_id);
}

#[test]
fn channel_type_and_channel_id_as_to() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("send-id");
    let channel_id = create_channel(&hamlet, &name, &[], &[]);
    let id = hamlet
        .post("/messages", &[("type", "channel"), ("to", &channel_id.to_string()), ("topic", "t"), ("content", "by id")])
        .success()["id"]
        .as_i64()
        .unwrap();
    assert_eq!(fetch(&hamlet, id)["stream_id"], channel_id);
}

#[test]
fn subject_is_an_alias_of_topic() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("send-subject");
    create_channel(&hamlet, &name, &[], &[]);
    let id = hamlet.post("/messages", &[("type", "stream"), ("to", &name), ("subject", "old name"), ("content", "x")]).success()["id"]
        .as_i64()
        .unwrap();
    assert_eq!(fetch(&hamlet, id)["subject"], "old name");
}

#[test]
fn topic_and_subject_must_agree() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", "a"), ("subject", "b"), ("content", "x")])
        .bad_request("BAD_REQUEST", "Can't decide between 'topic' and 'subject' arguments");
}

#[test]
fn direct_message_by_user_ids() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let id = send_direct(&hamlet, &[othello.user_id], "hi othello");
    let m = fetch(&othello, id);
    assert_message_shape(&m);
    assert_eq!(m["type"], "private");
    let ids: Vec<i64> = m["display_recipient"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    let mut expected = vec![hamlet.user_id, othello.user_id];
    expected.sort();
    assert_eq!(ids, expected);
    assert!(flags(&m).is_empty(), "unread, no flags: {m}");
}

#[test]
fn direct_message_by_emails_and_private_alias() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let id = hamlet.post("/messages", &[("type", "private"), ("to", "[\"cordelia@zulip.com\"]"), ("content", "by email")]).success()["id"]
        .as_i64()
        .unwrap();
    assert_eq!(fetch(&cordelia, id)["content"], "<p>by email</p>");
}

#[test]
fn group_direct_message_reaches_every_member() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let id = send_direct(&hamlet, &[othello.user_id, cordelia.user_id], "group hello");
    let m = fetch(&cordelia, id);
    assert_eq!(m["display_recipient"].as_array().unwrap().len(), 3);
    let again = send_direct(&othello, &[hamlet.user_id, cordelia.user_id], "same group");
    assert_eq!(fetch(&hamlet, again)["recipient_id"], m["recipient_id"], "one group, one recipient");
}

#[test]
fn sender_in_recipient_list_is_ignored() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let a = send_direct(&hamlet, &[othello.user_id], "one");
    let b = send_direct(&hamlet, &[othello.user_id, hamlet.user_id], "two");
    assert_eq!(fetch(&hamlet, a)["recipient_id"], fetch(&hamlet, b)["recipient_id"]);
}

#[test]
fn sender_alone_is_a_message_to_oneself() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let id = send_direct(&hamlet, &[hamlet.user_id], "note to self");
    let m = fetch(&hamlet, id);
    let recipients = m["display_recipient"].as_array().unwrap();
    assert_eq!(recipients.len(), 1);
    assert_eq!(recipients[0]["id"], hamlet.user_id);
}

#[test]
fn unknown_channel_name_is_stream_does_not_exist() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("missing");
    let body = hamlet
        .post("/messages", &[("type", "stream"), ("to", &name), ("topic", "t"), ("content", "x")])
        .bad_request("STREAM_DOES_NOT_EXIST", &format!("Channel '{name}' does not exist"));
    assert_eq!(body["stream"], name.as_str());
}

#[test]
fn unknown_channel_id_is_stream_does_not_exist() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet
        .post("/messages", &[("type", "stream"), ("to", "99999999"), ("topic", "t"), ("content", "x")])
        .bad_request("STREAM_DOES_NOT_EXIST", "Channel with ID '99999999' does not exist");
    assert_eq!(body["stream_id"], 99999999);
}

#[test]
fn unknown_direct_recipient_is_bad_request() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/messages", &[("type", "direct"), ("to", "[\"nobody@zulip.com\"]"), ("content", "x")])
        .bad_request("BAD_REQUEST", "Invalid email 'nobody@zulip.com'");
    hamlet
        .post("/messages", &[("type", "direct"), ("to", "[99999999]"), ("content", "x")])
        .bad_request("BAD_REQUEST", "Invalid user ID 99999999");
}

#[test]
fn user_of_another_organization_is_an_unknown_recipient() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/messages", &[("type", "direct"), ("to", "[\"king@lear.org\"]"), ("content", "x")])
        .bad_request("BAD_REQUEST", "Invalid email 'king@lear.org'");
}

#[test]
fn invalid_type_is_rejected() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/messages", &[("type", "huddle"), ("to", "Verona"), ("content", "x")]).bad_request("BAD_REQUEST", "Invalid type");
}

#[test]
fn content_is_required_and_not_empty() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", "t")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
    hamlet
        .post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", "t"), ("content", "  ")])
        .bad_request("BAD_REQUEST", "Message must not be empty");
}

#[test]
fn content_over_max_message_length_is_truncated() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("long");
    create_channel(&hamlet, &name, &[], &[]);
    let long = "a".repeat(10_050);
    let id = send_to_channel(&hamlet, &name, "t", &long);
    let raw = hamlet.get(&format!("/messages/{id}"), &[]).success()["raw_content"].as_str().unwrap().to_string();
    assert_eq!(raw.chars().count(), 10_000);
    assert!(raw.ends_with("[message truncated]"));
}

#[test]
fn channel_message_needs_a_topic_parameter() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/messages", &[("type", "stream"), ("to", "Verona"), ("content", "x")]).bad_request("BAD_REQUEST", "Missing topic");
}

#[test]
fn no_topic_and_display_name_read_as_the_empty_topic() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("empty-topic");
    create_channel(&hamlet, &name, &[], &[]);
    for topic in ["(no topic)", "general chat", ""] {
        let id = send_to_channel(&hamlet, &name, topic, "x");
        let m = hamlet.get(&format!("/messages/{id}"), &[("allow_empty_topic_name", "true")]).success()["message"].clone();
        assert_eq!(m["subject"], "", "topic {topic:?}");
        assert_eq!(fetch(&hamlet, id)["subject"], "general chat", "without the capability");
    }
}

#[test]
fn empty_topic_refused_when_organization_requires_topics() {
    // Uses the lear organization so the setting does not affect other tests.
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    let name = unique("mandatory");
    create_channel(&king, &name, &[], &[]);
    king.patch("/realm", &[("topics_policy", "disable_empty_topic")]).success();
    let resp = king.post("/messages", &[("type", "stream"), ("to", &name), ("topic", "(no topic)"), ("content", "x")]);
    king.patch("/realm", &[("topics_policy", "allow_empty_topic")]).success();
    resp.bad_request("BAD_REQUEST", "Sending messages to the general chat is not allowed in this channel.");
}

#[test]
fn topic_over_max_topic_length_is_truncated() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("long-topic");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, &"t".repeat(80), "x");
    let subject = fetch(&hamlet, id)["subject"].as_str().unwrap().to_string();
    assert_eq!(subject.chars().count(), 60);
    assert!(subject.ends_with("..."));
}

#[test]
fn read_by_sender_defaults_by_client_name() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("read-by-sender");
    create_channel(&hamlet, &name, &[], &[]);
    // The test client is an API client: its own messages start unread.
    let api = send_to_channel(&hamlet, &name, "t", "from the API");
    assert!(!flags(&fetch(&hamlet, api)).contains(&"read".to_string()));
    let web = hamlet
        .post("/messages", &[("type", "stream"), ("to", &name), ("topic", "t"), ("content", "web"), ("client", "website")])
        .success()["id"]
        .as_i64()
        .unwrap();
    assert!(flags(&fetch(&hamlet, web)).contains(&"read".to_string()));
}

#[test]
fn read_by_sender_explicit() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("read-explicit");
    create_channel(&hamlet, &name, &[], &[]);
    let id = hamlet
        .post("/messages", &[("type", "stream"), ("to", &name), ("topic", "t"), ("content", "x"), ("read_by_sender", "true")])
        .success()["id"]
        .as_i64()
        .unwrap();
    assert!(flags(&fetch(&hamlet, id)).contains(&"read".to_string()));
}

#[test]
fn queue_id_and_local_id_require_each_other() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", "t"), ("content", "x"), ("queue_id", "abc")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'local_id' argument");
    hamlet
        .post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", "t"), ("content", "x"), ("local_id", "1")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'queue_id' argument");
}

#[test]
fn private_channel_needs_a_subscription_to_send() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("priv-send");
    create_channel(&hamlet, &name, &[("invite_only", "true")], &[]);
    othello
        .post("/messages", &[("type", "stream"), ("to", &name), ("topic", "t"), ("content", "x")])
        .bad_request("BAD_REQUEST", &format!("Not authorized to send to channel '{name}'"));
}

#[test]
fn group_mention_reaches_members_of_subgroups() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let inner = unique("inner");
    let inner_id = hamlet
        .post("/user_groups/create", &[("name", &inner), ("description", "inner"), ("members", &format!("[{}]", othello.user_id))])
        .success()["group_id"]
        .as_i64()
        .unwrap();
    let outer = unique("outer");
    hamlet
        .post(
            "/user_groups/create",
            &[("name", &outer), ("description", "outer"), ("members", "[]"), ("subgroups", &format!("[{inner_id}]"))],
        )
        .success();
    let name = unique("group-mention");
    create_channel(&hamlet, &name, &[], &[othello.user_id, cordelia.user_id]);
    let id = send_to_channel(&hamlet, &name, "t", &format!("hey @*{outer}*"));
    assert!(flags(&fetch(&othello, id)).contains(&"mentioned".to_string()));
    assert!(!flags(&fetch(&cordelia, id)).contains(&"mentioned".to_string()));
}

#[test]
fn user_mention_sets_mentioned_flag() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("mention");
    create_channel(&hamlet, &name, &[], &[othello.user_id]);
    let id = send_to_channel(&hamlet, &name, "t", "hey @**Othello, the Moor of Venice**");
    let m = fetch(&othello, id);
    assert!(flags(&m).contains(&"mentioned".to_string()), "{m}");
    assert!(!flags(&fetch(&hamlet, id)).contains(&"mentioned".to_string()));
}

#[test]
fn channel_wildcard_sets_stream_wildcard_and_wildcard_flags() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("wild");
    create_channel(&hamlet, &name, &[], &[othello.user_id]);
    let id = send_to_channel(&hamlet, &name, "t", "@**all** look");
    let f = flags(&fetch(&othello, id));
    assert!(f.contains(&"stream_wildcard_mentioned".to_string()), "{f:?}");
    assert!(f.contains(&"wildcard_mentioned".to_string()), "{f:?}");
    assert!(!f.contains(&"topic_wildcard_mentioned".to_string()), "{f:?}");
}

#[test]
fn topic_wildcard_sets_flag_for_topic_participants() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let name = unique("topic-wild");
    create_channel(&hamlet, &name, &[], &[othello.user_id, cordelia.user_id]);
    send_to_channel(&othello, &name, "t", "I was here");
    let id = send_to_channel(&hamlet, &name, "t", "@**topic** ping");
    let f = flags(&fetch(&othello, id));
    assert!(f.contains(&"topic_wildcard_mentioned".to_string()) && f.contains(&"wildcard_mentioned".to_string()), "{f:?}");
    assert!(!flags(&fetch(&cordelia, id)).contains(&"topic_wildcard_mentioned".to_string()), "not a participant");
}

fn sixteen_extra_subscribers() -> Vec<i64> {
    let mut ids: Vec<i64> = (0..8).map(|i| user_id(&format!("extrauser{i}@zulip.com"))).collect();
    for email in [
        "othello@zulip.com",
        "cordelia@zulip.com",
        "prospero@zulip.com",
        "aaron@zulip.com",
        "ZOE@zulip.com",
        "iago@zulip.com",
        "shiva@zulip.com",
        "desdemona@zulip.com",
    ] {
        ids.push(user_id(email));
    }
    ids
}

#[test]
fn channel_wildcard_in_large_channel_needs_permission() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("big");
    create_channel(&hamlet, &name, &[], &sixteen_extra_subscribers());
    hamlet
        .post("/messages", &[("type", "stream"), ("to", &name), ("topic", "t"), ("content", "@**all** hi")])
        .bad_request("STREAM_WILDCARD_MENTION_NOT_ALLOWED", "You do not have permission to use channel wildcard mentions in this channel.");
    // Administrators are in can_mention_many_users_group by default.
    let iago = Client::dev("iago@zulip.com");
    send_to_channel(&iago, &name, "t", "@**all** hi");
}

#[test]
fn topic_wildcard_in_busy_topic_needs_permission() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("busy");
    let users = sixteen_extra_subscribers();
    create_channel(&hamlet, &name, &[], &users);
    for email in [
        "othello@zulip.com",
        "cordelia@zulip.com",
        "prospero@zulip.com",
        "aaron@zulip.com",
        "ZOE@zulip.com",
        "iago@zulip.com",
        "shiva@zulip.com",
        "desdemona@zulip.com",
    ] {
        send_to_channel(&Client::dev(email), &name, "crowd", "me too");
    }
    for i in 0..8 {
        send_to_channel(&Client::dev(&format!("extrauser{i}@zulip.com")), &name, "crowd", "me too");
    }
    hamlet
        .post("/messages", &[("type", "stream"), ("to", &name), ("topic", "crowd"), ("content", "@**topic** hi")])
        .bad_request("TOPIC_WILDCARD_MENTION_NOT_ALLOWED", "You do not have permission to use topic wildcard mentions in this topic.");
    // A quiet topic of the same channel is fine.
    send_to_channel(&hamlet, &name, "quiet", "@**topic** hi");
}

#[test]
fn starting_a_topic_follows_it_automatically() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("follow");
    create_channel(&hamlet, &name, &[], &[othello.user_id]);
    let body = hamlet.post("/messages", &[("type", "stream"), ("to", &name), ("topic", "new"), ("content", "first")]).success();
    assert_eq!(body["automatic_new_visibility_policy"], 3);
    // Replying to someone else's topic does not (default: topics the user starts).
    let body = othello.post("/messages", &[("type", "stream"), ("to", &name), ("topic", "new"), ("content", "reply")]).success();
    assert!(body.get("automatic_new_visibility_policy").is_none(), "{body}");
    // And a second message in a followed topic changes nothing.
    let body = hamlet.post("/messages", &[("type", "stream"), ("to", &name), ("topic", "new"), ("content", "again")]).success();
    assert!(body.get("automatic_new_visibility_policy").is_none(), "{body}");
}

#[test]
fn me_message_sets_is_me_message() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("me");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "/me waves");
    assert_eq!(fetch(&hamlet, id)["is_me_message"], true);
}

#[test]
fn recipient_list_mixing_ids_and_emails_is_rejected() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let to = format!("[{}, \"cordelia@zulip.com\"]", othello.user_id);
    hamlet
        .post("/messages", &[("type", "direct"), ("to", &to), ("content", "x")])
        .bad_request("BAD_REQUEST", "Recipient lists may contain emails or user IDs, but not both.");
}

#[test]
fn channel_name_may_be_json_encoded() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("json-name");
    let channel_id = create_channel(&hamlet, &name, &[], &[]);
    let to = serde_json::to_string(&name).unwrap();
    let id =
        hamlet.post("/messages", &[("type", "stream"), ("to", &to), ("topic", "t"), ("content", "x")]).success()["id"].as_i64().unwrap();
    assert_eq!(fetch(&hamlet, id)["stream_id"], channel_id);
}

#[test]
fn to_is_required() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/messages", &[("type", "direct"), ("content", "x")]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'to' argument");
}

#[test]
fn guests_need_a_subscription_to_send_to_public_channels() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let polonius = Client::dev("polonius@zulip.com");
    let name = unique("guest-send");
    create_channel(&hamlet, &name, &[], &[]);
    polonius
        .post("/messages", &[("type", "stream"), ("to", &name), ("topic", "t"), ("content", "x")])
        .bad_request("BAD_REQUEST", &format!("Not authorized to send to channel '{name}'"));
}

#[test]
fn channel_name_is_case_insensitive() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("CaseName");
    let channel_id = create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name.to_lowercase(), "t", "x");
    assert_eq!(fetch(&hamlet, id)["stream_id"], channel_id);
}

#[test]
fn being_mentioned_follows_the_topic() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("mention-follow");
    create_channel(&hamlet, &name, &[], &[othello.user_id]);
    let quiet = send_to_channel(&hamlet, &name, "quiet", "no mention");
    let loud = send_to_channel(&hamlet, &name, "loud", "@**Othello, the Moor of Venice** look");
    let narrow = serde_json::json!([["stream", name], ["is", "followed"]]).to_string();
    let body = othello.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &narrow)]).success();
    let ids: Vec<i64> = body["messages"].as_array().unwrap().iter().map(|m| m["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, vec![loud]);
    assert_ne!(quiet, loud);
}
