//! Incoming webhooks (`POST /api/v1/external/<integration>`): the fixture payloads under
//! `tests/fixtures/webhooks/<integration>/` (written for these tests) sent as their
//! services send them, checking the topic and the content of the message the webhook's bot
//! posts, the URL's options, and Zulip's answers to bad requests (which post nothing).

mod chat;
mod common;
use chat::*;
use common::*;
use serde_json::json;

/// A fresh incoming-webhook bot of hamlet's, and hamlet.
fn webhook_bot() -> (Client, Client) {
    let hamlet = Client::dev("hamlet@zulip.com");
    let short = unique("hook");
    let created = hamlet.post("/bots", &[("full_name", &format!("Hook {short}")), ("short_name", &short), ("bot_type", "2")]).success();
    let user_id = created["user_id"].as_i64().unwrap();
    let user = hamlet.get(&format!("/users/{user_id}"), &[]).success();
    let bot = Client {
        email: user["user"]["email"].as_str().unwrap().to_string(),
        api_key: created["api_key"].as_str().unwrap().to_string(),
        user_id,
        realm: None,
    };
    (hamlet, bot)
}

fn fixture(integration: &str, name: &str) -> String {
    let path = format!("{}/tests/fixtures/webhooks/{integration}/{name}.json", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// POSTs `body` to the integration's URL with these query parameters and headers.
fn post_webhook(integration: &str, query: &[(&str, &str)], headers: &[(&str, &str)], body: &str) -> Resp {
    let url = format!("{}/api/v1/external/{integration}", server_url());
    let mut req = ureq::AgentBuilder::new().timeout(std::time::Duration::from_secs(90)).build().post(&url);
    for (k, v) in query {
        req = req.query(k, v);
    }
    for (k, v) in headers {
        req = req.set(k, v);
    }
    let what = format!("POST {url}");
    let (status, text) = status_and_text(req.send_string(body), &what);
    json_resp(status, &text, &what)
}

const JSON: (&str, &str) = ("Content-Type", "application/json");

/// Sends a GitHub fixture as GitHub does, to a fresh channel; answers the channel's id.
fn github(bot: &Client, hamlet: &Client, event: &str, fixture_name: &str, extra: &[(&str, &str)]) -> (i64, Resp) {
    let channel = unique("github-");
    let channel_id = create_channel(hamlet, &channel, &[], &[]);
    let mut query = vec![("api_key", bot.api_key.as_str()), ("stream", channel.as_str())];
    query.extend_from_slice(extra);
    let resp = post_webhook("github", &query, &[JSON, ("X-GitHub-Event", event)], &fixture("github", fixture_name));
    (channel_id, resp)
}

/// The raw contents of a topic's messages, oldest first.
fn contents(hamlet: &Client, channel_id: i64, topic: &str) -> Vec<String> {
    topic_messages(hamlet, channel_id, topic).iter().map(|m| m["content"].as_str().unwrap().to_string()).collect()
}

/// The one message of a channel but its notification-bot notices, as (topic, raw
/// content, sender id).
fn only_message(hamlet: &Client, channel_id: i64) -> (String, String, i64) {
    let messages = channel_messages(hamlet, channel_id);
    assert_eq!(messages.len(), 1, "{messages:?}");
    messages.into_iter().next().unwrap()
}

#[track_caller]
fn assert_posted(bot: &Client, hamlet: &Client, event: &str, fixture_name: &str, topic: &str, content: &str) {
    let (channel_id, resp) = github(bot, hamlet, event, fixture_name, &[]);
    resp.success();
    assert_eq!(only_message(hamlet, channel_id), (topic.to_string(), content.to_string(), bot.user_id));
}

#[test]
fn github_ping_says_the_webhook_is_configured() {
    let (hamlet, bot) = webhook_bot();
    assert_posted(&bot, &hamlet, "ping", "ping", "harbor", "GitHub webhook has been successfully configured by marina.");
}

#[test]
fn github_push_lists_commits_and_names_other_committers() {
    let (hamlet, bot) = webhook_bot();
    let content = "marina [pushed](https://github.com/octo-org/harbor/compare/111111111111...3c9a2f0b8d7e) 2 commits to branch main. \
                   Commits by Ben Pier (1) and adaq (1).\n\n\
                   * Tighten the dock timeout ([2b8f1e0d9c8](https://github.com/octo-org/harbor/commit/2b8f1e0d9c8b7a6f5e4d3c2b1a0918273645abcd))\n\
                   * Log berth changes ([3c9a2f0b8d7](https://github.com/octo-org/harbor/commit/3c9a2f0b8d7e6a5b4c3d2e1f00112233445566ff))";
    assert_posted(&bot, &hamlet, "push", "push__2_commits_by_others", "harbor / main", content);
}

#[test]
fn github_pull_request_opened_quotes_its_description() {
    let (hamlet, bot) = webhook_bot();
    let content = "marina opened [PR #12](https://github.com/octo-org/harbor/pull/12) from `marina:tides` to `octo-org:main`:\n\n~~~ quote\nTide tables for every berth.\n~~~";
    assert_posted(&bot, &hamlet, "pull_request", "pull_request__opened", "harbor / PR #12 Add tide tables", content);
}

#[test]
fn github_pull_request_merged_names_the_pull_request_in_a_topic_given_by_the_url() {
    let (hamlet, bot) = webhook_bot();
    let (channel_id, resp) = github(&bot, &hamlet, "pull_request", "pull_request__merged", &[("topic", "deploys")]);
    resp.success();
    let content = "adaq merged [PR #12 Add tide tables](https://github.com/octo-org/harbor/pull/12).";
    assert_eq!(only_message(&hamlet, channel_id), ("deploys".into(), content.into(), bot.user_id));
}

#[test]
fn github_pull_request_review_quotes_the_review() {
    let (hamlet, bot) = webhook_bot();
    let content =
        "adaq submitted [PR review](https://github.com/octo-org/harbor/pull/12#pullrequestreview-9001):\n\n~~~ quote\nShip it.\n~~~";
    assert_posted(&bot, &hamlet, "pull_request_review", "pull_request_review", "harbor / PR #12 Add tide tables", content);
}

#[test]
fn github_issue_opened_quotes_its_body() {
    let (hamlet, bot) = webhook_bot();
    let content = "marina opened [issue #7](https://github.com/octo-org/harbor/issues/7):\n\n~~~ quote\nNobody heard it this morning.\n~~~";
    assert_posted(&bot, &hamlet, "issues", "issues__opened", "harbor / issue #7 Fog horn is too quiet", content);
}

#[test]
fn github_issue_comment_quotes_the_comment() {
    let (hamlet, bot) = webhook_bot();
    let content = "adaq [commented](https://github.com/octo-org/harbor/issues/7#issuecomment-555) on [issue #7](https://github.com/octo-org/harbor/issues/7):\n\n~~~ quote\nTurned it up to eleven.\n~~~";
    assert_posted(&bot, &hamlet, "issue_comment", "issue_comment", "harbor / issue #7 Fog horn is too quiet", content);
}

#[test]
fn github_release_names_release_and_tag() {
    let (hamlet, bot) = webhook_bot();
    let content = "marina published release [Spring tide](https://github.com/octo-org/harbor/releases/tag/v2.1.0) for tag v2.1.0.";
    assert_posted(&bot, &hamlet, "release", "release", "harbor", content);
}

#[test]
fn github_check_run_reports_its_conclusion() {
    let (hamlet, bot) = webhook_bot();
    let content = "Check [build](https://github.com/octo-org/harbor/runs/4242) completed (success). \
                   ([3c9a2f0b8d7](https://github.com/octo-org/harbor/commit/3c9a2f0b8d7e6a5b4c3d2e1f00112233445566ff))";
    assert_posted(&bot, &hamlet, "check_run", "check_run__completed", "harbor / checks", content);
}

#[test]
fn github_unsupported_event_is_answered_200_with_its_name_and_posts_nothing() {
    let (hamlet, bot) = webhook_bot();
    let (channel_id, resp) = github(&bot, &hamlet, "workflow_run", "workflow_run__completed", &[]);
    let body = resp.error(
        200,
        "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
        "The 'workflow_run:completed' event isn't currently supported by the GitHub webhook; ignoring",
    );
    assert_eq!((body["webhook_name"].as_str(), body["event_type"].as_str()), (Some("GitHub"), Some("workflow_run:completed")));
    assert_nothing_but_a_sentinel(&bot, &hamlet, channel_id);
}

/// Posts a sentinel (a ping) to the channel and checks it is the channel's only message.
#[track_caller]
fn assert_nothing_but_a_sentinel(bot: &Client, hamlet: &Client, channel_id: i64) {
    let channel_id_text = channel_id.to_string();
    let query = [("api_key", bot.api_key.as_str()), ("stream", channel_id_text.as_str()), ("topic", "sentinel")];
    post_webhook("github", &query, &[JSON, ("X-GitHub-Event", "ping")], &fixture("github", "ping")).success();
    let (topic, _, _) = only_message(hamlet, channel_id);
    assert_eq!(topic, "sentinel");
}

#[test]
fn github_ignored_action_succeeds_and_posts_nothing() {
    let (hamlet, bot) = webhook_bot();
    let (channel_id, resp) = github(&bot, &hamlet, "pull_request", "pull_request__labeled", &[]);
    resp.success();
    assert_nothing_but_a_sentinel(&bot, &hamlet, channel_id);
}

#[test]
fn only_events_and_exclude_events_filter_by_shell_pattern() {
    let (hamlet, bot) = webhook_bot();
    let (channel_id, resp) = github(&bot, &hamlet, "push", "push__2_commits_by_others", &[("only_events", r#"["opened_*"]"#)]);
    resp.success();
    assert_nothing_but_a_sentinel(&bot, &hamlet, channel_id);
    let (channel_id, resp) = github(&bot, &hamlet, "push", "push__2_commits_by_others", &[("exclude_events", r#"["push_c?mmits"]"#)]);
    resp.success();
    assert_nothing_but_a_sentinel(&bot, &hamlet, channel_id);
    let (channel_id, resp) = github(&bot, &hamlet, "push", "push__2_commits_by_others", &[("only_events", r#"["push_*"]"#)]);
    resp.success();
    assert_eq!(contents(&hamlet, channel_id, "harbor / main").len(), 1);
}

#[test]
fn without_a_channel_the_message_goes_to_the_bots_owner() {
    let (hamlet, bot) = webhook_bot();
    let resp = post_webhook("github", &[("api_key", &bot.api_key)], &[JSON, ("X-GitHub-Event", "release")], &fixture("github", "release"));
    resp.success();
    let narrow = json!([{ "operator": "dm", "operand": [bot.user_id] }]).to_string();
    let query = [("anchor", "newest"), ("num_before", "5"), ("num_after", "0"), ("narrow", narrow.as_str()), ("apply_markdown", "false")];
    let body = hamlet.get("/messages", &query).success();
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["sender_id"], bot.user_id);
    let recipients: Vec<i64> = messages[0]["display_recipient"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert!(recipients.contains(&hamlet.user_id), "{recipients:?}");
}

#[test]
fn basic_auth_authenticates_a_webhook_too() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("github-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    let token = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, format!("{}:{}", bot.email, bot.api_key));
    let auth = format!("Basic {token}");
    let headers = [JSON, ("X-GitHub-Event", "ping"), ("Authorization", auth.as_str())];
    post_webhook("github", &[("stream", &channel)], &headers, &fixture("github", "ping")).success();
    assert_eq!(only_message(&hamlet, channel_id).2, bot.user_id);
}

#[test]
fn an_unknown_api_key_is_refused() {
    let resp = post_webhook("github", &[("api_key", "not-a-key"), ("stream", "Denmark")], &[JSON, ("X-GitHub-Event", "ping")], "{}");
    resp.error(401, "INVALID_API_KEY", "Invalid API key");
}

#[test]
fn malformed_json_is_a_bad_request_and_posts_nothing() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("github-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    let query = [("api_key", bot.api_key.as_str()), ("stream", channel.as_str())];
    post_webhook("github", &query, &[JSON, ("X-GitHub-Event", "ping")], "{not json").bad_request("BAD_REQUEST", "Malformed JSON");
    assert_nothing_but_a_sentinel(&bot, &hamlet, channel_id);
}

#[test]
fn a_missing_event_header_is_named() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("github-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    let query = [("api_key", bot.api_key.as_str()), ("stream", channel.as_str())];
    let body = post_webhook("github", &query, &[JSON], &fixture("github", "ping"))
        .bad_request("MISSING_HTTP_EVENT_HEADER", "Missing the HTTP event header 'X-GitHub-Event'");
    assert_eq!(body["header"], "X-GitHub-Event");
    assert_nothing_but_a_sentinel(&bot, &hamlet, channel_id);
}

#[test]
fn a_missing_payload_field_is_named() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("github-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    let query = [("api_key", bot.api_key.as_str()), ("stream", channel.as_str())];
    let payload = json!({"action": "opened", "sender": {"login": "marina"}, "repository": {"name": "harbor"}}).to_string();
    post_webhook("github", &query, &[JSON, ("X-GitHub-Event", "issues")], &payload)
        .bad_request("BAD_REQUEST", "payload['issue']['number'] is missing");
    assert_nothing_but_a_sentinel(&bot, &hamlet, channel_id);
}

#[test]
fn an_oversized_body_is_refused() {
    let (_, bot) = webhook_bot();
    let body = format!("{{\"padding\": \"{}\"}}", "x".repeat(6 << 20));
    let resp = post_webhook("json", &[("api_key", &bot.api_key), ("stream", "Denmark")], &[JSON], &body);
    resp.error(413, "BAD_REQUEST", "Request body too large (limit: 5 MiB)");
}

#[test]
fn json_integration_posts_the_payload_pretty_printed_in_order() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("json-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    post_webhook("json", &[("api_key", &bot.api_key), ("stream", &channel)], &[JSON], &fixture("json", "alert")).success();
    let content = "```json\n{\n  \"status\": \"firing\",\n  \"service\": \"caf\\u00e9-api\",\n  \"checks\": [\n    {\n      \"name\": \"latency\",\n      \"ok\": false\n    }\n  ],\n  \"labels\": {}\n}\n```";
    assert_eq!(only_message(&hamlet, channel_id), ("JSON".into(), content.into(), bot.user_id));
}

#[test]
fn slack_text_takes_its_topic_from_the_slack_channel_and_converts_markup() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("slack-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    post_webhook("slack_incoming", &[("api_key", &bot.api_key), ("stream", &channel)], &[JSON], &fixture("slack_incoming", "text"))
        .success();
    let content = "**Deploy** of [run 8](https://deploy.example.com/runs/8) finished *cleanly*";
    assert_eq!(only_message(&hamlet, channel_id), ("deploys".into(), content.into(), bot.user_id));
}

#[test]
fn slack_blocks_and_attachments_render_as_markdown_from_a_form_payload() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("slack-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    let payload = fixture("slack_incoming", "blocks_and_attachments");
    let form: String = form_urlencoded::Serializer::new(String::new()).append_pair("payload", &payload).finish();
    let query = [("api_key", bot.api_key.as_str()), ("stream", channel.as_str()), ("topic", "nightly")];
    post_webhook("slack_incoming", &query, &[("Content-Type", "application/x-www-form-urlencoded")], &form).success();
    let content = "## Nightly report\n\nAll **green**\n\n| | |\n|-|-|\n| Passed | 412 |\n\n----\n\n\
                   ## [Details](https://ci.example.com/nightly)\n\nTook 14 minutes\n\n**Flaky**: 2\n\nci-bot";
    assert_eq!(only_message(&hamlet, channel_id), ("nightly".into(), content.into(), bot.user_id));
}

#[test]
fn an_unknown_integration_is_not_found() {
    let (_, bot) = webhook_bot();
    post_webhook("nosuchservice", &[("api_key", &bot.api_key)], &[JSON], "{}").error(404, "BAD_REQUEST", "Not Found");
}

/// Sends a GitLab fixture as GitLab does, to a fresh channel; answers the channel's id.
fn gitlab(bot: &Client, hamlet: &Client, event: &str, fixture_name: &str, extra: &[(&str, &str)]) -> (i64, Resp) {
    let channel = unique("gitlab-");
    let channel_id = create_channel(hamlet, &channel, &[], &[]);
    let mut query = vec![("api_key", bot.api_key.as_str()), ("stream", channel.as_str())];
    query.extend_from_slice(extra);
    let resp = post_webhook("gitlab", &query, &[JSON, ("X-GitLab-Event", event)], &fixture("gitlab", fixture_name));
    (channel_id, resp)
}

#[track_caller]
fn assert_gitlab_posted(event: &str, fixture_name: &str, topic: &str, content: &str) {
    let (hamlet, bot) = webhook_bot();
    let (channel_id, resp) = gitlab(&bot, &hamlet, event, fixture_name, &[]);
    resp.success();
    assert_eq!(only_message(&hamlet, channel_id), (topic.to_string(), content.to_string(), bot.user_id));
}

const GITLAB: &str = "https://gitlab.example.com/octo/harbor";

#[test]
fn gitlab_push_lists_its_commits() {
    let content = format!(
        "Ada Quay [pushed]({GITLAB}/-/compare/95790bf891e76fee5e1747ab589903a6a1f80f22...a1b2c3d4e5f60718293a4b5c6d7e8f9012345678) \
         1 commit to branch main.\n\n* Add buoys ([a1b2c3d4e5f]({GITLAB}/-/commit/a1b2c3d4e5f60718293a4b5c6d7e8f9012345678))"
    );
    assert_gitlab_posted("Push Hook", "push_hook", "harbor / main", &content);
}

#[test]
fn gitlab_merge_request_opened_names_branches_and_assignees() {
    let content = format!("Ada Quay created [MR #3]({GITLAB}/-/merge_requests/3) from `buoys` to `main` (assigned to Ben Pier):\n\n~~~ quote\nRed to port.\n~~~");
    assert_gitlab_posted("Merge Request Hook", "merge_request_hook__opened", "harbor / MR #3 Buoy colours", &content);
}

#[test]
fn gitlab_merge_request_in_a_topic_given_by_the_url_links_the_project() {
    let (hamlet, bot) = webhook_bot();
    let (channel_id, resp) = gitlab(&bot, &hamlet, "Merge Request Hook", "merge_request_hook__opened", &[("topic", "reviews")]);
    resp.success();
    let content = format!(
        "[[harbor]({GITLAB})] Ada Quay created [MR #3 Buoy colours]({GITLAB}/-/merge_requests/3) from `buoys` to `main` (assigned to Ben Pier):\n\n~~~ quote\nRed to port.\n~~~"
    );
    assert_eq!(only_message(&hamlet, channel_id), ("reviews".into(), content, bot.user_id));
}

#[test]
fn gitlab_issue_opened_quotes_its_description_without_hidden_comments() {
    let content = format!("Ada Quay created [issue #5]({GITLAB}/-/issues/5):\n\n~~~ quote\nIt flickers.\n~~~");
    assert_gitlab_posted("Issue Hook", "issue_hook__opened", "harbor / issue #5 Lighthouse bulb", &content);
}

#[test]
fn gitlab_note_on_a_merge_request_quotes_the_note() {
    let content = format!("Ben Pier [commented]({GITLAB}/-/merge_requests/3#note_1244) on [MR #3]({GITLAB}/-/merge_requests/3):\n\n~~~ quote\nLooks seaworthy.\n~~~");
    assert_gitlab_posted("Note Hook", "note_hook__merge_request", "harbor / MR #3 Buoy colours", &content);
}

#[test]
fn gitlab_pipeline_lists_its_jobs_and_artifacts() {
    let job = |id: i64| format!("{GITLAB}/-/jobs/{id}");
    let content = format!(
        "[Pipeline (77)]({GITLAB}/-/pipelines/77) changed status to success with build(s):\n* [test]({}) - success\n* [package]({}) - success\n  \
         * built artifact: *harbor.tar.gz* [[Browse]({}/artifacts/browse)|[Download]({}/artifacts/download)].",
        job(901),
        job(902),
        job(902),
        job(902)
    );
    assert_gitlab_posted("Pipeline Hook", "pipeline_hook", "harbor / main", &content);
}

#[test]
fn gitlab_unsupported_event_is_answered_with_its_name() {
    let (hamlet, bot) = webhook_bot();
    let (channel_id, resp) = gitlab(&bot, &hamlet, "Deployment Hook", "push_hook", &[]);
    let body = resp.error(
        200,
        "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
        "The 'Deployment Hook' event isn't currently supported by the GitLab webhook; ignoring",
    );
    assert_eq!((body["webhook_name"].as_str(), body["event_type"].as_str()), (Some("GitLab"), Some("Deployment Hook")));
    assert_nothing_but_a_sentinel(&bot, &hamlet, channel_id);
}

/// The messages of a channel but its notification-bot notices, oldest first, as (topic,
/// raw content, sender id).
fn channel_messages(hamlet: &Client, channel_id: i64) -> Vec<(String, String, i64)> {
    let narrow = json!([{ "operator": "channel", "operand": channel_id }]).to_string();
    let query = [("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", narrow.as_str()), ("apply_markdown", "false")];
    let body = hamlet.get("/messages", &query).success();
    let messages = body["messages"].as_array().unwrap();
    messages
        .iter()
        .filter(|m| !is_channel_event_notice(m))
        .map(|m| (m["subject"].as_str().unwrap().into(), m["content"].as_str().unwrap().into(), m["sender_id"].as_i64().unwrap()))
        .collect()
}

#[test]
fn alertmanager_sends_one_message_per_instance_and_status() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("alerts-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    post_webhook("alertmanager", &[("api_key", &bot.api_key), ("stream", &channel)], &[JSON], &fixture("alertmanager", "alerts")).success();
    let graph = "http://prometheus.example.com:9090/graph?g0.expr=";
    assert_eq!(
        channel_messages(&hamlet, channel_id),
        vec![
            (
                "db-1:9100".into(),
                format!(
                    ":alert: **FIRING**\n* HighLoad ([graph]({graph}node_load1+%3E+4&g0.tab=0))\n\
                     * DiskFull ([graph]({graph}disk_used+%3E+0.9&g0.tab=0))"
                ),
                bot.user_id
            ),
            ("web-2:9100".into(), format!(":squared_ok: **Resolved** HighLatency ([graph]({graph}latency_p99&g0.tab=0))"), bot.user_id),
        ]
    );
}

#[test]
fn alertmanager_takes_its_topic_and_text_fields_from_the_url() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("alerts-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    let query = [("api_key", bot.api_key.as_str()), ("stream", channel.as_str()), ("name", "job"), ("desc", "summary")];
    post_webhook("alertmanager", &query, &[JSON], &fixture("alertmanager", "alerts")).success();
    let messages = channel_messages(&hamlet, channel_id);
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0].0, "node");
    assert!(messages[0].1.starts_with(":alert: **FIRING**\n* Load above 4 for 5 minutes ([graph]("), "{}", messages[0].1);
    assert!(messages[1].1.starts_with(":squared_ok: **Resolved** p99 latency back under 300 ms ([graph]("), "{}", messages[1].1);
}

#[test]
fn alertmanager_without_alerts_is_a_bad_request_and_posts_nothing() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("alerts-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    post_webhook("alertmanager", &[("api_key", &bot.api_key), ("stream", &channel)], &[JSON], r#"{"status": "firing"}"#)
        .bad_request("BAD_REQUEST", "payload['alerts'] is missing");
    assert!(channel_messages(&hamlet, channel_id).is_empty());
}

#[test]
fn grafana_posts_each_alert_under_its_name_with_times_labels_values_and_links() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("grafana-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    post_webhook("grafana", &[("api_key", &bot.api_key), ("stream", &channel)], &[JSON], &fixture("grafana", "alerts")).success();
    let firing = ":alert: **FIRING**\n\n**Queue backlog**\n\n\
        This alert was fired at <time:2026-03-04T08:15:30+01:00>.\n\n\
        Labels:\n- alertname: Queue backlog\n- service: ingest\n- region: eu-west\n\n\
        Values:\n- B: 5230\n- A: 0.75\n\n\
        Annotations:\n- summary: More than 5000 jobs waiting\n- runbook: https://runbooks.example.com/queue\n\n\
        [Generator](https://grafana.example.com/alerting/grafana/q1/view)\n\
        [Silence](https://grafana.example.com/alerting/silence/new?matcher=alertname%3DQueue+backlog)";
    let resolved = ":checkbox: **RESOLVED**\n\n\
        This alert was fired at <time:2026-03-04T06:00:00+00:00>.\n\n\
        This alert was resolved at <time:2026-03-04T07:45:12+00:00>.\n\n\
        Labels:\n- host: db-3\n\n\
        Values:\n[ var='A' labels={host=db-3} value=12 ]\n\n\n\
        [Silence](https://grafana.example.com/alerting/silence/new?matcher=host%3Ddb-3)\n\
        [Image](https://grafana.example.com/render/db-3.png)";
    assert_eq!(
        channel_messages(&hamlet, channel_id),
        vec![("[Queue backlog]".into(), firing.to_string(), bot.user_id), ("[90ab77cd12ef3456]".into(), resolved.to_string(), bot.user_id)]
    );
}

#[test]
fn grafana_legacy_alerts_post_the_rule_state_message_and_metrics_under_the_title() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("grafana-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    // Zulip's own tests send Grafana's JSON with a form content type; it is read the same.
    let form = ("Content-Type", "application/x-www-form-urlencoded");
    post_webhook("grafana", &[("api_key", &bot.api_key), ("stream", &channel)], &[form], &fixture("grafana", "legacy_alerting")).success();
    let content = ":alert: **ALERTING**\n\n\
        [Checkout latency](https://grafana.example.com/d/checkout?tab=alert&panelId=2)\n\n\
        Checkout latency is above its budget.\n\n\
        **p99 latency:** 812.5\n**errors:** 17\n\n\
        [Click to view visualization](https://grafana.example.com/render/latency.png)";
    assert_eq!(channel_messages(&hamlet, channel_id), vec![("[Alerting] Checkout latency".into(), content.to_string(), bot.user_id)]);
}

#[test]
fn grafana_only_events_match_the_alert_status() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("grafana-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    let query = [("api_key", bot.api_key.as_str()), ("stream", channel.as_str()), ("only_events", r#"["resolved"]"#)];
    post_webhook("grafana", &query, &[JSON], &fixture("grafana", "alerts")).success();
    let topics: Vec<String> = channel_messages(&hamlet, channel_id).into_iter().map(|(topic, _, _)| topic).collect();
    assert_eq!(topics, ["[90ab77cd12ef3456]"]);
}

#[test]
fn grafana_with_an_unknown_state_is_a_bad_request_and_posts_nothing() {
    let (hamlet, bot) = webhook_bot();
    let channel = unique("grafana-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    let body = fixture("grafana", "legacy_alerting").replace(r#""state": "alerting""#, r#""state": "exploded""#);
    post_webhook("grafana", &[("api_key", &bot.api_key), ("stream", &channel)], &[JSON], &body)
        .bad_request("BAD_REQUEST", "Invalid payload['state']");
    assert!(channel_messages(&hamlet, channel_id).is_empty());
}
