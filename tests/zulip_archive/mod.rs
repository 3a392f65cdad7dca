//! An export archive shaped as a Zulip server (10.x, `zerver/lib/export.py`) writes it, for
//! a small organization "Acme" (Zulip realm id 2): every file and table such an export
//! holds, the fields its rows carry (including the many this server ignores), floats for
//! datetimes, foreign keys as bare ids, JSON inside strings where Zulip keeps it there.
//!
//! What it holds, by archive id:
//! - users 8 Olivia (owner, uploaded avatar), 9 Mo (member), 10 Dee (deactivated),
//!   11 Helper Bot (owned by Olivia); 12 Ghost in `zerver_userprofile_mirrordummy`; the
//!   exporting server's system bots 1 notification-bot, 2 emailgateway, 3 welcome-bot only
//!   in `zerver_userprofile_crossrealm`, with their personal recipients 1-3;
//! - groups 20-27 the role system groups, 28 "support" (Olivia, Mo), 29 an anonymous group
//!   (Mo and the administrators) that a realm setting points at; support's mention
//!   policy (administrators);
//! - Mo's settings (24-hour time, Twitter emoji), alert word and muted user (Ghost);
//!   Olivia's status with the custom emoji; a linkifier, an allowed domain, a playground;
//! - channels 30 general (public), 31 design (private: Olivia, Dee; only administrators
//!   post); group DM 50 (Olivia,
//!   Mo, Dee);
//! - messages 100-110: a mention, welcome-bot's DM to Mo and Mo's answer, a resolved topic
//!   (moved, in the edit history) with notification-bot's notice, a group DM, an upload
//!   link, messages of the mirror dummy, the deactivated user and the bot, a "/me"
//!   message; reactions with custom emoji 60 and a Unicode emoji;
//! - group settings: design's posting policy (administrators), the realm's custom-emoji
//!   policy (anonymous group 29).

use std::path::PathBuf;

use serde_json::{json, Value};

pub const REALM_ID: i64 = 2;
pub const UPLOAD_PATH: &str = "2/ab/Xy12zQ9kLm/notes.txt";
pub const UPLOAD_BYTES: &[u8] = b"meeting notes, v1\n";
const AVATAR_BASE: &str = "2/5f1a9e0c4d7b2a68e3f0c1d9b8a7e6f5a4b3c2d1";
const T0: f64 = 1_700_000_000.0;
/// When message 104's topic was resolved (a move, in its edit history).
pub const MOVED_AT: i64 = 1_700_000_400;

pub const OLIVIA: &str = "olivia@acme.example.com";
pub const MO: &str = "mo@acme.example.com";
pub const DEE: &str = "dee@acme.example.com";
pub const GHOST: &str = "ghost@acme.example.com";
pub const HELPER_BOT: &str = "helper-bot@acme.example.com";

/// Zulip's UserMessage flag bits.
const READ: i64 = 1;
const STARRED: i64 = 2;
const MENTIONED: i64 = 8;
const IS_PRIVATE: i64 = 1 << 11;

/// A `zerver_userprofile` row as `model_to_dict` gives it (less `api_key`, `password`,
/// `uuid`, which the export leaves out).
fn user(id: i64, email: &str, name: &str, role: i64, extra: Value) -> Value {
    let mut row = json!({
        "id": id, "realm": REALM_ID, "email": email, "delivery_email": email, "full_name": name,
        "date_joined": T0 - 86_400.0 * (20 - id) as f64, "last_login": T0, "tos_version": "-1",
        "is_superuser": false, "is_staff": false, "is_active": true, "is_billing_admin": false,
        "is_bot": false, "bot_type": null, "bot_owner": null, "role": role, "long_term_idle": false,
        "last_active_message_id": null, "is_mirror_dummy": false, "can_forge_sender": false,
        "can_create_users": false, "last_reminder": null, "rate_limits": "",
        "default_all_public_streams": false, "default_sending_stream": null,
        "default_events_register_stream": null, "avatar_source": "G", "avatar_version": 1,
        "avatar_hash": null, "recipient": 40 + id - 8, "timezone": "Europe/Paris",
        "is_imported_stub": false, "zoom_token": null, "default_language": "en",
        "web_home_view": "inbox", "emojiset": "google", "twenty_four_hour_time": false,
        "translate_emoticons": false, "email_address_visibility": 1,
        "enable_stream_desktop_notifications": false, "enable_offline_push_notifications": true,
        "allow_private_data_export": false, "groups": [], "user_permissions": [],
    });
    row.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    row
}

