//! `POST /messages/{message_id}/report`: a report goes to the organization's moderation
//! request channel (`moderation_request_channel_id`, set by `PATCH /realm`) from the
//! notification bot, in the topic about the reported message's sender.

mod chat;
mod common;
mod event_support;

use chat::*;
use common::*;
use event_support::register_for;
use serde_json::json;

#[test]
fn a_report_reaches_the_moderation_request_channel() {
    let (owner, member) = organization_with_member("report", "Reporting", "pw-report-123456");
    let moderation = create_channel(&owner, "moderation", &[("invite_only", "true")], &[]);
    let body = owner.patch("/realm", &[("moderation_request_channel_id", &moderation.to_string())]).success();
    assert_eq!(body["moderation_request_channel_id"], moderation, "{body}");
    let state = owner.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_moderation_request_channel_id"], moderation);
    create_channel(&owner, "town", &[], &[member.user_id]);
    let reported = send_to_channel(&owner, "town", "square", "rude words");
    let mut moderators = register_for(&owner, r#"["message"]"#);
    let body = member.post(&format!("/messages/{reported}/report"), &[("report_type", "harassment"), ("description", "mean")]).success();
    assert_matches_openapi("post", "/messages/{message_id}/report", &body);
    let event = moderators.wait_for("the report", |e| e["type"] == "message" && e["message"]["stream_id"] == moderation);
    let message = &event["message"];
    assert_eq!(message["sender_email"], "notification-bot@zulip.com");
    assert_eq!(message["subject"], "Ada Owner's moderation requests");
    let expected = format!(
        "@_**Mo Member|{}** reported #**town>square@{reported}** sent by @_**Ada Owner|{}**.\n- Reason: **harassment**\n- Notes:\n\
         ```quote\nmean\n```\n``` spoiler **Message sent by @_**Ada Owner|{}****\nrude words\n```",
        member.user_id, owner.user_id, owner.user_id
    );
    assert_eq!(message["content"], json!(expected));
}

#[test]
fn reporting_needs_a_moderation_request_channel_a_known_type_and_for_other_an_explanation() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let message = send_to_channel(&hamlet, "Verona", &unique("report"), "a message");
    let path = format!("/messages/{message}/report");
    hamlet.post(&path, &[("report_type", "other")]).bad_request("BAD_REQUEST", "An explanation is required.");
    hamlet.post(&path, &[("report_type", "rudeness")]).bad_request("BAD_REQUEST", "Invalid report_type");
    hamlet.post(&path, &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'report_type' argument");
    hamlet
        .post(&path, &[("report_type", "spam")])
        .bad_request("BAD_REQUEST", "Moderation request channel must be specified to enable message reporting.");
}

#[test]
fn a_message_the_reporter_may_not_read_cannot_be_reported() {
    let (owner, member) = organization_with_member("report-access", "Reporting", "pw-report-123456");
    let moderation = create_channel(&owner, "moderation", &[("invite_only", "true")], &[]);
    owner.patch("/realm", &[("moderation_request_channel_id", &moderation.to_string())]).success();
    let secret = send_to_channel_id(&owner, moderation, "private", "between admins");
    member.post(&format!("/messages/{secret}/report"), &[("report_type", "spam")]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn the_moderation_request_channel_is_private_and_stays_private() {
    let (owner, _member) = organization_with_member("report-private", "Reporting", "pw-report-123456");
    let public = create_channel(&owner, "lobby", &[], &[]);
    owner
        .patch("/realm", &[("moderation_request_channel_id", &public.to_string())])
        .bad_request("BAD_REQUEST", "Moderation request channel must be private.");
    let moderation = create_channel(&owner, "moderation", &[("invite_only", "true")], &[]);
    owner.patch("/realm", &[("moderation_request_channel_id", &moderation.to_string())]).success();
    owner
        .patch(&format!("/streams/{moderation}"), &[("is_private", "false")])
        .bad_request("BAD_REQUEST", "Moderation request channel must be private.");
    let stream = owner.get(&format!("/streams/{moderation}"), &[]).success();
    assert_eq!(stream["stream"]["invite_only"], true);
}
