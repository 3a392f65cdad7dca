//! Data exports (`/export/realm`): administrators only, Zulip's rate limit, the
//! `realm_export` events, the archive's layout file by file, what a public export leaves
//! out, consent, and deletion. Each test makes its own organization: the rate limit counts
//! per organization.

mod common;
mod event_support;
mod upload_support;
use std::collections::{BTreeMap, BTreeSet};

use common::*;
use event_support::*;
use serde_json::{json, Value};
use upload_support::{download, incompressible, unpack, upload, upload_files_to};

const PASSWORD: &str = "export-test-password-8121";

/// A new organization with its owner and one member.
fn fresh_organization() -> (Client, Client) {
    organization_with_member("exportorg", "Export Org", PASSWORD)
}

/// A second member of `owner`'s organization, signed in.
fn another_member(owner: &Client) -> Client {
    let realm = owner.realm.clone().unwrap();
    let email = format!("other@{realm}.example.com");
    owner.post("/users", &[("email", email.as_str()), ("password", PASSWORD), ("full_name", "Otto Other")]).success();
    let form: &[(&str, &str)] = &[("username", &email), ("password", PASSWORD)];
    let body = request("POST", "/fetch_api_key", &[], Some(Body::Form(form)), None, Some(&realm)).success();
    Client { email, api_key: body["api_key"].as_str().unwrap().to_string(), user_id: body["user_id"].as_i64().unwrap(), realm: Some(realm) }
}

fn consent(client: &Client) {
    client.patch("/settings", &[("allow_private_data_export", "true")]).success();
}