fn recipient(id: i64, kind: i64, type_id: i64) -> Value {
    json!({ "id": id, "type": kind, "type_id": type_id })
}

fn subscription(id: i64, user: i64, recipient: i64) -> Value {
    json!({ "id": id, "user_profile": user, "recipient": recipient, "active": true, "is_user_active": true,
        "color": "#76ce90", "is_muted": false, "pin_to_top": false, "desktop_notifications": null,
        "audible_notifications": null, "push_notifications": null, "email_notifications": null,
        "wildcard_mentions_notify": null })
}

/// A channel; who may post: `sender_group`.
fn channel(id: i64, name: &str, invite_only: bool, sender_group: i64) -> Value {
    let description = format!("All about {name}");
    json!({ "id": id, "realm": REALM_ID, "name": name, "description": description,
        "rendered_description": format!("<p>{description}</p>"), "date_created": T0 - 86_400.0 * 30.0,
        "deactivated": false, "invite_only": invite_only, "history_public_to_subscribers": true,
        "is_web_public": false, "is_in_zephyr_realm": false, "message_retention_days": null,
        "recipient": 45 + id - 30, "first_message_id": 100, "creator": 8, "folder": null,
        "is_recently_active": true, "subscriber_count": 2, "topics_policy": 1,
        "can_administer_channel_group": 21, "can_remove_subscribers_group": 21,
        "can_add_subscribers_group": 27, "can_subscribe_group": 27, "can_resolve_topics_group": 25,
        "can_send_message_group": sender_group,
        "can_move_messages_out_of_channel_group": 27, "can_move_messages_within_channel_group": 27,
        "can_delete_any_message_group": 27, "can_delete_own_message_group": 25 })
}

fn named_group(id: i64, name: &str, system: bool) -> Value {
    json!({ "id": id, "usergroup_ptr": id, "realm_for_sharding": REALM_ID, "name": name,
        "description": if system { format!("System group {name}") } else { "Answers the customers".into() },
        "is_system_group": system, "creator": if system { Value::Null } else { json!(8) },
        "date_created": if system { Value::Null } else { json!(T0 - 1000.0) }, "deactivated": false,
        "can_add_members_group": 27, "can_join_group": 27, "can_leave_group": 25, "can_manage_group": 27,
        "can_mention_group": if system { 25 } else { 21 }, "can_remove_members_group": 27 })
}

/// A message row of `messages-000001.json` (`sending_client` is a `zerver_client` id).
fn message(id: i64, sender: i64, recipient: i64, topic: &str, content: &str, html: &str, extra: Value) -> Value {
    let mut row = json!({
        "id": id, "sender": sender, "recipient": recipient, "realm": REALM_ID, "subject": topic,
        "content": content, "rendered_content": html, "rendered_content_version": 1,
        "date_sent": T0 + (id - 100) as f64 * 60.0 + 0.25, "sending_client": 1, "last_edit_time": null,
        "edit_history": null, "has_attachment": false, "has_image": false, "has_link": false,
        "search_tsvector": null, "type": 1, "is_channel_message": (45..47).contains(&recipient),
    });
    row.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    row
}

/// A pending `zerver_scheduledmessage` row of Mo's, to `recipient` (`stream`: its channel).
fn scheduled(id: i64, recipient: i64, stream: Option<i64>, subject: &str, content: &str, at: f64) -> Value {
    json!({
        "id": id, "sender": 9, "recipient": recipient, "stream": stream, "realm": REALM_ID, "subject": subject,
        "content": content, "rendered_content": format!("<p>{content}</p>"), "sending_client": 1,
        "scheduled_timestamp": at, "request_timestamp": T0, "read_by_sender": true, "delivered": false,
        "delivered_message": null, "has_attachment": false, "failed": false, "failure_message": null,
        "delivery_type": 1, "reminder_target_message": null, "reminder_note": null,
    })
}

