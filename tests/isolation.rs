//! No read, write, event, key or user lookup crosses between organizations: an id from
//! another organization behaves exactly as an id that does not exist.

mod chat;
mod common;
mod event_support;
mod upload_support;
use chat::lear;
use common::*;
use event_support::*;
use serde_json::{json, Value};

/// An id no organization has.
const MISSING: i64 = 987_654_321;

/// Objects of the `lear` organization, seen from the default one.
struct Foreign {
    message_id: i64,
    channel_id: i64,
    user_id: i64,
    group_id: i64,
}

fn foreign() -> Foreign {
    let king = lear("king@lear.org");
    let cordelia = lear("cordelia@lear.org");
    let streams = king.get("/streams", &[]).success();
    let channel = &streams["streams"][0];
    let channel_id = channel["stream_id"].as_i64().unwrap();
    let name = channel["name"].as_str().unwrap().to_string();
    let sent = king.post("/messages", &[("type", "stream"), ("to", &name), ("topic", "isolation"), ("content", "lear only")]).success();
    let groups = king.get("/user_groups", &[]).success();
    Foreign {
        message_id: sent["id"].as_i64().unwrap(),
        channel_id,
        user_id: cordelia.user_id,
        group_id: groups["user_groups"][0]["id"].as_i64().unwrap(),
    }
}

/// The answer, with the id itself written as `<id>` so two answers compare.
fn shape(resp: Resp, id: i64) -> (u16, String) {
    let mut body = resp.body;
    if let Some(obj) = body.as_object_mut() {
        obj.remove("ignored_parameters_unsupported");
    }
    (resp.status, replace_number(&body.to_string(), id))
}

/// `text` with every whole occurrence of the number `id` (not part of a longer number)
/// written as `<id>`.
fn replace_number(text: &str, id: i64) -> String {
    let needle = id.to_string();
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + needle.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(|c| c.is_ascii_digit()) || after.is_some_and(|c| c.is_ascii_digit()) {
            out.push_str(&needle);
        } else {
            out.push_str("<id>");
        }
        rest = &rest[at + needle.len()..];
    }
    out.push_str(rest);
    out
}

/// `call(id)` answers the same for the foreign id as for a missing one.
#[track_caller]
fn same_as_missing(what: &str, foreign_id: i64, call: impl Fn(i64) -> Resp) {
    let foreign = shape(call(foreign_id), foreign_id);
    let missing = shape(call(MISSING), MISSING);
    assert_eq!(foreign, missing, "{what}: a foreign id must behave as a missing one");
    assert!(foreign.0 < 500, "{what}: {foreign:?}");
}

#[test]
fn foreign_message_ids_behave_as_missing_ones() {
    let f = foreign();
    let hamlet = Client::dev("hamlet@zulip.com");
    same_as_missing("fetch", f.message_id, |id| hamlet.get(&format!("/messages/{id}"), &[]));
    same_as_missing("history", f.message_id, |id| hamlet.get(&format!("/messages/{id}/history"), &[]));
    same_as_missing("react", f.message_id, |id| hamlet.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "octopus")]));
    same_as_missing("unreact", f.message_id, |id| hamlet.delete(&format!("/messages/{id}/reactions"), &[("emoji_name", "octopus")]));
    same_as_missing("edit", f.message_id, |id| hamlet.patch(&format!("/messages/{id}"), &[("content", "taken over")]));
    same_as_missing("delete", f.message_id, |id| Client::dev("iago@zulip.com").delete(&format!("/messages/{id}"), &[]));
    same_as_missing("flags", f.message_id, |id| {
        hamlet.post("/messages/flags", &[("messages", &format!("[{id}]")), ("op", "add"), ("flag", "starred")])
    });
    same_as_missing("narrow by id", f.message_id, |id| {
        let narrow = json!([{"operator": "id", "operand": id}]).to_string();
        hamlet.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &narrow)])
    });
    let king = lear("king@lear.org");
    assert_eq!(king.get(&format!("/messages/{}", f.message_id), &[]).success()["raw_content"], "lear only", "nothing changed in lear");
}

#[test]
fn foreign_channel_ids_behave_as_missing_ones() {
    let f = foreign();
    let hamlet = Client::dev("hamlet@zulip.com");
    same_as_missing("channel", f.channel_id, |id| hamlet.get(&format!("/streams/{id}"), &[]));
    same_as_missing("members", f.channel_id, |id| hamlet.get(&format!("/streams/{id}/members"), &[]));
    same_as_missing("topics", f.channel_id, |id| hamlet.get(&format!("/users/me/{id}/topics"), &[]));
    same_as_missing("one property", f.channel_id, |id| {
        hamlet.patch(&format!("/users/me/subscriptions/{id}"), &[("property", "pin_to_top"), ("value", "true")])
    });
    same_as_missing("properties", f.channel_id, |id| {
        let data = json!([{"stream_id": id, "property": "pin_to_top", "value": true}]).to_string();
        hamlet.post("/users/me/subscriptions/properties", &[("subscription_data", &data)])
    });
    same_as_missing("user topic", f.channel_id, |id| {
        hamlet.post("/user_topics", &[("stream_id", &id.to_string()), ("topic", "t"), ("visibility_policy", "1")])
    });
    same_as_missing("send", f.channel_id, |id| {
        hamlet.post("/messages", &[("type", "stream"), ("to", &id.to_string()), ("topic", "t"), ("content", "leak")])
    });
    same_as_missing("typing", f.channel_id, |id| {
        hamlet.post("/typing", &[("op", "start"), ("type", "stream"), ("stream_id", &id.to_string()), ("topic", "t")])
    });
}

