//! Custom emoji: `GET/POST/DELETE /realm/emoji`, the image served from R2, `realm_emoji`
//! in register and its event, `:name:` in messages and `realm_emoji` reactions.

mod accounts;
mod chat;
mod common;
mod event_support;
mod upload_support;
use accounts::*;
use chat::*;
use common::*;
use event_support::*;
use serde_json::Value;
use upload_support::*;

/// A valid 1x1 PNG.
const PNG_HEX: &str = "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082";

fn png() -> Vec<u8> {
    (0..PNG_HEX.len()).step_by(2).map(|i| u8::from_str_radix(&PNG_HEX[i..i + 2], 16).unwrap()).collect()
}

/// A GIF header and some bytes (enough for the type check; served back as stored).
fn gif() -> Vec<u8> {
    let mut bytes = b"GIF89a".to_vec();
    bytes.extend((0..300).map(|i| (i % 251) as u8));
    bytes
}

/// `POST /realm/emoji/<name>` with one file part.
fn add(client: &Client, name: &str, file_name: &str, bytes: &[u8]) -> Resp {
    upload_files_to(client, &format!("/realm/emoji/{name}"), &[("f1", file_name, bytes)])
}

/// Adds a PNG emoji named `name`; answers its entry of `GET /realm/emoji`.
fn add_png(client: &Client, name: &str) -> Value {
    add(client, name, "emoji.png", &png()).success();
    find(client, name)
}

/// The emoji named `name` in `GET /realm/emoji` (the newest, if several share the name).
fn find(client: &Client, name: &str) -> Value {
    let body = client.get("/realm/emoji", &[]).success();
    body["emoji"].as_object().unwrap().values().filter(|e| e["name"] == name).max_by_key(|e| id_of(e)).cloned().expect(name)
}

fn id_of(emoji: &Value) -> i64 {
    emoji["id"].as_str().unwrap().parse().unwrap()
}

fn img(name: &str, source_url: &str) -> String {
    format!(r#"<img alt=":{name}:" class="emoji" src="{source_url}" title="{}">"#, name.replace('_', " "))
}

// ---- GET /realm/emoji, POST /realm/emoji/{emoji_name}: the happy path

#[test]
fn upload_lists_the_emoji_in_zulips_shape() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("shape");
    let body = add(&hamlet, &name, "emoji.png", &png()).success();
    assert_matches_openapi("post", "/realm/emoji/{emoji_name}", &body);
    let list = hamlet.get("/realm/emoji", &[]).success();
    assert_matches_openapi("get", "/realm/emoji", &list);
    let emoji = find(&hamlet, &name);
    let id = emoji["id"].as_str().unwrap();
    assert_eq!(list["emoji"][id], emoji, "keyed by its id");
    assert_eq!(emoji["name"], name.as_str());
    assert_eq!(emoji["author_id"], hamlet.user_id);
    assert_eq!(emoji["deactivated"], false);
    assert_eq!(emoji["still_url"], Value::Null);
    let url = emoji["source_url"].as_str().unwrap();
    assert!(url.starts_with("/user_avatars/") && url.contains("/emoji/images/") && url.ends_with(".png"), "{url}");
}

#[test]
fn image_is_served_byte_identical_without_credentials() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let bytes = gif();
    let name = unique("served");
    add(&hamlet, &name, "party.gif", &bytes).success();
    let url = find(&hamlet, &name)["source_url"].as_str().unwrap().to_string();
    assert!(url.ends_with(".gif"), "{url}");
    let got = download(None, &url, &[]);
    assert_eq!(got.status, 200);
    assert_eq!(got.bytes, bytes);
    assert_eq!(got.header("Content-Type"), Some("image/gif"));
}