fn realm_json() -> Value {
    let users = vec![
        user(8, OLIVIA, "Olivia Owner", 100, json!({ "avatar_source": "U", "avatar_version": 2 })),
        user(9, MO, "Mo Member", 400, json!({ "twenty_four_hour_time": true, "emojiset": "twitter" })),
        user(10, DEE, "Dee Departed", 400, json!({ "is_active": false })),
        user(11, HELPER_BOT, "Helper Bot", 400, json!({ "is_bot": true, "bot_type": 1, "bot_owner": 8 })),
    ];
    let ghost = user(12, GHOST, "Ghost Writer", 400, json!({ "is_mirror_dummy": true, "is_active": false }));
    let system = [
        "role:owners",
        "role:administrators",
        "role:moderators",
        "role:fullmembers",
        "role:members",
        "role:everyone",
        "role:internet",
        "role:nobody",
    ];
    let mut named: Vec<Value> = system.iter().enumerate().map(|(i, name)| named_group(20 + i as i64, name, true)).collect();
    named.push(named_group(28, "support", false));
    let memberships: Vec<Value> = [(20, 8), (23, 9), (23, 10), (24, 11), (28, 8), (28, 9), (29, 9)]
        .iter()
        .enumerate()
        .map(|(i, (group, user))| json!({ "id": i + 1, "user_group": group, "user_profile": user }))
        .collect();
    let subgroups: Vec<Value> = [(21, 20), (22, 21), (23, 22), (24, 23), (25, 24), (26, 25), (29, 21)]
        .iter()
        .enumerate()
        .map(|(i, (sup, sub))| json!({ "id": i + 1, "supergroup": sup, "subgroup": sub }))
        .collect();
    let mut subscriptions: Vec<Value> = (8..=12).map(|u| subscription(u - 7, u, 40 + u - 8)).collect();
    for (i, (user, to)) in
        [(8, 45), (9, 45), (10, 45), (11, 45), (12, 45), (8, 46), (10, 46), (8, 47), (9, 47), (10, 47)].iter().enumerate()
    {
        subscriptions.push(subscription(10 + i as i64, *user, *to));
    }
    let empty = json!([]);
    json!({
        "zerver_realm": [{
            "id": REALM_ID, "string_id": "acme", "name": "Acme Corp", "description": "Acme's **chat**",
            "date_created": T0 - 86_400.0 * 40.0, "deactivated": false, "deactivated_redirect": null,
            "emails_restricted_to_domains": false, "invite_required": false, "message_retention_days": null,
            "allow_message_editing": true, "message_content_edit_limit_seconds": null,
            "message_content_delete_limit_seconds": 3600, "move_messages_within_stream_limit_seconds": 86400,
            "move_messages_between_streams_limit_seconds": null, "disallow_disposable_email_addresses": true,
            "icon_source": "G", "icon_version": 1, "logo_source": "D", "logo_version": 1,
            "night_logo_source": "D", "night_logo_version": 1, "plan_type": 1, "org_type": 10,
            "new_stream_announcements_stream": 30, "signup_announcements_stream": 30,
            "zulip_update_announcements_stream": 30, "zulip_update_announcements_level": 13,
            "moderation_request_channel": null, "default_language": "fr", "waiting_period_threshold": 3,
            "can_create_public_channel_group": 24, "can_create_private_channel_group": 24,
            "can_add_custom_emoji_group": 29, "can_delete_any_message_group": 21,
            "direct_message_permission_group": 25, "direct_message_initiator_group": 25,
            "create_multiuse_invite_group": 21, "can_invite_users_group": 24, "can_manage_all_groups": 20,
            "uuid": "0f6c1b2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b", "uuid_owner_secret": "zuliprealm_secret",
            "push_notifications_enabled": false, "push_notifications_enabled_end_timestamp": null,
        }],
        "zerver_realmauthenticationmethod": [{ "id": 1, "realm": REALM_ID, "name": "Email" }],
        "zerver_presencesequence": [{ "id": 1, "realm": REALM_ID, "last_update_id": 17 }],
        "zerver_scheduledmessage": [
            scheduled(1, 45, Some(30), "plans", "The plan for **next year**", 4_000_000_000.0),
            scheduled(2, 40, None, "", "Happy anniversary, Olivia!", 4_000_000_100.0),
        ], "zerver_realmauditlog": empty, "zerver_realmexport": empty,
        "zerver_realmdomain": [{ "id": 1, "realm": REALM_ID, "domain": "acme.example.com", "allow_subdomains": true }],
        "zerver_realmfilter": [{ "id": 1, "realm": REALM_ID, "pattern": "#(?P<id>[0-9]+)",
            "url_template": "https://tracker.acme.example.com/{id}", "order": 0 }],
        "zerver_realmplayground": [{ "id": 1, "realm": REALM_ID, "name": "Rust playground", "pygments_language": "Rust",
            "url_template": "https://play.rust-lang.org/?code={code}" }],
        "zerver_realmuserdefault": [{ "id": 1, "realm": REALM_ID, "emojiset": "google", "web_home_view": "inbox" }],
        "zerver_onboardingusermessage": empty, "zerver_service": empty,
        "zerver_botstoragedata": [{ "id": 1, "bot_profile": 11, "key": "greeting", "value": "hello" }],
        "zerver_botconfigdata": empty, "zerver_onboardingstep": empty,
        "zerver_navigationview": [{ "id": 1, "user": 9, "fragment": "narrow/channel/30-general", "is_pinned": true, "name": "General chat" }],
        "zerver_savedsnippet": [{ "id": 1, "realm": REALM_ID, "user_profile": 9, "title": "Standup",
            "content": "Yesterday, today, blockers", "date_created": T0 + 800.5 }],
        "zerver_useractivity": empty, "zerver_useractivityinterval": empty,
        "zerver_userpresence": [{ "id": 1, "user_profile": 9, "realm": REALM_ID, "last_active_time": T0 + 900.5,
            "last_connected_time": T0 + 950.5, "last_update_id": 17 }],
        "zerver_externalauthid": empty, "zerver_channelfolder": empty,
        "zerver_alertword": [{ "id": 1, "user_profile": 9, "realm": REALM_ID, "word": "deploy" }],
        "zerver_muteduser": [{ "id": 1, "user_profile": 9, "muted_user": 12, "date_muted": T0 + 600.5 }],
        "zerver_userstatus": [{ "id": 1, "user_profile": 8, "timestamp": T0 + 700.5, "client": 1,
            "status_text": "Partying", "emoji_name": "partyparrot", "emoji_code": "60", "reaction_type": "realm_emoji" }],
        "zerver_customprofilefield": [{ "id": 80, "realm": REALM_ID, "name": "Team", "hint": "Your team",
            "field_type": 1, "field_data": "", "order": 1, "display_in_profile_summary": false, "required": false,
            "editable_by_user": true }],
        "zerver_customprofilefieldvalue": [{ "id": 1, "user_profile": 9, "field": 80, "value": "Platform",
            "rendered_value": null }],
        "zerver_realmemoji": [{ "id": 60, "realm": REALM_ID, "author": 8, "name": "partyparrot", "file_name": "60.png",
            "is_animated": false, "deactivated": false }],
        "zerver_defaultstream": [{ "id": 1, "realm": REALM_ID, "stream": 30 }],
        "zerver_userprofile": users,
        "zerver_userprofile_mirrordummy": [ghost],
        "zerver_userprofile_crossrealm": [
            { "email": "notification-bot@zulip.com", "id": 1, "recipient_id": 1 },
            { "email": "emailgateway@zulip.com", "id": 2, "recipient_id": 2 },
            { "email": "welcome-bot@zulip.com", "id": 3, "recipient_id": 3 },
        ],
        "zerver_usergroup": (20..=29).map(|id| json!({ "id": id, "realm": REALM_ID })).collect::<Vec<_>>(),
        "zerver_namedusergroup": named,
        "zerver_usergroupmembership": memberships,
        "zerver_groupgroupmembership": subgroups,
        "zerver_stream": [channel(30, "general", false, 25), channel(31, "design", true, 21)],
        "zerver_huddle": [{ "id": 50, "huddle_hash": "3b0c5a2f9e1d8c7b6a5f4e3d2c1b0a9f8e7d6c5b", "group_size": 3,
            "recipient": 47 }],
        "zerver_recipient": [
            recipient(40, 1, 8), recipient(41, 1, 9), recipient(42, 1, 10), recipient(43, 1, 11), recipient(44, 1, 12),
            recipient(45, 2, 30), recipient(46, 2, 31), recipient(47, 3, 50),
        ],
        "zerver_subscription": subscriptions,
        "zerver_usertopic": [{ "id": 1, "user_profile": 9, "stream": 30, "recipient": 45, "topic_name": "greetings",
            "last_updated": T0 + 500.5, "visibility_policy": 1 }],
        "zerver_reaction": [
            { "id": 1, "user_profile": 8, "message": 100, "emoji_name": "partyparrot", "emoji_code": "60",
                "reaction_type": "realm_emoji" },
            { "id": 2, "user_profile": 9, "message": 100, "emoji_name": "+1", "emoji_code": "1f44d",
                "reaction_type": "unicode_emoji" },
        ],
        "zerver_client": [{ "id": 1, "name": "website" }, { "id": 2, "name": "ZulipMobile" }, { "id": 3, "name": "Internal" }],
        "import_source": "zulip",
    })
}