/// Requests an export and waits for the `realm_export` event that shows it finished.
fn finished_export(admin: &Client, export_type: &str) -> Value {
    let mut queue = register_for(admin, r#"["realm_export"]"#);
    let id = admin.post("/export/realm", &[("export_type", export_type)]).success()["id"].as_i64().unwrap();
    let event = queue.wait_for("finished realm_export", |e| {
        e["type"] == "realm_export" && e["exports"].as_array().unwrap().iter().any(|x| x["id"] == id && x["pending"] == false)
    });
    event["exports"].as_array().unwrap().iter().find(|x| x["id"] == id).cloned().unwrap()
}

fn json_file(files: &BTreeMap<String, Vec<u8>>, name: &str) -> Value {
    serde_json::from_slice(files.get(name).unwrap_or_else(|| panic!("{name} missing; files: {:?}", files.keys()))).unwrap()
}

fn send_to_channel(client: &Client, channel: &str, content: &str) -> i64 {
    let form = [("type", "stream"), ("to", channel), ("topic", "export"), ("content", content)];
    client.post("/messages", &form).success()["id"].as_i64().unwrap()
}

fn create_channel(client: &Client, name: &str, invite_only: bool) {
    let subs = format!(r#"[{{"name":"{name}"}}]"#);
    let private = if invite_only { "true" } else { "false" };
    client.post("/users/me/subscriptions", &[("subscriptions", &subs), ("invite_only", private)]).success();
}

fn exported_messages(files: &BTreeMap<String, Vec<u8>>) -> Vec<Value> {
    json_file(files, "messages-000001.json")["zerver_message"].as_array().unwrap().clone()
}

// ---- permission, validation, rate limit

#[test]
fn non_administrators_are_refused_with_zulips_error() {
    let (_owner, member) = fresh_organization();
    let msg = "Must be an organization administrator";
    member.post("/export/realm", &[]).bad_request("UNAUTHORIZED_PRINCIPAL", msg);
    member.get("/export/realm", &[]).bad_request("UNAUTHORIZED_PRINCIPAL", msg);
    member.get("/export/realm/consents", &[]).bad_request("UNAUTHORIZED_PRINCIPAL", msg);
    member.delete("/export/realm/1", &[]).bad_request("UNAUTHORIZED_PRINCIPAL", msg);
}

#[test]
fn an_unknown_export_type_is_refused_and_nothing_is_exported() {
    let (owner, _member) = fresh_organization();
    owner.post("/export/realm", &[("export_type", "3")]).bad_request("BAD_REQUEST", "Invalid export_type");
    let list = owner.get("/export/realm", &[]).success();
    assert_eq!(list["exports"], serde_json::json!([]));
}

#[test]
fn a_sixth_export_within_a_week_exceeds_the_rate_limit() {
    let (owner, _member) = fresh_organization();
    for _ in 0..5 {
        owner.post("/export/realm", &[]).success();
    }
    owner.post("/export/realm", &[]).bad_request("BAD_REQUEST", "Exceeded rate limit.");
    assert_eq!(owner.get("/export/realm", &[]).success()["exports"].as_array().unwrap().len(), 5);
}

// ---- the export and its events

#[test]
fn an_export_is_announced_pending_then_finished_with_a_download_url() {
    let (owner, _member) = fresh_organization();
    let mut queue = register_for(&owner, r#"["realm_export"]"#);
    let body = owner.post("/export/realm", &[]).success();
    assert_matches_openapi("post", "/export/realm", &body);
    let id = body["id"].as_i64().unwrap();
    let first = queue.wait_for("realm_export", |e| e["type"] == "realm_export");
    let pending = first["exports"].as_array().unwrap().iter().find(|x| x["id"] == id).cloned().unwrap();
    assert_eq!(pending["pending"], true);
    assert_eq!(pending["export_url"], Value::Null);
    // A build takes several alarms: heartbeats may come first.
    let done = queue.wait_for("finished export", |e| {
        e["type"] == "realm_export" && e["exports"].as_array().unwrap().iter().any(|x| x["id"] == id && x["pending"] == false)
    });
    let export = done["exports"].as_array().unwrap().iter().find(|x| x["id"] == id).cloned().unwrap();
    assert_eq!(export["acting_user_id"], owner.user_id);
    assert_eq!(export["export_type"], 1);
    assert_eq!(export["failed_timestamp"], Value::Null);
    assert!(export["export_url"].as_str().unwrap().ends_with(".tar.gz"), "{export}");
    let list = owner.get("/export/realm", &[]).success();
    assert_matches_openapi("get", "/export/realm", &list);
    let listed = &list["exports"][0];
    for field in ["id", "acting_user_id", "export_url", "pending", "export_type", "deleted_timestamp", "failed_timestamp"] {
        assert_eq!(listed[field], export[field], "{field}");
    }
    assert_eq!(listed["export_time"].as_f64(), export["export_time"].as_f64());
}

/// Zulip's `import_realm.py` reads these without checking they exist: an archive lacking
/// one stops its import.
#[test]
fn realm_json_holds_every_table_zulips_importer_reads_in_its_shape() {
    let (owner, _member) = fresh_organization();
    let realm = json_file(&unpack(&owner, &finished_export(&owner, "1")), "realm.json");
    assert_eq!(realm["import_source"], "zulip");
    for table in [
        "zerver_huddle",
        "zerver_userprofile_mirrordummy",
        "zerver_userprofile_crossrealm",
        "zerver_customprofilefield",
        "zerver_customprofilefieldvalue",
        "zerver_realmauthenticationmethod",
        "zerver_defaultstream",
        "zerver_realmemoji",
        "zerver_realmdomain",
        "zerver_realmfilter",
        "zerver_realmplayground",
        "zerver_realmuserdefault",
        "zerver_userpresence",
        "zerver_useractivity",
        "zerver_useractivityinterval",
        "zerver_reaction",
        "zerver_client",
    ] {
        assert!(realm[table].is_array(), "realm.json lacks {table}");
    }
    // Every group in zerver_usergroup (id and organization only), the named ones'
    // details in zerver_namedusergroup by `usergroup_ptr`.
    let groups = realm["zerver_usergroup"].as_array().unwrap();
    assert!(groups.iter().all(|g| g.as_object().unwrap().len() == 2 && g["realm"] == realm["zerver_realm"][0]["id"]), "{groups:?}");
    let group_ids: BTreeSet<i64> = groups.iter().map(|g| g["id"].as_i64().unwrap()).collect();
    let named = realm["zerver_namedusergroup"].as_array().unwrap();
    assert!(named.iter().all(|g| g["usergroup_ptr"] == g["id"] && g["realm_for_sharding"] == realm["zerver_realm"][0]["id"]));
    assert!(named.iter().all(|g| group_ids.contains(&g["id"].as_i64().unwrap())), "{named:?}");
    let user = &realm["zerver_userprofile"][0];
    assert_eq!((&user["groups"], &user["user_permissions"]), (&serde_json::json!([]), &serde_json::json!([])));
    // Each group-valued setting is the id of a group of zerver_usergroup.
    let names_a_group = |row: &Value, setting: &str| row[setting].as_i64().is_some_and(|id| group_ids.contains(&id));
    // Those this server keeps, and those it does not (Zulip's importer reads every one).
    let unstored = [
        "can_access_all_users_group",
        "can_create_bots_group",
        "can_create_write_only_bots_group",
        "can_create_web_public_channel_group",
        "can_manage_billing_group",
        "can_set_delete_message_policy_group",
        "can_summarize_topics_group",
        "direct_message_initiator_group",
        "direct_message_permission_group",
    ];
    for setting in REALM_GROUP_SETTINGS.iter().chain(&unstored) {
        assert!(names_a_group(&realm["zerver_realm"][0], setting), "zerver_realm's {setting}: {}", realm["zerver_realm"][0]);
    }
    // No field of this server's own, which Zulip's models would refuse.
    for field in ["max_message_length", "max_topic_length"] {
        assert!(realm["zerver_realm"][0].get(field).is_none(), "zerver_realm has {field}");
    }
    assert!(realm["zerver_namedusergroup"].as_array().unwrap().iter().all(|g| g.get("system_role").is_none()));
    let channels = realm["zerver_stream"].as_array().unwrap();
    assert!(!channels.is_empty());
    // Zulip numbers a channel's topics policy (1: the organization's).
    assert!(channels.iter().all(|c| c["topics_policy"] == 1), "{channels:?}");
    for (channel, setting) in channels.iter().flat_map(|c| CHANNEL_GROUP_SETTINGS.iter().map(move |s| (c, s))) {
        assert!(names_a_group(channel, setting), "zerver_stream's {setting}: {channel}");
    }
    for (group, setting) in named.iter().flat_map(|g| NAMED_GROUP_SETTINGS.iter().map(move |s| (g, s))) {
        assert!(names_a_group(group, setting), "zerver_namedusergroup's {setting}: {group}");
    }
    // Members and subgroups: rows with ids of their own, naming the archive's groups and users.
    let user_ids: BTreeSet<i64> = realm["zerver_userprofile"].as_array().unwrap().iter().map(|u| u["id"].as_i64().unwrap()).collect();
    let memberships = realm["zerver_usergroupmembership"].as_array().unwrap();
    assert!(!memberships.is_empty());
    for m in memberships {
        assert!(m["id"].is_i64() && names_a_group(m, "user_group") && user_ids.contains(&m["user_profile"].as_i64().unwrap()), "{m}");
    }
    let subgroups = realm["zerver_groupgroupmembership"].as_array().unwrap();
    assert!(!subgroups.is_empty());
    assert!(subgroups.iter().all(|s| s["id"].is_i64() && names_a_group(s, "supergroup") && names_a_group(s, "subgroup")), "{subgroups:?}");
}

/// A named group's id in `realm.json`, by name.
fn exported_group(realm: &Value, name: &str) -> i64 {
    let named = realm["zerver_namedusergroup"].as_array().unwrap();
    named.iter().find(|g| g["name"] == name).unwrap_or_else(|| panic!("{name}: {named:?}"))["id"].as_i64().unwrap()
}

/// The direct members (user ids) and direct subgroups (group ids) of a group of `realm.json`.
fn exported_members(realm: &Value, group: i64) -> (Vec<i64>, Vec<i64>) {
    let ids = |table: &str, key: &str, field: &str| -> Vec<i64> {
        let rows = realm[table].as_array().unwrap().iter().filter(|r| r[key] == group);
        let mut ids: Vec<i64> = rows.map(|r| r[field].as_i64().unwrap()).collect();
        ids.sort();
        ids
    };
    (ids("zerver_usergroupmembership", "user_group", "user_profile"), ids("zerver_groupgroupmembership", "supergroup", "subgroup"))
}

fn is_named(realm: &Value, group: i64) -> bool {
    realm["zerver_namedusergroup"].as_array().unwrap().iter().any(|g| g["id"] == group)
}

#[test]
fn the_role_groups_members_are_exported_as_membership_rows() {
    let (owner, member) = fresh_organization();
    let realm = json_file(&unpack(&owner, &finished_export(&owner, "1")), "realm.json");
    assert_eq!(exported_members(&realm, exported_group(&realm, "role:owners")).0, [owner.user_id]);
    // Direct members by role: the owner is in role:members through its subgroups only.
    assert!(exported_members(&realm, exported_group(&realm, "role:members")).0.contains(&member.user_id));
    assert!(!exported_members(&realm, exported_group(&realm, "role:members")).0.contains(&owner.user_id));
    let administrators = exported_members(&realm, exported_group(&realm, "role:administrators"));
    assert_eq!(administrators.1, [exported_group(&realm, "role:owners")]);
}

#[test]
fn an_anonymous_group_setting_is_exported_as_an_unnamed_group_with_its_members() {
    let (owner, member) = fresh_organization();
    let groups = owner.get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone();
    let admins = groups.iter().find(|g| g["name"] == "role:administrators").unwrap()["id"].as_i64().unwrap();
    let value = json!({ "new": { "direct_members": [member.user_id], "direct_subgroups": [admins] } });
    owner.patch("/realm", &[("can_add_custom_emoji_group", &value.to_string())]).success();
    let realm = json_file(&unpack(&owner, &finished_export(&owner, "1")), "realm.json");

    let group = realm["zerver_realm"][0]["can_add_custom_emoji_group"].as_i64().unwrap();
    assert!(realm["zerver_usergroup"].as_array().unwrap().iter().any(|g| g["id"] == group), "{}", realm["zerver_usergroup"]);
    assert!(!is_named(&realm, group));
    assert_eq!(exported_members(&realm, group), (vec![member.user_id], vec![exported_group(&realm, "role:administrators")]));
}

#[test]
fn a_channel_setting_left_at_its_default_names_its_default_system_group() {
    let (owner, _member) = fresh_organization();
    create_channel(&owner, "defaults", false);
    let realm = json_file(&unpack(&owner, &finished_export(&owner, "1")), "realm.json");
    let channel = realm["zerver_stream"].as_array().unwrap().iter().find(|c| c["name"] == "defaults").cloned().unwrap();
    assert_eq!(channel["can_remove_subscribers_group"], exported_group(&realm, "role:administrators"), "{channel}");
    assert_eq!(channel["can_send_message_group"], exported_group(&realm, "role:everyone"), "{channel}");
    assert_eq!(channel["can_subscribe_group"], exported_group(&realm, "role:nobody"), "{channel}");
}

#[test]
fn a_group_setting_of_the_groups_creator_is_exported_as_an_unnamed_group_of_the_creator() {
    let (owner, member) = fresh_organization();
    let members = format!("[{}]", member.user_id);
    owner.post("/user_groups/create", &[("name", "crew"), ("description", "On deck"), ("members", &members)]).success();
    let realm = json_file(&unpack(&owner, &finished_export(&owner, "1")), "realm.json");
    let crew = exported_group(&realm, "crew");
    assert_eq!(exported_members(&realm, crew), (vec![member.user_id], vec![]));
    let named = realm["zerver_namedusergroup"].as_array().unwrap();
    let row = named.iter().find(|g| g["id"] == crew).unwrap();
    let manager = row["can_manage_group"].as_i64().unwrap();
    assert!(!is_named(&realm, manager), "{row}");
    assert_eq!(exported_members(&realm, manager), (vec![owner.user_id], vec![]));
    assert_eq!(row["can_mention_group"], exported_group(&realm, "role:everyone"), "{row}");
}

#[test]
fn the_archive_follows_zulips_export_layout() {
    let (owner, _member) = fresh_organization();
    create_channel(&owner, "layout", false);
    let url = upload(&owner, "notes.txt", b"exported bytes");
    let message_id = send_to_channel(&owner, "layout", &format!("[notes]({url})"));
    owner.post(&format!("/messages/{message_id}/reactions"), &[("emoji_name", "smile")]).success();
    let files = unpack(&owner, &finished_export(&owner, "1"));

    let realm = json_file(&files, "realm.json");
    for table in [
        "zerver_realm",
        "zerver_userprofile",
        "zerver_stream",
        "zerver_recipient",
        "zerver_subscription",
        "zerver_reaction",
        "zerver_client",
    ] {
        assert!(realm[table].is_array(), "realm.json lacks {table}");
    }
    assert_eq!(realm["zerver_realm"][0]["string_id"], owner.realm.as_deref().unwrap());
    let users = realm["zerver_userprofile"].as_array().unwrap();
    let me = users.iter().find(|u| u["id"] == owner.user_id).unwrap();
    assert_eq!(me["delivery_email"], owner.email.as_str());
    assert!(me.get("password").is_none() && me.get("api_key").is_none(), "{me}");
    assert!(me["date_joined"].is_f64(), "{me}");
    let reaction = realm["zerver_reaction"].as_array().unwrap().iter().find(|r| r["message"] == message_id).expect("reaction");
    assert_eq!(reaction["emoji_name"], "smile");

    let message = exported_messages(&files).into_iter().find(|m| m["id"] == message_id).expect("message exported");
    assert_eq!(message["sender"], owner.user_id);
    assert!(message["rendered_content"].as_str().unwrap().contains("notes"));
    assert!(json_file(&files, "messages-000001.json")["zerver_usermessage"].is_array());

    let path_id = url.trim_start_matches("/user_uploads/");
    let attachment = json_file(&files, "attachment.json")["zerver_attachment"][0].clone();
    assert_eq!(attachment["path_id"], path_id);
    assert_eq!(attachment["messages"], serde_json::json!([message_id]));
    let record = json_file(&files, "uploads/records.json")[0].clone();
    assert_eq!(record["path"], path_id);
    assert_eq!(record["user_profile_id"], owner.user_id);
    assert_eq!(files[&format!("uploads/{path_id}")], b"exported bytes");
    assert_eq!(json_file(&files, "avatars/records.json"), serde_json::json!([]));
    assert!(json_file(&files, "emoji/records.json").is_array());
    assert_eq!(json_file(&files, "realm_icons/records.json"), serde_json::json!([]));
}

#[test]
fn an_archive_of_several_parts_downloads_whole_with_every_upload() {
    // R2 takes a large archive as parts of 5 MiB; this one needs three, written over
    // several steps of the build.
    let (owner, _member) = fresh_organization();
    create_channel(&owner, "large", false);
    let first = incompressible(6 << 20, 7);
    let second = incompressible(5 << 20, 11);
    let first_url = upload(&owner, "first.bin", &first);
    let second_url = upload(&owner, "second.bin", &second);
    send_to_channel(&owner, "large", &format!("[first]({first_url}) and [second]({second_url})"));
    let files = unpack(&owner, &finished_export(&owner, "1"));
    assert!(files[&format!("uploads/{}", first_url.trim_start_matches("/user_uploads/"))] == first, "the first upload differs");
    assert!(files[&format!("uploads/{}", second_url.trim_start_matches("/user_uploads/"))] == second, "the second upload differs");
    assert_eq!(json_file(&files, "uploads/records.json").as_array().unwrap().len(), 2);
    assert!(json_file(&files, "realm.json")["zerver_realm"].is_array());
}

/// The records of `folder/records.json` by path, each file's bytes checked beside it.
fn image_records(files: &BTreeMap<String, Vec<u8>>, folder: &str, bytes: &[u8]) -> BTreeMap<String, Value> {
    let records = json_file(files, &format!("{folder}/records.json"));
    let mut by_path = BTreeMap::new();
    for record in records.as_array().unwrap() {
        let path = record["path"].as_str().unwrap().to_string();
        assert_eq!(record["s3_path"], path.as_str(), "{record}");
        assert_eq!(files.get(&format!("{folder}/{path}")).map(Vec::as_slice), Some(bytes), "{folder}/{path}");
        by_path.insert(path, record.clone());
    }
    by_path
}

#[test]
fn an_uploaded_avatar_is_exported_in_zulips_avatar_layout() {
    let (owner, member) = fresh_organization();
    let bytes = upload_support::png();
    upload_files_to(&member, "/users/me/avatar", &[("file", "me.png", &bytes)]).success();
    let files = unpack(&owner, &finished_export(&owner, "1"));

    let realm = json_file(&files, "realm.json");
    let users = realm["zerver_userprofile"].as_array().unwrap();
    let row = users.iter().find(|u| u["id"] == member.user_id).unwrap();
    assert_eq!((row["avatar_source"].as_str(), row.get("avatar_file")), (Some("U"), None), "{row}");
    let realm_id = realm["zerver_realm"][0]["id"].as_i64().unwrap();
    // Both files of Zulip's layout, `<realm_id>/<hash>.original` and `.png`, hold the image.
    let records = image_records(&files, "avatars", &bytes);
    let paths: Vec<&String> = records.keys().collect();
    assert_eq!(paths.len(), 2, "{records:?}");
    let base = paths[0].strip_suffix(".original").expect("an .original file");
    assert_eq!(paths[1], &format!("{base}.png"));
    assert!(base.starts_with(&format!("{realm_id}/")), "{base}");
    for record in records.values() {
        assert_eq!(record["user_profile_id"], member.user_id);
        assert_eq!(record["user_profile_email"], row["email"]);
        assert_eq!(record["realm_id"], realm_id);
        assert_eq!(record["content_type"], "image/png");
        assert_eq!(record["size"], bytes.len());
        assert!(record["last_modified"].is_f64(), "{record}");
    }
}

#[test]
fn the_organizations_icon_and_logo_are_exported_in_zulips_realm_icons_layout() {
    let (owner, _member) = fresh_organization();
    let bytes = upload_support::png();
    upload_files_to(&owner, "/realm/icon", &[("file", "icon.png", &bytes)]).success();
    upload_files_to(&owner, "/realm/logo?night=false", &[("file", "logo.png", &bytes)]).success();
    let files = unpack(&owner, &finished_export(&owner, "1"));

    let realm = json_file(&files, "realm.json")["zerver_realm"][0].clone();
    let sources = [&realm["icon_source"], &realm["logo_source"], &realm["night_logo_source"]];
    assert_eq!(sources, [&json!("U"), &json!("U"), &json!("D")], "{realm}");
    assert_eq!(realm["icon_version"], 2, "{realm}");
    let realm_id = realm["id"].as_i64().unwrap();
    let records = image_records(&files, "realm_icons", &bytes);
    let expected: Vec<String> =
        ["icon.original", "icon.png", "logo.original", "logo.png"].iter().map(|f| format!("{realm_id}/{f}")).collect();
    assert_eq!(records.keys().cloned().collect::<Vec<_>>(), expected);
    assert!(records.values().all(|r| r["realm_id"] == realm_id && r["content_type"] == "image/png"), "{records:?}");
}

#[test]
fn a_public_export_leaves_out_private_channels_and_direct_messages() {
    let (owner, member) = fresh_organization();
    create_channel(&owner, "open-plaza", false);
    create_channel(&owner, "back-room", true);
    let public = send_to_channel(&owner, "open-plaza", "public words");
    let private = send_to_channel(&owner, "back-room", "private words");
    let to = format!("[{}]", member.user_id);
    let direct = owner.post("/messages", &[("type", "direct"), ("to", &to), ("content", "direct words")]).success()["id"].as_i64().unwrap();
    let files = unpack(&owner, &finished_export(&owner, "1"));

    let ids: Vec<i64> = exported_messages(&files).iter().map(|m| m["id"].as_i64().unwrap()).collect();
    assert!(ids.contains(&public), "the public message is the sentinel: {ids:?}");
    assert!(!ids.contains(&private) && !ids.contains(&direct), "{ids:?}");
    let realm = json_file(&files, "realm.json");
    let names: Vec<&str> = realm["zerver_stream"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"open-plaza") && !names.contains(&"back-room"), "{names:?}");
    assert_eq!(json_file(&files, "messages-000001.json")["zerver_usermessage"], serde_json::json!([]));
}

#[test]
fn a_full_export_holds_the_private_messages_of_consenting_members_only() {
    let (owner, member) = fresh_organization();
    let consents = owner.get("/export/realm/consents", &[]).success();
    assert_matches_openapi("get", "/export/realm/consents", &consents);
    let mine = |body: &Value, id: i64| body["export_consents"].as_array().unwrap().iter().find(|c| c["user_id"] == id).cloned().unwrap();
    assert_eq!(mine(&consents, member.user_id)["consented"], false);
    consent(&owner);
    let other = another_member(&owner);
    let unconsented = direct_message(&member, other.user_id, "before consent");
    let between_others = direct_message(&other, owner.user_id, "the owner consents");
    let mut queue = register_for(&owner, r#"["realm_export_consent"]"#);
    consent(&member);
    let event = queue.wait_for("realm_export_consent", |e| e["type"] == "realm_export_consent");
    assert_eq!((event["user_id"].as_i64(), &event["consented"]), (Some(member.user_id), &Value::Bool(true)));
    assert_eq!(mine(&owner.get("/export/realm/consents", &[]).success(), member.user_id)["consented"], true);
    let consented = direct_message(&member, other.user_id, "after consent");
    let unexported = direct_message(&other, other.user_id, "nobody consented");
    let export = finished_export(&owner, "2");
    assert_eq!(export["export_type"], 2);
    let ids: Vec<i64> = exported_messages(&unpack(&owner, &export)).iter().map(|m| m["id"].as_i64().unwrap()).collect();
    // The member consented: both direct messages they received or sent are theirs to give.
    assert!(ids.contains(&consented) && ids.contains(&unconsented) && ids.contains(&between_others), "{ids:?}");
    assert!(!ids.contains(&unexported), "{ids:?}");
}

#[test]
fn an_export_with_private_data_needs_a_consenting_owner() {
    let (owner, member) = fresh_organization();
    consent(&member);
    let refused = owner.post("/export/realm", &[("export_type", "2")]);
    assert_eq!((refused.status, &refused.body["code"]), (400, &json!("BAD_REQUEST")), "{:?}", refused.body);
    let msg = refused.body["msg"].as_str().unwrap();
    assert!(msg.starts_with("Make sure at least one Organization Owner is consenting to the export or contact "), "{msg}");
    assert_eq!(owner.get("/export/realm", &[]).success()["exports"], json!([]));
    consent(&owner);
    owner.post("/export/realm", &[("export_type", "2")]).success();
}

/// A new member of `owner`'s organization whose address is visible to nobody (this server
/// takes that setting from the organization's defaults for new users).
fn member_visible_to_nobody(owner: &Client) -> Client {
    owner.patch("/realm/user_settings_defaults", &[("email_address_visibility", "4")]).success();
    let member = another_member(owner);
    owner.patch("/realm/user_settings_defaults", &[("email_address_visibility", "1")]).success();
    member
}

fn set_role(admin: &Client, user: &Client, role: &str) {
    admin.patch(&format!("/users/{}", user.user_id), &[("role", role)]).success();
}

#[test]
fn a_public_export_needs_an_owner_whose_email_it_may_hold() {
    let (owner, _member) = fresh_organization();
    // The only owner left is one whose address is visible to nobody.
    let hidden = member_visible_to_nobody(&owner);
    set_role(&owner, &hidden, "100");
    set_role(&hidden, &owner, "200");
    let refused = owner.post("/export/realm", &[("export_type", "1")]);
    assert_eq!((refused.status, &refused.body["code"]), (400, &json!("BAD_REQUEST")), "{:?}", refused.body);
    let msg = refused.body["msg"].as_str().unwrap();
    assert!(msg.starts_with("Make sure at least one Organization Owner allows other Administrators to see their email address"), "{msg}");
    assert_eq!(owner.get("/export/realm", &[]).success()["exports"], json!([]));
    set_role(&hidden, &owner, "100");
    owner.post("/export/realm", &[("export_type", "1")]).success();
}

/// A generic bot of `owner`'s that keeps `value` in its storage; answers its user id.
fn bot_storing(owner: &Client, value: &str) -> i64 {
    let form = [("full_name", "Keeper"), ("short_name", &unique("keeper")[..]), ("bot_type", "1")];
    let bot = owner.post("/bots", &form).success();
    let (user_id, api_key) = (bot["user_id"].as_i64().unwrap(), bot["api_key"].as_str().unwrap().to_string());
    let email = owner.get(&format!("/users/{user_id}"), &[]).success()["user"]["email"].as_str().unwrap().to_string();
    let storage = json!({ "kept": value }).to_string();
    let form = [("storage", storage.as_str())];
    request("PUT", "/bot_storage", &[], Some(Body::Form(&form)), Some((&email, &api_key)), owner.realm.as_deref()).success();
    user_id
}

fn direct_message(from: &Client, to: i64, content: &str) -> i64 {
    let to = format!("[{to}]");
    from.post("/messages", &[("type", "direct"), ("to", &to), ("content", content)]).success()["id"].as_i64().unwrap()
}

/// One field of every row of a `realm.json` table.
fn column(realm: &Value, table: &str, field: &str) -> Vec<Value> {
    realm[table].as_array().unwrap_or_else(|| panic!("{table} in realm.json")).iter().map(|r| r[field].clone()).collect()
}

#[test]
fn a_full_export_holds_the_personal_data_of_consenting_members_and_their_bots_only() {
    let (owner, member) = fresh_organization();
    let other = another_member(&owner);
    consent(&owner);
    consent(&member);
    for (client, name) in [(&other, "other"), (&member, "member")] {
        client.post("/users/me/status", &[("status_text", &format!("{name} status")[..])]).success();
        client.post("/saved_snippets", &[("title", &format!("{name} snippet")[..]), ("content", "Hello")]).success();
        client.post("/users/me/presence", &[("status", "active"), ("new_user_input", "true")]).success();
        let to = format!("[{}]", owner.user_id);
        let later = [("type", "direct"), ("to", to.as_str()), ("content", "later"), ("scheduled_delivery_timestamp", "4000000000")];
        client.post("/scheduled_messages", &later).success();
    }
    let (members_bot, others_bot) = (bot_storing(&member, "member's bot"), bot_storing(&other, "other's bot"));
    let to_members_bot = direct_message(&other, members_bot, "to a consenting member's bot");
    let to_others_bot = direct_message(&other, others_bot, "between two who did not consent");

    let files = unpack(&owner, &finished_export(&owner, "2"));
    let realm = json_file(&files, "realm.json");
    assert_eq!(column(&realm, "zerver_userstatus", "status_text"), [json!("member status")]);
    assert_eq!(column(&realm, "zerver_savedsnippet", "title"), [json!("member snippet")]);
    assert_eq!(column(&realm, "zerver_scheduledmessage", "sender"), [json!(member.user_id)]);
    assert_eq!(column(&realm, "zerver_botstoragedata", "value"), [json!("member's bot")]);
    assert_eq!(column(&realm, "zerver_botstoragedata", "bot_profile"), [json!(members_bot)]);
    // Presence is public: everyone's is exported.
    let present = column(&realm, "zerver_userpresence", "user_profile");
    assert!(present.contains(&json!(other.user_id)) && present.contains(&json!(member.user_id)), "{present:?}");
    // A bot whose owner consents consents too: what it received is exported.
    let ids: Vec<i64> = exported_messages(&files).iter().map(|m| m["id"].as_i64().unwrap()).collect();
    assert!(ids.contains(&to_members_bot) && !ids.contains(&to_others_bot), "{ids:?}");
}

#[test]
fn a_scheduled_message_is_exported_with_when_it_was_made() {
    let (owner, member) = fresh_organization();
    consent(&owner);
    consent(&member);
    let now = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    let to = format!("[{}]", owner.user_id);
    let later = [("type", "direct"), ("to", to.as_str()), ("content", "later"), ("scheduled_delivery_timestamp", "4000000000")];
    let before = now().floor();
    member.post("/scheduled_messages", &later).success();
    let after = now().ceil();

    let realm = json_file(&unpack(&owner, &finished_export(&owner, "2")), "realm.json");
    let row = &realm["zerver_scheduledmessage"][0];
    let made = row["request_timestamp"].as_f64().unwrap_or_else(|| panic!("request_timestamp in {row}"));
    assert!((before..=after).contains(&made), "{made} between {before} and {after}");
    assert_eq!((&row["delivery_type"], &row["scheduled_timestamp"]), (&json!(1), &json!(4000000000.0)), "{row}");
}

/// `user`'s row in `realm.json`'s `table`.
fn user_row<'a>(realm: &'a Value, table: &str, user: &Client) -> &'a Value {
    let rows = realm[table].as_array().unwrap_or_else(|| panic!("{table} in realm.json"));
    rows.iter().find(|u| u["id"] == user.user_id).unwrap_or_else(|| panic!("{} not in {table}", user.email))
}

/// Mutes, pins and colours `client`'s subscription to `channel` (subscribing first).
fn customise_subscription(client: &Client, channel: &str) {
    client.post("/users/me/subscriptions", &[("subscriptions", &format!(r#"[{{"name":"{channel}"}}]"#))]).success();
    let id = client.get("/get_stream_id", &[("stream", channel)]).success()["stream_id"].as_i64().unwrap();
    let properties = json!([
        { "stream_id": id, "property": "is_muted", "value": true },
        { "stream_id": id, "property": "pin_to_top", "value": true },
        { "stream_id": id, "property": "color", "value": "#000000" },
    ]);
    client.post("/users/me/subscriptions/properties", &[("subscription_data", &properties.to_string())]).success();
}

#[test]
fn an_export_with_consent_makes_who_did_not_consent_a_mirror_dummy_with_default_settings() {
    let (owner, member) = fresh_organization();
    consent(&owner);
    create_channel(&owner, "quiet-corner", false);
    for client in [&owner, &member] {
        client.patch("/settings", &[("twenty_four_hour_time", "true"), ("timezone", "Europe/Paris")]).success();
        customise_subscription(client, "quiet-corner");
    }
    let realm = json_file(&unpack(&owner, &finished_export(&owner, "2")), "realm.json");
    let (kept, dummy) = (user_row(&realm, "zerver_userprofile", &owner), user_row(&realm, "zerver_userprofile_mirrordummy", &member));
    assert_eq!((&kept["is_active"], &kept["twenty_four_hour_time"]), (&json!(true), &json!(true)), "{kept}");
    assert_eq!((&dummy["is_active"], &dummy["is_mirror_dummy"]), (&json!(false), &json!(true)), "{dummy}");
    assert_eq!(dummy["twenty_four_hour_time"], false, "the organization's default: {dummy}");
    assert_eq!(dummy["timezone"], "Europe/Paris", "not an organization default: {dummy}");
    let channel = realm["zerver_stream"].as_array().unwrap().iter().find(|c| c["name"] == "quiet-corner").unwrap();
    let subscription = |user: &Client| {
        let rows = realm["zerver_subscription"].as_array().unwrap();
        rows.iter().find(|s| s["user_profile"] == user.user_id && s["recipient"] == channel["recipient"]).cloned().unwrap()
    };
    let (owners, members) = (subscription(&owner), subscription(&member));
    assert_eq!((&owners["is_muted"], &owners["pin_to_top"], &owners["color"]), (&json!(true), &json!(true), &json!("#000000")));
    assert_eq!((&members["is_muted"], &members["pin_to_top"]), (&json!(false), &json!(false)), "{members}");
    assert_ne!(members["color"], "#000000", "{members}");
}

#[test]
fn a_public_export_replaces_an_address_visible_to_nobody_and_deactivates_its_account() {
    let (owner, _member) = fresh_organization();
    let member = member_visible_to_nobody(&owner);
    let realm = json_file(&unpack(&owner, &finished_export(&owner, "1")), "realm.json");
    let kept = user_row(&realm, "zerver_userprofile", &owner);
    assert_eq!((&kept["delivery_email"], &kept["is_active"]), (&json!(owner.email), &json!(true)), "{kept}");
    let dummy = user_row(&realm, "zerver_userprofile_mirrordummy", &member);
    let address = dummy["delivery_email"].as_str().unwrap();
    assert!(address.starts_with("exported-user-") && !address.contains("member@"), "{address}");
    assert_eq!((&dummy["is_active"], &dummy["is_mirror_dummy"]), (&json!(false), &json!(true)), "{dummy}");
    assert!(!realm.to_string().contains(&member.email), "the address is nowhere in realm.json");
}

// ---- DELETE /export/realm/{export_id}

#[test]
fn deleting_marks_the_export_deleted_with_its_event_and_the_archive_is_gone() {
    let (owner, _member) = fresh_organization();
    let export = finished_export(&owner, "1");
    let id = export["id"].as_i64().unwrap();
    let mut queue = register_for(&owner, r#"["realm_export"]"#);
    owner.delete(&format!("/export/realm/{id}"), &[]).success();
    let event = queue.wait_for("realm_export", |e| e["type"] == "realm_export");
    let deleted = event["exports"].as_array().unwrap().iter().find(|x| x["id"] == id).cloned().unwrap();
    assert!(deleted["deleted_timestamp"].is_number(), "{deleted}");
    assert_eq!(deleted["export_url"], Value::Null);
    let url = export["export_url"].as_str().unwrap();
    assert_eq!(download(Some(&owner), &url[url.find("/user_avatars/").unwrap()..], &[]).status, 404);
    owner.delete(&format!("/export/realm/{id}"), &[]).bad_request("BAD_REQUEST", "Export already deleted");
    owner.delete("/export/realm/999999", &[]).bad_request("BAD_REQUEST", "Invalid data export ID");
}

#[test]
fn only_the_organizations_administrators_download_its_archive() {
    let (owner, member) = fresh_organization();
    let export = finished_export(&owner, "1");
    let url = export["export_url"].as_str().unwrap();
    let path = &url[url.find("/user_avatars/").unwrap()..];
    assert_eq!(download(Some(&member), path, &[]).status, 400);
    let (other_owner, _) = fresh_organization();
    assert_ne!(download(Some(&other_owner), path, &[]).status, 200);
}
