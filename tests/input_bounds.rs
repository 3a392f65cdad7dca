//! Plain bad input is a Zulip-style 400 and changes nothing, whatever the endpoint: ids
//! beyond what D1 can bind, empty JSON lists, any Unicode in strings.

mod chat;
mod common;
use chat::*;
use common::*;

/// 2^53: the first integer a JavaScript double (D1's number binding) cannot hold exactly.
const TWO_POW_53: &str = "9007199254740992";

#[test]
fn message_id_beyond_2_pow_53_is_an_invalid_message() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.get(&format!("/messages/{TWO_POW_53}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
    hamlet.get("/messages/-9007199254740993", &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn reaction_on_message_id_beyond_2_pow_53_is_an_invalid_message() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/messages/26140883314102884/reactions", &[("emoji_name", "octopus")]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn integer_parameter_beyond_2_pow_53_is_not_an_integer() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/user_topics", &[("stream_id", "-12013945706201564"), ("topic", "t"), ("visibility_policy", "1")])
        .bad_request("BAD_REQUEST", "stream_id is not an integer");
}

#[test]
fn json_list_with_an_integer_beyond_2_pow_53_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let to = format!("[{TWO_POW_53}]");
    hamlet
        .post("/typing", &[("op", "start"), ("to", &to)])
        .bad_request("BAD_REQUEST", &format!("Invalid to: integers must be within ±{}", (1i64 << 53) - 1));
}

#[test]
fn direct_message_to_a_user_id_beyond_2_pow_53_sends_nothing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let to = format!("[{TWO_POW_53}]");
    let resp = hamlet.post("/messages", &[("type", "direct"), ("to", &to), ("content", "never sent")]);
    assert_eq!(resp.status, 400, "{:?}", resp.body);
    assert_eq!(resp.body["result"], "error");
}

#[test]
fn channel_message_to_a_channel_id_beyond_2_pow_53_is_an_unknown_channel() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/messages", &[("type", "stream"), ("to", TWO_POW_53), ("topic", "t"), ("content", "never sent")])
        .bad_request("STREAM_DOES_NOT_EXIST", &format!("Channel '{TWO_POW_53}' does not exist"));
}

#[test]
fn narrow_operand_beyond_2_pow_53_is_refused_not_a_server_error() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let narrow = format!(r#"[{{"operator":"id","operand":"{TWO_POW_53}"}}]"#);
    let resp = hamlet.get("/messages", &[("anchor", "newest"), ("num_before", "1"), ("num_after", "0"), ("narrow", &narrow)]);
    assert_eq!(resp.status, 400, "{:?}", resp.body);
}

#[test]
fn empty_subscription_data_changes_nothing_and_succeeds() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/users/me/subscriptions/properties", &[("subscription_data", "[]")]).success();
}

#[test]
fn any_unicode_in_a_topic_round_trips() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("unicode");
    create_channel(&hamlet, &name, &[], &[]);
    let topic = "Ünïcødé 🐙 中文";
    let id = send_to_channel(&hamlet, &name, topic, "✔ ünïcødé 🐙");
    assert_eq!(fetch(&hamlet, id)["subject"], topic);
}

#[test]
fn json_lists_are_bounded_before_any_work() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let ids = format!("[{}]", vec![hamlet.user_id.to_string(); 10_001].join(","));
    hamlet
        .post("/messages/flags", &[("messages", &ids), ("op", "add"), ("flag", "read")])
        .bad_request("BAD_REQUEST", "messages has too many items (limit: 10000)");
}

#[test]
fn json_nesting_is_bounded() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
    hamlet
        .get("/messages", &[("anchor", "newest"), ("num_before", "1"), ("num_after", "0"), ("narrow", &deep)])
        .bad_request("BAD_REQUEST", "narrow is nested too deeply (limit: 16 levels)");
}

#[test]
fn an_anchor_past_2_pow_53_reads_as_newest() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.get("/messages", &[("anchor", "10000000000000000"), ("num_before", "1"), ("num_after", "0")]).success();
    assert_eq!(body["found_newest"], true, "{body}");
}

#[test]
fn a_body_over_the_bound_is_refused_before_it_is_read() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let content = "x".repeat(33 << 20);
    let resp = hamlet.post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", "t"), ("content", &content)]);
    assert_eq!(resp.status, 413, "{:?}", resp.body);
    assert_eq!(resp.body["code"], "BAD_REQUEST");
    assert_eq!(resp.body["msg"], "Request body too large (limit: 32 MiB)");
}

#[test]
fn a_channel_description_over_zulips_limit_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("long-description");
    let subscriptions = serde_json::json!([{"name": name, "description": "d".repeat(1025)}]).to_string();
    hamlet
        .post("/users/me/subscriptions", &[("subscriptions", &subscriptions)])
        .bad_request("BAD_REQUEST", "description is too long (limit: 1024 characters)");
    let streams = hamlet.get("/streams", &[]).success();
    assert!(streams["streams"].as_array().unwrap().iter().all(|s| s["name"] != name.as_str()), "nothing was created");
}

/// Every route that takes an id in its path, with the id beyond 2^53 (as admin, so no
/// role check answers first).
const ID_ROUTES: &[(&str, &str)] = &[
    ("PATCH", "/users/me/subscriptions/{}"),
    ("GET", "/users/{}/status"),
    ("GET", "/users/{}/presence"),
    ("POST", "/users/me/muted_users/{}"),
    ("DELETE", "/users/me/muted_users/{}"),
    ("GET", "/users/{}"),
    ("DELETE", "/users/{}"),
    ("PATCH", "/users/{}"),
    ("POST", "/users/{}/reactivate"),
    ("POST", "/bots/{}/api_key/regenerate"),
    ("POST", "/user_groups/{}/members"),
    ("GET", "/user_groups/{}/members"),
    ("GET", "/user_groups/{}/members/{}"),
    ("POST", "/user_groups/{}/subgroups"),
    ("GET", "/user_groups/{}/subgroups"),
    ("GET", "/users/me/{}/topics"),
    ("GET", "/streams/{}"),
    ("PATCH", "/streams/{}"),
    ("GET", "/streams/{}/members"),
    ("PATCH", "/channel_folders/{}"),
    ("GET", "/messages/{}"),
    ("PATCH", "/messages/{}"),
    ("DELETE", "/messages/{}"),
    ("GET", "/messages/{}/history"),
    ("POST", "/messages/{}/reactions"),
    ("DELETE", "/messages/{}/reactions"),
    ("PATCH", "/scheduled_messages/{}"),
    ("DELETE", "/scheduled_messages/{}"),
    ("PATCH", "/drafts/{}"),
    ("DELETE", "/drafts/{}"),
    ("PATCH", "/saved_snippets/{}"),
    ("DELETE", "/saved_snippets/{}"),
    ("DELETE", "/realm/playgrounds/{}"),
    ("PATCH", "/realm/filters/{}"),
    ("DELETE", "/realm/filters/{}"),
    ("DELETE", "/attachments/{}"),
    ("GET", "/user_uploads/{}/ab/cdef/file.txt"),
];

#[test]
fn every_path_id_beyond_2_pow_53_is_a_client_error() {
    let iago = Client::dev("iago@zulip.com");
    for (method, template) in ID_ROUTES {
        let path = template.replace("{}", TWO_POW_53);
        let resp = request(method, &path, &[], Some(Body::Form(&[])), iago.auth(), None);
        assert!((400..500).contains(&resp.status), "{method} {path}: {} {:?}", resp.status, resp.body);
        assert_eq!(resp.body["result"], "error", "{method} {path}: {:?}", resp.body);
    }
}