/// A 1x1 GIF with `frames` frames.
fn animated_gif(frames: usize) -> Vec<u8> {
    let mut g = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff".to_vec();
    g.extend_from_slice(b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00");
    for _ in 0..frames {
        g.extend_from_slice(b"\x21\xf9\x04\x00\x0a\x00\x00\x00");
        g.extend_from_slice(b"\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00");
    }
    g.push(0x3B);
    g
}

#[test]
fn an_animated_emoji_has_a_still_url_serving_its_first_frame() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("anim");
    add(&hamlet, &name, "anim.gif", &animated_gif(2)).success();
    let emoji = find(&hamlet, &name);
    assert_eq!(download(None, emoji["source_url"].as_str().unwrap(), &[]).bytes, animated_gif(2));
    let still = emoji["still_url"].as_str().expect("an animated emoji has a still_url");
    assert!(still.contains("/emoji/images/still/"), "{still}");
    let got = download(None, still, &[]);
    assert_eq!((got.status, got.header("Content-Type")), (200, Some("image/gif")));
    assert_eq!(got.bytes, animated_gif(1));
}

#[test]
fn missing_image_is_not_found() {
    let got = download(None, "/user_avatars/1/emoji/images/0000000000000000.png", &[]);
    assert_eq!(got.status, 404);
}

#[test]
fn spaces_in_the_name_become_underscores() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let base = unique("spaced");
    add(&hamlet, &format!("%20{base}%20two%20"), "emoji.png", &png()).success();
    assert_eq!(find(&hamlet, &format!("{base}_two"))["name"], format!("{base}_two"));
}

// ---- POST: the rules, in Zulip's words

#[test]
fn blank_name_is_missing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    add(&hamlet, "%20", "emoji.png", &png()).bad_request("BAD_REQUEST", "Emoji name is missing");
}

#[test]
fn name_refuses_uppercase_symbols_and_slashes() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let msg = "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.";
    for name in ["my_EMoji", "my_em*oji", "my/emoji/with/slashes"] {
        add(&hamlet, name, "emoji.png", &png()).bad_request("BAD_REQUEST", msg);
    }
}

#[test]
fn name_ends_with_a_letter_or_digit() {
    let hamlet = Client::dev("hamlet@zulip.com");
    add(&hamlet, &format!("{}_", unique("end")), "emoji.png", &png())
        .bad_request("BAD_REQUEST", "Emoji names must end with either a letter or digit.");
}

#[test]
fn guests_may_not_add_emoji() {
    let polonius = Client::dev("polonius@zulip.com");
    add(&polonius, &unique("guest"), "emoji.png", &png()).bad_request("BAD_REQUEST", "Not allowed for guest users");
}

#[test]
fn an_active_name_is_taken() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("taken");
    add_png(&hamlet, &name);
    add(&othello, &name, "emoji.png", &png()).bad_request("BAD_REQUEST", "A custom emoji with this name already exists.");
}

#[test]
fn exactly_one_file_is_required() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("files");
    let two = [("f1", "a.png", png()), ("f2", "b.png", png())];
    let parts: Vec<(&str, &str, &[u8])> = two.iter().map(|(f, n, b)| (*f, *n, b.as_slice())).collect();
    upload_files_to(&hamlet, &format!("/realm/emoji/{name}"), &parts).bad_request("BAD_REQUEST", "You must upload exactly one file.");
    hamlet.post(&format!("/realm/emoji/{name}"), &[]).bad_request("BAD_REQUEST", "You must upload exactly one file.");
    let list = hamlet.get("/realm/emoji", &[]).success();
    assert!(list["emoji"].as_object().unwrap().values().all(|e| e["name"] != name.as_str()), "nothing was added");
}

#[test]
fn only_administrators_override_built_in_emoji() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    // An obscure built-in name, released again at once, so other tests never see it.
    add(&hamlet, "abacus", "emoji.png", &png()).bad_request("BAD_REQUEST", "Only administrators can override default emoji.");
    add(&iago, "abacus", "emoji.png", &png()).success();
    assert_eq!(find(&iago, "abacus")["author_id"], iago.user_id);
    iago.delete("/realm/emoji/abacus", &[]).success();
}

#[test]
fn file_over_the_size_limit_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut big = png();
    big.resize(5 * 1024 * 1024 + 1, 0);
    add(&hamlet, &unique("big"), "big.png", &big).bad_request("BAD_REQUEST", "Uploaded file is larger than the allowed limit of 5 MiB");
}

