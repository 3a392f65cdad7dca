//! Incoming webhooks (`POST /api/v1/external/<integration>`): each integration turns a
//! third-party service's request into a topic and a message, as Zulip's does for the same
//! payload. One integration is one file: its payload read with [`payload::Field`], its
//! event dispatch and its message templates; [`INTEGRATIONS`] lists them. Sending is the
//! action's (`actions::webhooks`), through the one send entry.

pub mod alertmanager;
pub mod git;
pub mod github;
pub mod gitlab;
pub mod grafana;
pub mod json;
pub mod ordered;
pub mod payload;
pub mod slack_incoming;

use crate::error::ApiResult;

/// Where the webhook routes live.
pub const URL_PREFIX: &str = "/api/v1/external/";

/// Zulip's longest topic: a longer generated one is cut with an ellipsis, as Zulip's
/// webhooks cut theirs (a topic given in the URL is the user's and is not cut).
const MAX_TOPIC_CHARS: usize = 60;

/// What a webhook request carries that an integration reads.
pub struct Delivery<'a> {
    /// The body's text (a JSON payload), when it was not form-encoded.
    pub body: Option<&'a str>,
    /// A form-encoded body's `payload` field (Slack's form encoding).
    pub form_payload: Option<&'a str>,
    /// A request header by name (`X-GitHub-Event`).
    pub header: &'a dyn Fn(&str) -> Option<String>,
    /// The topic given in the URL: integrations then put a title in the message instead.
    pub url_topic: Option<&'a str>,
    /// GitHub's `branches` filter: the branches whose pushes are reported.
    pub branches: Option<&'a str>,
    /// Another URL parameter by name (Alertmanager's `name` and `desc`).
    pub param: &'a dyn Fn(&str) -> Option<String>,
}

impl Delivery<'_> {
    /// The JSON payload of the body.
    pub fn json(&self) -> ApiResult<serde_json::Value> {
        payload::parse(self.body.unwrap_or(""))
    }
}

/// A message an integration made of a request.
#[derive(Debug, PartialEq)]
pub struct Notice {
    pub topic: String,
    pub content: String,
    /// The event's name, matched against `only_events` / `exclude_events`.
    pub event: Option<String>,
}

/// An integration: its URL name, its name in errors, and how it reads a request into the
/// messages it sends (none: an event it deliberately ignores, answered with success).
pub struct Integration {
    pub name: &'static str,
    pub display_name: &'static str,
    pub render: fn(&Delivery) -> ApiResult<Vec<Notice>>,
}

/// Every integration, by URL name.
pub const INTEGRATIONS: &[Integration] = &[
    Integration { name: "alertmanager", display_name: "Alertmanager", render: alertmanager::render },
    Integration { name: "github", display_name: "GitHub", render: |d| github::render(d).map(Vec::from_iter) },
    Integration { name: "grafana", display_name: "Grafana", render: grafana::render },
    Integration { name: "gitlab", display_name: "GitLab", render: |d| gitlab::render(d).map(Vec::from_iter) },
    Integration { name: "json", display_name: "JSON", render: |d| json::render(d).map(Vec::from_iter) },
    Integration { name: "slack_incoming", display_name: "SlackIncoming", render: |d| slack_incoming::render(d).map(Vec::from_iter) },
];

pub fn integration(name: &str) -> Option<&'static Integration> {
    INTEGRATIONS.iter().find(|i| i.name == name)
}

/// A generated topic cut to Zulip's length.
pub fn cut_topic(topic: &str) -> String {
    if topic.chars().count() <= MAX_TOPIC_CHARS {
        return topic.to_string();
    }
    let kept: String = topic.chars().take(MAX_TOPIC_CHARS - 3).collect();
    format!("{kept}...")
}

/// Whether an event passes the URL's `only_events` / `exclude_events` lists of Unix
/// shell-style patterns (`*`, `?`), as Zulip filters them.
pub fn event_wanted(event: &str, only: Option<&[String]>, exclude: Option<&[String]>) -> bool {
    let matches = |pattern: &String| shell_pattern_matches(pattern, event);
    only.is_none_or(|only| only.iter().any(matches)) && !exclude.is_some_and(|exclude| exclude.iter().any(matches))
}

fn shell_pattern_matches(pattern: &str, text: &str) -> bool {
    let mut expression = String::from("^");
    for c in pattern.chars() {
        match c {
            '*' => expression.push_str(".*"),
            '?' => expression.push('.'),
            other => expression.push_str(&regex::escape(&other.to_string())),
        }
    }
    expression.push('$');
    regex::Regex::new(&expression).is_ok_and(|re| re.is_match(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_topics_are_cut_with_an_ellipsis() {
        let topic = "testing-gh / issue #6 This is a sample issue to test GH Integration Func";
        assert_eq!(cut_topic(topic), "testing-gh / issue #6 This is a sample issue to test GH I...");
        assert_eq!(cut_topic("short"), "short");
    }

    #[test]
    fn event_filters_use_shell_patterns() {
        let list = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(event_wanted("push_commits", Some(&list(&["push_*"])), None));
        assert!(!event_wanted("opened_pull_request", Some(&list(&["push_*"])), None));
        assert!(!event_wanted("push_tags", None, Some(&list(&["push_t?gs"]))));
        assert!(event_wanted("ping", None, Some(&list(&["push.*"]))));
    }
}