#[test]
fn foreign_user_ids_behave_as_missing_ones() {
    let f = foreign();
    let hamlet = Client::dev("hamlet@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    same_as_missing("user", f.user_id, |id| hamlet.get(&format!("/users/{id}"), &[]));
    same_as_missing("direct message", f.user_id, |id| {
        hamlet.post("/messages", &[("type", "direct"), ("to", &format!("[{id}]")), ("content", "leak")])
    });
    same_as_missing("typing", f.user_id, |id| hamlet.post("/typing", &[("op", "start"), ("to", &format!("[{id}]"))]));
    same_as_missing("update", f.user_id, |id| iago.patch(&format!("/users/{id}"), &[("full_name", "Renamed")]));
    same_as_missing("deactivate", f.user_id, |id| iago.delete(&format!("/users/{id}"), &[]));
    same_as_missing("reactivate", f.user_id, |id| iago.post(&format!("/users/{id}/reactivate"), &[]));
    same_as_missing("subscribe", f.user_id, |id| {
        iago.post("/users/me/subscriptions", &[("subscriptions", r#"[{"name": "Verona"}]"#), ("principals", &format!("[{id}]"))])
    });
    let groups = hamlet.get("/user_groups", &[]).success();
    let group_id = groups["user_groups"][0]["id"].as_i64().unwrap();
    same_as_missing("group membership", f.user_id, |id| hamlet.get(&format!("/user_groups/{group_id}/members/{id}"), &[]));
    let cordelia = lear("cordelia@lear.org");
    assert_eq!(cordelia.get("/users/me", &[]).success()["is_active"], true, "nothing changed in lear");
}

#[test]
fn foreign_emails_behave_as_missing_ones() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let foreign = hamlet.get("/users/king@lear.org", &[]);
    let missing = hamlet.get("/users/nobody@lear.org", &[]);
    assert_eq!((foreign.status, foreign.body.clone()), (missing.status, missing.body), "{:?}", foreign.body);
}

#[test]
fn foreign_group_ids_behave_as_missing_ones() {
    let f = foreign();
    let hamlet = Client::dev("hamlet@zulip.com");
    same_as_missing("members", f.group_id, |id| hamlet.get(&format!("/user_groups/{id}/members"), &[]));
    same_as_missing("subgroups", f.group_id, |id| hamlet.get(&format!("/user_groups/{id}/subgroups"), &[]));
    same_as_missing("is member", f.group_id, |id| hamlet.get(&format!("/user_groups/{id}/members/{}", hamlet.user_id), &[]));
}

#[test]
fn an_api_key_only_opens_its_own_organization() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let elsewhere = Client { realm: Some("lear".into()), ..hamlet.clone() };
    let body = elsewhere.get("/users/me", &[]).error(401, "INVALID_API_KEY", "Invalid API key");
    assert!(body.get("email").is_none(), "{body:?}");
}

#[test]
fn users_of_one_organization_are_not_listed_in_another() {
    let king = lear("king@lear.org");
    let users = king.get("/users", &[]).success();
    let emails: Vec<&str> = users["members"].as_array().unwrap().iter().map(|u| u["email"].as_str().unwrap()).collect();
    let zulip = Client::dev("hamlet@zulip.com").get("/users", &[]).success();
    // No user of the default organization appears, bot or not (ids are unique server-wide;
    // lear's own notification bot has Zulip's address, and other tests invite people into
    // lear from any domain).
    let zulip_emails: Vec<&str> = zulip["members"].as_array().unwrap().iter().map(|u| u["email"].as_str().unwrap()).collect();
    assert!(emails.iter().all(|e| !zulip_emails.contains(e) || *e == "notification-bot@zulip.com"), "{emails:?}");
    let zulip_ids: Vec<&Value> = zulip["members"].as_array().unwrap().iter().map(|u| &u["user_id"]).collect();
    assert!(users["members"].as_array().unwrap().iter().all(|u| !zulip_ids.contains(&&u["user_id"])), "{users:?}");
    let streams = king.get("/streams", &[]).success();
    assert!(streams["streams"].as_array().unwrap().iter().all(|s| s["name"] != "Verona"), "{streams:?}");
}

#[test]
fn events_of_one_organization_never_reach_another() {
    let king = lear("king@lear.org");
    let mut queue = register_for(&king, r#"["message"]"#);
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", "isolation"), ("content", "zulip only")]).success();
    let sentinel = unique("sentinel");
    let streams = king.get("/streams", &[]).success();
    let name = streams["streams"][0]["name"].as_str().unwrap().to_string();
    king.post("/messages", &[("type", "stream"), ("to", &name), ("topic", "isolation"), ("content", &sentinel)]).success();
    let mut seen: Vec<Value> = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        assert!(std::time::Instant::now() < deadline, "the lear sentinel never arrived: {seen:?}");
        let events = queue.poll(false);
        let done = events.iter().any(|e| e["type"] == "message" && e["message"]["content"].as_str().is_some_and(|c| c.contains(&sentinel)));
        seen.extend(events);
        if done {
            break;
        }
    }
    assert!(
        seen.iter().all(|e| e["type"] != "message" || e["message"]["sender_email"] != "hamlet@zulip.com"),
        "a lear queue saw a zulip message: {seen:?}"
    );
}

#[test]
fn uploads_of_one_organization_behave_as_missing_in_another() {
    let king = lear("king@lear.org");
    let url = upload_support::upload(&king, "lear-secret.txt", b"lear only");
    let hamlet = Client::dev("hamlet@zulip.com");
    let foreign = upload_support::download(Some(&hamlet), &url, &[]);
    let missing_url = url.replace("lear-secret", "no-such-file");
    let missing = upload_support::download(Some(&hamlet), &missing_url, &[]);
    assert_eq!(foreign.status, missing.status);
    assert_eq!(foreign.json(), missing.json());
    assert_ne!(foreign.bytes, b"lear only".to_vec());
}