#[test]
fn other_file_types_are_an_invalid_image_format() {
    let hamlet = Client::dev("hamlet@zulip.com");
    add(&hamlet, &unique("tif"), "img.tif", b"II*\0rest").bad_request("BAD_IMAGE", "Invalid image format");
    add(&hamlet, &unique("svg"), "img.svg", b"<svg/>").bad_request("BAD_IMAGE", "Invalid image format");
}

#[test]
fn bytes_that_are_no_image_do_not_decode() {
    let hamlet = Client::dev("hamlet@zulip.com");
    add(&hamlet, &unique("fake"), "fake.png", b"just some text")
        .bad_request("BAD_IMAGE", "Could not decode image; did you upload an image file?");
}

#[test]
fn can_add_custom_emoji_group_decides_who_may_add() {
    let (owner, member) = fresh_organization();
    let groups = owner.get("/user_groups", &[]).success();
    let group_id =
        |name: &str| -> String { groups["user_groups"].as_array().unwrap().iter().find(|g| g["name"] == name).unwrap()["id"].to_string() };
    let state = owner.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_can_add_custom_emoji_group"].to_string(), group_id("role:members"), "default: members");
    add(&member, &unique("before"), "emoji.png", &png()).success();

    let admins = group_id("role:administrators");
    let body = owner.patch("/realm", &[("can_add_custom_emoji_group", &admins)]).success();
    assert_eq!(body["can_add_custom_emoji_group"].to_string(), admins);
    add(&member, &unique("after"), "emoji.png", &png()).bad_request("BAD_REQUEST", "Insufficient permission");
    add(&owner, &unique("owner"), "emoji.png", &png()).success();
    owner
        .patch("/realm", &[("can_add_custom_emoji_group", &group_id("role:everyone"))])
        .bad_request("BAD_REQUEST", "'can_add_custom_emoji_group' setting cannot be set to 'role:everyone' group.");
}

/// A new organization (its settings may change freely) with its owner and one member.
fn fresh_organization() -> (Client, Client) {
    organization_with_member("emojiorg", "Emoji Org", PASSWORD)
}

// ---- DELETE /realm/emoji/{emoji_name}

#[test]
fn delete_deactivates_and_keeps_the_emoji_listed() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("gone");
    let id = id_of(&add_png(&hamlet, &name));
    let body = hamlet.delete(&format!("/realm/emoji/{name}"), &[]).success();
    assert_matches_openapi("delete", "/realm/emoji/{emoji_name}", &body);
    let list = hamlet.get("/realm/emoji", &[]).success();
    assert_eq!(list["emoji"][id.to_string()]["deactivated"], true);
    // The image stays, for the reactions that use it.
    let url = list["emoji"][id.to_string()]["source_url"].as_str().unwrap().to_string();
    assert_eq!(download(None, &url, &[]).bytes, png());
}

#[test]
fn a_deactivated_name_may_be_added_again() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("again");
    let first = id_of(&add_png(&hamlet, &name));
    hamlet.delete(&format!("/realm/emoji/{name}"), &[]).success();
    let second = id_of(&add_png(&hamlet, &name));
    assert_ne!(first, second);
    let list = hamlet.get("/realm/emoji", &[]).success();
    assert_eq!(list["emoji"][first.to_string()]["deactivated"], true);
    assert_eq!(list["emoji"][second.to_string()]["deactivated"], false);
}

#[test]
fn only_the_author_or_an_administrator_may_delete() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let name = unique("mine");
    add_png(&hamlet, &name);
    cordelia
        .delete(&format!("/realm/emoji/{name}"), &[])
        .bad_request("BAD_REQUEST", "Must be an organization administrator or emoji author");
    iago.delete(&format!("/realm/emoji/{name}"), &[]).success();
    let own = unique("own");
    add_png(&cordelia, &own);
    cordelia.delete(&format!("/realm/emoji/{own}"), &[]).success();
}

