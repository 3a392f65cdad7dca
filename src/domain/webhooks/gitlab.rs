//! GitLab (`/api/v1/external/gitlab`): the event is the `X-GitLab-Event` header, refined by
//! the payload's action or noteable type ("Merge Request Hook open", "Note Hook Issue"), as
//! Zulip's GitLab integration names it; those names are what `only_events` matches.

use super::git::{self, Commit, ItemEvent, Push};
use super::payload::Field;
use super::{cut_topic, Delivery, Notice};
use crate::error::{ApiError, ApiResult};

const NAME: &str = "GitLab";
const EVENT_HEADER: &str = "X-GitLab-Event";
const EMPTY_SHA: &str = "0000000000000000000000000000000000000000";

pub fn render(delivery: &Delivery) -> ApiResult<Option<Notice>> {
    let json = delivery.json()?;
    let payload = Field::root(&json);
    let Some(event) = event(delivery, &payload)? else { return Ok(None) };
    let include_title = delivery.url_topic.is_some();
    let mut content = content(&event, &payload, include_title)?;
    if delivery.url_topic.is_some_and(|t| !t.is_empty()) {
        content = format!("[[{}]({})] {content}", repository_name(&payload)?, homepage(&payload)?);
    }
    let topic = topic(&event, &payload)?;
    Ok(Some(Notice { topic: cut_topic(&topic), content, event: Some(event) }))
}

fn event(delivery: &Delivery, payload: &Field) -> ApiResult<Option<String>> {
    let header = (delivery.header)(EVENT_HEADER).ok_or_else(|| ApiError::missing_http_event_header(EVENT_HEADER))?;
    let event = match header.as_str() {
        "Issue Hook" | "Confidential Issue Hook" | "Merge Request Hook" | "Wiki Page Hook" => {
            let action = payload.get("object_attributes").get("action").opt_str()?.unwrap_or("open");
            format!("{header} {action}")
        }
        "Note Hook" | "Confidential Note Hook" => format!("{header} {}", payload.get("object_attributes").get("noteable_type").str()?),
        "Push Hook" => {
            let branch = branch_name(payload)?;
            // Zulip's test is a substring one: "main" passes `branches=main,dev`.
            if delivery.branches.is_some_and(|wanted| !wanted.contains(branch)) {
                return Ok(None);
            }
            header
        }
        _ => header,
    };
    let known = matches!(event.as_str(), "Push Hook" | "Tag Push Hook" | "Test Hook" | "Pipeline Hook")
        || ["Issue Hook ", "Confidential Issue Hook "].iter().any(|p| event.strip_prefix(p).is_some_and(is_issue_action))
        || ["Note Hook ", "Confidential Note Hook "]
            .iter()
            .any(|p| event.strip_prefix(p).is_some_and(|t| ["Commit", "MergeRequest", "Issue"].contains(&t)))
        || event
            .strip_prefix("Merge Request Hook ")
            .is_some_and(|a| ["open", "update", "merge", "close", "reopen", "approved", "unapproved"].contains(&a));
    if !known || event == "Confidential Note Hook Commit" || event == "Confidential Note Hook MergeRequest" {
        return Err(ApiError::unsupported_webhook_event(NAME, &event));
    }
    Ok(Some(event))
}

fn is_issue_action(action: &str) -> bool {
    ["open", "close", "reopen", "update"].contains(&action)
}

fn repository_name<'a>(p: &Field<'a>) -> ApiResult<&'a str> {
    if p.has("project") {
        p.get("project").get("name").str()
    } else {
        p.get("repository").get("name").str()
    }
}

fn homepage<'a>(p: &Field<'a>) -> ApiResult<&'a str> {
    if p.has("project") {
        p.get("project").get("web_url").str()
    } else {
        p.get("repository").get("homepage").str()
    }
}

fn branch_name<'a>(p: &Field<'a>) -> ApiResult<&'a str> {
    Ok(p.get("ref").str()?.trim_start_matches("refs/heads/"))
}