fn messages_json() -> Value {
    let upload_link = format!("/user_uploads/{UPLOAD_PATH}");
    let messages = vec![
        message(
            100,
            8,
            45,
            "greetings",
            "Hello @**Mo Member|9**",
            r#"<p>Hello <span class="user-mention" data-user-id="9">@Mo Member</span></p>"#,
            json!({}),
        ),
        message(101, 3, 41, "", "Hello, and welcome to Zulip!", "<p>Hello, and welcome to Zulip!</p>", json!({ "sending_client": 3 })),
        message(102, 9, 3, "", "thanks, welcome bot", "<p>thanks, welcome bot</p>", json!({ "sending_client": 2 })),
        message(
            103,
            1,
            45,
            "✔ launch",
            "@_**Mo Member|9** has marked this topic as resolved.",
            r#"<p><span class="user-mention silent" data-user-id="9">Mo Member</span> has marked this topic as resolved.</p>"#,
            json!({ "type": 2, "sending_client": 3 }),
        ),
        message(
            104,
            9,
            45,
            "✔ launch",
            "shipped it",
            "<p>shipped it</p>",
            json!({ "edit_history": json!([
            { "user_id": 9, "timestamp": MOVED_AT, "prev_topic": "launch", "topic": "✔ launch" }]).to_string() }),
        ),
        message(105, 8, 47, "", "group hello", "<p>group hello</p>", json!({})),
        message(
            106,
            9,
            45,
            "files",
            &format!("[notes.txt]({upload_link})"),
            &format!(r#"<p><a href="{upload_link}">notes.txt</a></p>"#),
            json!({ "has_attachment": true, "has_link": true }),
        ),
        message(107, 12, 45, "history", "from the old days", "<p>from the old days</p>", json!({})),
        message(108, 10, 46, "plans", "secret plans", "<p>secret plans</p>", json!({})),
        message(109, 11, 45, "greetings", "beep", "<p>beep</p>", json!({})),
        message(110, 9, 45, "greetings", "/me waves", "<p>/me waves</p>", json!({})),
    ];
    // Who received each message, with Zulip's flag bits.
    let received: [(i64, &[(i64, i64)]); 11] = [
        (100, &[(8, READ), (9, MENTIONED), (10, 0), (11, 0), (12, 0)]),
        (101, &[(9, READ | IS_PRIVATE)]),
        (102, &[(9, READ | IS_PRIVATE)]),
        (103, &[(8, 0), (9, READ | MENTIONED), (10, 0), (11, 0), (12, 0)]),
        (104, &[(8, 0), (9, READ), (10, 0), (11, 0), (12, 0)]),
        (105, &[(8, READ | IS_PRIVATE), (9, IS_PRIVATE), (10, IS_PRIVATE)]),
        (106, &[(8, 0), (9, READ | STARRED), (10, 0), (11, 0), (12, 0)]),
        (107, &[(8, READ), (9, READ), (10, 0), (11, 0), (12, READ)]),
        (108, &[(8, READ), (10, READ)]),
        (109, &[(8, 0), (9, 0), (10, 0), (11, READ), (12, 0)]),
        (110, &[(8, 0), (9, READ), (10, 0), (11, 0), (12, 0)]),
    ];
    let mut user_messages = Vec::new();
    for (message, rows) in received {
        for (user, flags) in rows {
            let id = user_messages.len() + 1000;
            user_messages.push(json!({ "id": id, "user_profile": user, "message": message, "flags_mask": flags }));
        }
    }
    json!({ "zerver_message": messages, "zerver_usermessage": user_messages })
}

fn attachment_json() -> Value {
    json!({ "zerver_attachment": [{ "id": 70, "file_name": "notes.txt", "path_id": UPLOAD_PATH, "owner": 9,
        "realm": REALM_ID, "create_time": T0 + 359.5, "size": UPLOAD_BYTES.len(), "is_realm_public": true,
        "is_web_public": false, "content_type": "text/plain", "messages": [106], "scheduled_messages": [] }] })
}

/// Writes the archive as an unpacked export folder; `png` is the image used for the
/// avatar and the custom emoji.
pub fn write(png: &[u8]) -> PathBuf {
    let root = std::env::temp_dir().join(crate::common::unique("zulip-export"));
    let avatar = |suffix: &str| format!("{AVATAR_BASE}{suffix}");
    let emoji = |suffix: &str| format!("{REALM_ID}/emoji/images/60.png{suffix}");
    let avatar_records: Vec<Value> = [".original", ".png"]
        .iter()
        .map(|s| {
            json!({ "realm_id": REALM_ID, "user_profile_id": 8, "user_profile_email": OLIVIA, "avatar_version": 2,
            "s3_path": avatar(s), "path": avatar(s), "size": png.len(), "last_modified": T0, "content_type": null })
        })
        .collect();
    let emoji_records: Vec<Value> = ["", ".original"]
        .iter()
        .map(|s| {
            json!({ "realm_id": REALM_ID, "author": 8, "path": emoji(s), "s3_path": emoji(s), "file_name": "60.png",
            "name": "partyparrot", "deactivated": false })
        })
        .collect();
    let upload_records = json!([{ "realm_id": REALM_ID, "user_profile_id": 9, "user_profile_email": MO,
        "s3_path": UPLOAD_PATH, "path": UPLOAD_PATH, "size": UPLOAD_BYTES.len(), "last_modified": T0 + 359.5,
        "content_type": null }]);
    let migration_status = json!({ "migrations_by_app": { "zerver": ["0001_initial", "0690_channel_folders"],
        "analytics": ["0001_initial"] }, "zulip_version": "10.4" });
    let analytics = json!({ "analytics_realmcount": [], "analytics_streamcount": [], "analytics_usercount": [] });
    let files: Vec<(String, Vec<u8>)> = vec![
        ("realm.json".into(), realm_json().to_string().into_bytes()),
        ("messages-000001.json".into(), messages_json().to_string().into_bytes()),
        ("attachment.json".into(), attachment_json().to_string().into_bytes()),
        ("analytics.json".into(), analytics.to_string().into_bytes()),
        ("migration_status.json".into(), migration_status.to_string().into_bytes()),
        ("stats.json".into(), json!({ "messages-000001": { "zerver_message": 10 } }).to_string().into_bytes()),
        ("uploads/records.json".into(), upload_records.to_string().into_bytes()),
        (format!("uploads/{UPLOAD_PATH}"), UPLOAD_BYTES.to_vec()),
        ("avatars/records.json".into(), Value::from(avatar_records).to_string().into_bytes()),
        (format!("avatars/{}", avatar(".original")), png.to_vec()),
        (format!("avatars/{}", avatar(".png")), png.to_vec()),
        ("emoji/records.json".into(), Value::from(emoji_records).to_string().into_bytes()),
        (format!("emoji/{}", emoji("")), png.to_vec()),
        (format!("emoji/{}", emoji(".original")), png.to_vec()),
        ("realm_icons/records.json".into(), b"[]".to_vec()),
    ];
    for (path, bytes) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
    root
}