#[test]
fn deleting_an_unknown_or_deactivated_name_is_not_found() {
    let iago = Client::dev("iago@zulip.com");
    iago.delete("/realm/emoji/invalid_emoji", &[]).error(404, "BAD_REQUEST", "Emoji 'invalid_emoji' does not exist");
    let name = unique("twice");
    add_png(&iago, &name);
    iago.delete(&format!("/realm/emoji/{name}"), &[]).success();
    iago.delete(&format!("/realm/emoji/{name}"), &[]).error(404, "BAD_REQUEST", &format!("Emoji '{name}' does not exist"));
}

// ---- register and events

#[test]
fn register_carries_realm_emoji() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("reg");
    let emoji = add_png(&hamlet, &name);
    let state = hamlet.post("/register", &[("fetch_event_types", r#"["realm_emoji"]"#)]).success();
    assert_matches_openapi("post", "/register", &state);
    assert_eq!(state["realm_emoji"][emoji["id"].as_str().unwrap()], emoji);
}

#[test]
fn adding_and_deleting_send_the_whole_dict_to_everyone() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let mut queue = register_for(&othello, r#"["realm_emoji"]"#);
    let name = unique("evt");
    add(&hamlet, &name, "emoji.png", &png()).success();
    let has = |e: &Value, deactivated: bool| {
        e["type"] == "realm_emoji"
            && e["realm_emoji"]
                .as_object()
                .is_some_and(|m| m.values().any(|x| x["name"] == name.as_str() && x["deactivated"] == deactivated))
    };
    let added = queue.wait_for("realm_emoji add", |e| has(e, false));
    assert_eq!(added["op"], "update");
    assert_matches_openapi(
        "get",
        "/events",
        &serde_json::json!({"result": "success", "msg": "", "events": [added.clone()], "queue_id": "q"}),
    );
    let listed = hamlet.get("/realm/emoji", &[]).success();
    let id = id_of(&find(&hamlet, &name)).to_string();
    assert_eq!(added["realm_emoji"][&id], listed["emoji"][&id]);
    hamlet.delete(&format!("/realm/emoji/{name}"), &[]).success();
    let removed = queue.wait_for("realm_emoji deactivation", |e| has(e, true));
    assert_eq!(removed["op"], "update");
    assert_eq!(removed["realm_emoji"][&id]["deactivated"], true);
}

// ---- rendering

#[test]
fn name_in_colons_renders_the_image_as_zulip() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = format!("{}_party", unique("r"));
    let url = add_png(&hamlet, &name)["source_url"].as_str().unwrap().to_string();
    let id = send_to_channel(&hamlet, "Verona", &unique("emoji"), &format!("hi :{name}: `:{name}:`"));
    let content = fetch(&hamlet, id)["content"].as_str().unwrap().to_string();
    assert_eq!(content, format!("<p>hi {} <code>:{name}:</code></p>", img(&name, &url)));
    let preview = hamlet.post("/messages/render", &[("content", &format!(":{name}:"))]).success();
    assert_eq!(preview["rendered"], format!("<p>{}</p>", img(&name, &url)));
}

#[test]
fn deactivated_emoji_no_longer_renders_but_old_messages_keep_it() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("old");
    let url = add_png(&hamlet, &name)["source_url"].as_str().unwrap().to_string();
    let topic = unique("emoji");
    let before = send_to_channel(&hamlet, "Verona", &topic, &format!(":{name}:"));
    hamlet.delete(&format!("/realm/emoji/{name}"), &[]).success();
    let after = send_to_channel(&hamlet, "Verona", &topic, &format!(":{name}:"));
    assert_eq!(fetch(&hamlet, before)["content"], format!("<p>{}</p>", img(&name, &url)));
    assert_eq!(fetch(&hamlet, after)["content"], format!("<p>:{name}:</p>"));
}

// ---- reactions

/// A new emoji of `client` and a new message to react to: (name, emoji id, message id).
fn emoji_and_message(client: &Client, prefix: &str) -> (String, String, i64) {
    let name = unique(prefix);
    let code = add_png(client, &name)["id"].as_str().unwrap().to_string();
    let id = send_to_channel(client, "Verona", &unique("emoji"), "react to me");
    (name, code, id)
}