fn topic(event: &str, p: &Field) -> ApiResult<String> {
    let repo = repository_name(p)?;
    let item = |kind: &str, item: Field| -> ApiResult<String> {
        Ok(format!("{repo} / {kind} #{} {}", item.get("iid").int()?, item.get("title").str()?))
    };
    Ok(match event {
        "Push Hook" => format!("{repo} / {}", branch_name(p)?),
        "Pipeline Hook" => format!("{repo} / {}", p.get("object_attributes").get("ref").str()?.trim_start_matches("refs/heads/")),
        e if e.starts_with("Merge Request Hook") => item("MR", p.get("object_attributes"))?,
        e if e.contains("Issue Hook") => item("issue", p.get("object_attributes"))?,
        e if e.ends_with("Note Hook Issue") => item("issue", p.get("issue"))?,
        "Note Hook MergeRequest" => item("MR", p.get("merge_request"))?,
        _ => repo.to_string(),
    })
}

fn content(event: &str, p: &Field, include_title: bool) -> ApiResult<String> {
    let user = || p.get("user").get("name").str();
    let attributes = p.get("object_attributes");
    let title =
        |item: &Field| -> ApiResult<Option<String>> { Ok(if include_title { Some(item.get("title").str()?.to_string()) } else { None }) };
    match event {
        "Push Hook" => push(p),
        "Tag Push Hook" => {
            let action = if p.get("checkout_sha").truthy() { "pushed" } else { "removed" };
            Ok(git::push_tag_message(p.get("user_name").str()?, p.get("ref").str()?.trim_start_matches("refs/tags/"), action))
        }
        "Test Hook" => Ok(format!("Webhook for **{}** has been configured successfully! :tada:", repository_name(p)?)),
        "Pipeline Hook" => pipeline(p),
        "Note Hook Commit" => {
            let commit = p.get("commit");
            let sha = git::short_sha(commit.get("id").str()?);
            let note = attributes.get("note").str()?;
            Ok(format!(
                "{} [commented]({}) on [{sha}]({}):{}",
                user()?,
                attributes.get("url").str()?,
                commit.get("url").str()?,
                git::quote(note)
            ))
        }
        "Note Hook MergeRequest" | "Note Hook Issue" | "Confidential Note Hook Issue" => {
            let (kind, item) = if event == "Note Hook MergeRequest" { ("MR", p.get("merge_request")) } else { ("issue", p.get("issue")) };
            let action = format!("[commented]({}) on", attributes.get("url").str()?);
            let title = title(&item)?;
            Ok(git::item_event_message(&ItemEvent {
                user: user()?,
                action: &action,
                url: item.get("url").str()?,
                kind,
                number: Some(item.get("iid").int()?),
                title: title.as_deref(),
                message: Some(attributes.get("note").str()?),
                ..Default::default()
            }))
        }
        e if e.starts_with("Merge Request Hook") => merge_request(e.trim_start_matches("Merge Request Hook "), p, include_title),
        e => issue(e.rsplit(' ').next().unwrap_or(""), p, include_title),
    }
}

fn push(p: &Field) -> ApiResult<String> {
    let user = p.get("user_name").str()?;
    let branch = branch_name(p)?;
    if p.get("after").truthy() && p.get("after").str()? == EMPTY_SHA {
        return Ok(format!("{user} deleted branch {branch}."));
    }
    let mut commits = Vec::new();
    for commit in p.get("commits").items()? {
        commits.push(Commit {
            name: commit.get("author").get("name").str()?.to_string(),
            sha: commit.get("id").str()?.to_string(),
            url: commit.get("url").str()?.to_string(),
            message: commit.get("message").str()?.to_string(),
        });
    }
    let compare_url = format!("{}/-/compare/{}...{}", homepage(p)?, p.get("before").str()?, p.get("after").str()?);
    Ok(git::push_message(&Push { user, compare_url: &compare_url, branch, commits: &commits, deleted: false, forced: false }))
}