#[test]
fn reaction_with_a_custom_emoji_by_id() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let (name, code, id) = emoji_and_message(&hamlet, "react");
    let mut queue = register_for(&hamlet, r#"["reaction"]"#);
    othello
        .post(&format!("/messages/{id}/reactions"), &[("emoji_name", &name), ("emoji_code", &code), ("reaction_type", "realm_emoji")])
        .success();
    let event = queue.wait_for("reaction", |e| e["type"] == "reaction" && e["message_id"] == id);
    assert_eq!((event["emoji_code"].as_str(), event["reaction_type"].as_str()), (Some(code.as_str()), Some("realm_emoji")));
    let reactions = fetch(&hamlet, id)["reactions"].clone();
    assert_eq!(reactions[0]["emoji_name"], name.as_str());
    assert_eq!(reactions[0]["emoji_code"], code.as_str());
    assert_eq!(reactions[0]["reaction_type"], "realm_emoji");
}

#[test]
fn reaction_by_name_alone_finds_the_custom_emoji() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (name, code, id) = emoji_and_message(&hamlet, "byname");
    hamlet.post(&format!("/messages/{id}/reactions"), &[("emoji_name", &name)]).success();
    let reactions = fetch(&hamlet, id)["reactions"].clone();
    assert_eq!((reactions[0]["emoji_code"].as_str(), reactions[0]["reaction_type"].as_str()), (Some(code.as_str()), Some("realm_emoji")));
}

#[test]
fn custom_emoji_reaction_is_removed_by_name() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (name, _, id) = emoji_and_message(&hamlet, "unreact");
    hamlet.post(&format!("/messages/{id}/reactions"), &[("emoji_name", &name)]).success();
    hamlet.delete(&format!("/messages/{id}/reactions"), &[("emoji_name", &name)]).success();
    assert_eq!(fetch(&hamlet, id)["reactions"], serde_json::json!([]));
}

#[test]
fn reaction_with_a_wrong_custom_emoji_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (name, code, id) = emoji_and_message(&hamlet, "wrong");
    let path = format!("/messages/{id}/reactions");
    hamlet
        .post(&path, &[("emoji_name", &name), ("emoji_code", "999999999"), ("reaction_type", "realm_emoji")])
        .bad_request("BAD_REQUEST", "Invalid custom emoji.");
    hamlet
        .post(&path, &[("emoji_name", "other_name"), ("emoji_code", &code), ("reaction_type", "realm_emoji")])
        .bad_request("BAD_REQUEST", "Invalid custom emoji name.");
}

#[test]
fn deactivated_emoji_keeps_its_reactions_and_takes_no_new_ones() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let name = unique("retired");
    let code = add_png(&hamlet, &name)["id"].as_str().unwrap().to_string();
    let topic = unique("emoji");
    let reacted = send_to_channel(&hamlet, "Verona", &topic, "old");
    let fresh = send_to_channel(&hamlet, "Verona", &topic, "new");
    let form = [("emoji_name", name.as_str()), ("emoji_code", code.as_str()), ("reaction_type", "realm_emoji")];
    othello.post(&format!("/messages/{reacted}/reactions"), &form).success();
    hamlet.delete(&format!("/realm/emoji/{name}"), &[]).success();

    othello.post(&format!("/messages/{fresh}/reactions"), &form).bad_request("BAD_REQUEST", "This custom emoji has been deactivated.");
    othello
        .post(&format!("/messages/{fresh}/reactions"), &[("emoji_name", &name)])
        .bad_request("BAD_REQUEST", &format!("Emoji '{name}' does not exist"));
    let reactions = fetch(&hamlet, reacted)["reactions"].clone();
    assert_eq!(reactions[0]["emoji_code"], code.as_str(), "the existing reaction stays");
    // Joining a reaction someone already made is still allowed, as in Zulip.
    cordelia.post(&format!("/messages/{reacted}/reactions"), &form).success();
    assert_eq!(fetch(&hamlet, reacted)["reactions"].as_array().unwrap().len(), 2);
}