/// "A", "A and B", "A, B and C" of the assignees' names.
fn assignees(p: &Field) -> ApiResult<Option<String>> {
    let list = if p.get("assignees").truthy() {
        p.get("assignees").items()?
    } else if p.get("assignee").truthy() {
        vec![p.get("assignee")]
    } else {
        Vec::new()
    };
    let names = list.iter().map(|a| a.get("name").str()).collect::<ApiResult<Vec<_>>>()?;
    Ok(match names.split_last() {
        None => None,
        Some((last, [])) => Some(last.to_string()),
        Some((last, rest)) => Some(format!("{} and {last}", rest.join(", "))),
    })
}

fn merge_request(action: &str, p: &Field, include_title: bool) -> ApiResult<String> {
    let mr = p.get("object_attributes");
    let action = match action {
        "open" => "created",
        "update" if mr.get("oldrev").truthy() => "added commit(s) to",
        "update" => "updated",
        "merge" => "merged",
        "close" => "closed",
        "reopen" => "reopened",
        other => other,
    };
    let opened_or_updated = action == "created" || action == "updated";
    let with_branches = action == "created" || action == "merged";
    let branches = if with_branches { Some((mr.get("source_branch").str()?, mr.get("target_branch").str()?)) } else { None };
    let assignees = if opened_or_updated { assignees(p)? } else { None };
    let title = if include_title { Some(mr.get("title").str()?) } else { None };
    Ok(git::item_event_message(&ItemEvent {
        user: p.get("user").get("name").str()?,
        action,
        url: mr.get("url").str()?,
        kind: "MR",
        number: Some(mr.get("iid").int()?),
        title,
        branches,
        assignee: assignees.as_deref(),
        message: if opened_or_updated { mr.get("description").opt_str()? } else { None },
        ..Default::default()
    }))
}

fn issue(action: &str, p: &Field, include_title: bool) -> ApiResult<String> {
    let issue = p.get("object_attributes");
    let created = action == "open";
    let description =
        if created && issue.get("description").truthy() { Some(without_hidden_comments(issue.get("description").str()?)) } else { None };
    let assignees = if created { assignees(p)? } else { None };
    let action = match action {
        "open" => "created",
        "close" => "closed",
        "reopen" => "reopened",
        _ => "updated",
    };
    Ok(git::item_event_message(&ItemEvent {
        user: p.get("user").get("name").str()?,
        action,
        url: issue.get("url").str()?,
        kind: "issue",
        number: Some(issue.get("iid").int()?),
        title: if include_title { Some(issue.get("title").str()?) } else { None },
        assignee: assignees.as_deref(),
        message: description.as_deref(),
        ..Default::default()
    }))
}

/// A description without its `<!-- … -->` comments (GitLab's templates are full of them).
fn without_hidden_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        let Some(end) = rest[start..].find("-->") else { break };
        out.push_str(&rest[..start]);
        rest = &rest[start + end + 3..];
    }
    out.push_str(rest);
    out.trim_end().to_string()
}

fn pipeline(p: &Field) -> ApiResult<String> {
    let attributes = p.get("object_attributes");
    let action = match attributes.get("status").str()? {
        "pending" => "was created".to_string(),
        "running" => "started".to_string(),
        status => format!("changed status to {status}"),
    };
    let home = homepage(p)?;
    let id = attributes.get("id").int()?;
    let mut builds = String::new();
    for build in p.get("builds").items()? {
        let url = format!("{home}/-/jobs/{}", build.get("id").int()?);
        builds.push_str(&format!("* [{}]({url}) - {}\n", build.get("name").str()?, build.get("status").str()?));
        let artifact = build.get("artifacts_file").get("filename");
        if artifact.truthy() {
            let name = artifact.str()?;
            builds.push_str(&format!(
                "  * built artifact: *{name}* [[Browse]({url}/artifacts/browse)|[Download]({url}/artifacts/download)]\n"
            ));
        }
    }
    builds.pop();
    Ok(format!("[Pipeline ({id})]({home}/-/pipelines/{id}) {action} with build(s):\n{builds}."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_comments_leave_descriptions() {
        assert_eq!(without_hidden_comments("Fix it<!-- template\nnotes -->\n\nplease<!-- x -->\n"), "Fix it\n\nplease");
    }
}
