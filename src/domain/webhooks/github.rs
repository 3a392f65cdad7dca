//! GitHub (`/api/v1/external/github`): the event is the `X-GitHub-Event` header, refined by
//! the payload's `action`, as Zulip's GitHub integration names it (`opened_pull_request`,
//! `push_commits`, …); those names are what `only_events` / `exclude_events` match.

use super::git::{self, Commit, ItemEvent, Push};
use super::payload::Field;
use super::{cut_topic, Delivery, Notice};
use crate::error::{ApiError, ApiResult};

const NAME: &str = "GitHub";
const EVENT_HEADER: &str = "X-GitHub-Event";

/// Events GitHub sends that Zulip deliberately reports nothing for.
const IGNORED_EVENTS: &[&str] =
    &["check_suite", "label", "meta", "milestone", "organization", "project_card", "repository_vulnerability_alert"];
const IGNORED_PULL_REQUEST_ACTIONS: &[&str] = &["approved", "converted_to_draft", "labeled", "review_request_removed", "unlabeled"];

/// What every message template reads.
struct Event<'a> {
    payload: Field<'a>,
    sender: &'a str,
    /// The URL names the topic: messages then name their pull request or issue.
    include_title: bool,
}

pub fn render(delivery: &Delivery) -> ApiResult<Option<Notice>> {
    let json = delivery.json()?;
    let header = (delivery.header)(EVENT_HEADER).ok_or_else(|| ApiError::missing_http_event_header(EVENT_HEADER))?;
    let payload = Field::root(&json);
    let sender = payload.get("sender").get("login").str()?;
    if is_unchanged_comment_edit(&header, &payload)? {
        return Ok(None);
    }
    let Some(event) = zulip_event(&header, &payload, delivery.branches)? else { return Ok(None) };
    let topic = topic(&payload, &event)?;
    let ctx = Event { payload, sender, include_title: delivery.url_topic.is_some() };
    let content = content(&event, &ctx)?;
    Ok(Some(Notice { topic: cut_topic(&topic), content, event: Some(event) }))
}

/// A comment "edited" without a change of its text says nothing new.
fn is_unchanged_comment_edit(header: &str, payload: &Field) -> ApiResult<bool> {
    if !header.contains("comment") || header.contains("discussion") || payload.get("action").opt_str()? != Some("edited") {
        return Ok(false);
    }
    Ok(payload.get("changes").get("body").get("from").str()? == payload.get("comment").get("body").str()?)
}

/// Zulip's name for the event; `None` for one it ignores.
fn zulip_event(header: &str, payload: &Field, branches: Option<&str>) -> ApiResult<Option<String>> {
    let action = || payload.get("action").str();
    let name = match header {
        "pull_request" => match action()? {
            "opened" | "reopened" => "opened_pull_request",
            "synchronize" | "edited" => "updated_pull_request",
            "assigned" | "unassigned" => "assigned_or_unassigned_pull_request",
            "closed" => "closed_pull_request",
            "review_requested" => "pull_request_review_requested",
            "ready_for_review" => "pull_request_ready_for_review",
            a if IGNORED_PULL_REQUEST_ACTIONS.contains(&a) => return Ok(None),
            a => return Err(ApiError::unsupported_webhook_event(NAME, &format!("pull_request:{a}"))),
        },
        "pull_request_review" if action()? == "edited" && !payload.get("changes").truthy() => return Ok(None),
        "push" => {
            let reference = payload.get("ref").str()?;
            if reference.starts_with("refs/heads/gh-readonly-queue/") {
                return Ok(None);
            }
            let Some(branch) = reference.strip_prefix("refs/heads/") else { return Ok(Some("push_tags".into())) };
            if branches.is_some_and(|wanted| !wanted.split(',').any(|b| b.trim() == branch)) {
                return Ok(None);
            }
            "push_commits"
        }
        "check_run" if payload.get("check_run").get("status").str()? != "completed" => return Ok(None),
        "issues" => match action()? {
            "labeled" | "unlabeled" => "issue_labeled_or_unlabeled",
            "milestoned" | "demilestoned" => "issue_milestoned_or_demilestoned",
            "transferred" => return Err(ApiError::unsupported_webhook_event(NAME, "issues:transferred")),
            _ => "issues",
        },
        "ping"
        | "pull_request_review"
        | "pull_request_review_comment"
        | "issue_comment"
        | "release"
        | "check_run"
        | "create"
        | "delete"
        | "star"
        | "watch"
        | "fork"
        | "commit_comment"
        | "status" => header,
        h if IGNORED_EVENTS.contains(&h) => return Ok(None),
        h => {
            let action = payload.get("action").opt_str()?.unwrap_or("???");
            return Err(ApiError::unsupported_webhook_event(NAME, &format!("{h}:{action}")));
        }
    };
    Ok(Some(name.to_string()))
}

fn repository_name<'a>(payload: &Field<'a>) -> ApiResult<&'a str> {
    payload.get("repository").get("name").str()
}

fn topic(payload: &Field, event: &str) -> ApiResult<String> {
    let item = |kind: &str, key: &str| -> ApiResult<String> {
        let item = payload.get(key);
        Ok(format!("{} / {kind} #{} {}", repository_name(payload)?, item.get("number").int()?, item.get("title").str()?))
    };
    if event.contains("pull_request") {
        return item("PR", "pull_request");
    }
    if event.starts_with("issue") {
        let kind = if is_pull_request_comment(payload) { "PR" } else { "issue" };
        return item(kind, "issue");
    }
    match event {
        "push_commits" => {
            let branch = payload.get("ref").str()?.trim_start_matches("refs/heads/");
            Ok(format!("{} / {branch}", repository_name(payload)?))
        }
        "ping" if !payload.get("repository").truthy() => Ok(payload.get("organization").get("login").str()?.to_string()),
        "check_run" => Ok(format!("{} / checks", repository_name(payload)?)),
        _ => Ok(repository_name(payload)?.to_string()),
    }
}

/// A comment on a pull request comes as an `issue_comment` whose issue has a `pull_request`.
fn is_pull_request_comment(payload: &Field) -> bool {
    payload.get("issue").has("pull_request")
}

fn content(event: &str, ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    Ok(match event {
        "ping" => git::setup_message(NAME, Some(ctx.sender)),
        "push_commits" => push_commits(ctx)?,
        "push_tags" => {
            let tag = p.get("ref").str()?.trim_start_matches("refs/tags/");
            let action = if p.get("created").bool()? { "pushed" } else { "removed" };
            git::push_tag_message(ctx.sender, tag, action)
        }
        "opened_pull_request" | "updated_pull_request" => opened_or_updated_pull_request(ctx)?,
        "assigned_or_unassigned_pull_request" => {
            pull_request_event(ctx, p.get("action").str()?, Some(p.get("assignee").get("login").str()?))?
        }
        "closed_pull_request" => {
            let action = if p.get("pull_request").get("merged").bool()? { "merged" } else { "closed without merge" };
            pull_request_event(ctx, action, None)?
        }
        "pull_request_review_requested" => review_requested(ctx)?,
        "pull_request_ready_for_review" => {
            let pr = p.get("pull_request");
            format!("**{}** has marked [PR #{}]({}) as ready for review.", ctx.sender, pr.get("number").int()?, pr.get("html_url").str()?)
        }
        "pull_request_review" => pull_request_review(ctx)?,
        "pull_request_review_comment" => pull_request_review_comment(ctx)?,
        "issues" => issue(ctx)?,
        "issue_labeled_or_unlabeled" => issue_labeled(ctx)?,
        "issue_milestoned_or_demilestoned" => issue_milestoned(ctx)?,
        "issue_comment" => issue_comment(ctx)?,
        "release" => release(ctx)?,
        "check_run" => check_run(p)?,
        _ => other_content(event, ctx)?,
    })
}

fn other_content(event: &str, ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    let repository = p.get("repository");
    Ok(match event {
        "create" | "delete" => {
            let verb = if event == "create" { "created" } else { "deleted" };
            format!("{} {verb} {} {}.", ctx.sender, p.get("ref_type").str()?, p.get("ref").str()?)
        }
        "star" => {
            let verb = if p.get("action").str()? == "created" { "starred" } else { "unstarred" };
            let (full_name, url) = (repository.get("full_name").str()?, repository.get("html_url").str()?);
            format!("[{}]({}) {verb} the repository [{full_name}]({url}).", ctx.sender, p.get("sender").get("html_url").str()?)
        }
        "watch" => {
            let (full_name, url) = (repository.get("full_name").str()?, repository.get("html_url").str()?);
            format!("{} starred the repository [{full_name}]({url}).", ctx.sender)
        }
        "fork" => {
            let forkee = p.get("forkee");
            format!("{} forked [{}]({}).", ctx.sender, forkee.get("name").str()?, forkee.get("html_url").str()?)
        }
        "commit_comment" => {
            let comment = p.get("comment");
            let comment_url = comment.get("html_url").str()?;
            let commit_url = comment_url.split('#').next().unwrap_or(comment_url);
            let sha = git::short_sha(comment.get("commit_id").str()?);
            format!("{} [commented]({comment_url}) on [{sha}]({commit_url}):{}", ctx.sender, git::quote(comment.get("body").str()?))
        }
        _ => status(p)?,
    })
}

fn status(p: &Field) -> ApiResult<String> {
    let state = p.get("state").str()?;
    let status = match p.get("target_url").opt_str()?.filter(|u| !u.is_empty()) {
        Some(url) => format!("[{state}]({url})"),
        None => state.to_string(),
    };
    let sha = p.get("sha").str()?;
    Ok(format!("[{}]({}) changed its status to {status}.", git::short_sha(sha), p.get("commit").get("html_url").str()?))
}

fn push_commits(ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    let mut commits = Vec::new();
    for commit in p.get("commits").items()? {
        let author = commit.get("author");
        let name = match author.get("username").opt_str()?.filter(|u| !u.is_empty()) {
            Some(username) => username,
            None => author.get("name").str()?,
        };
        commits.push(Commit {
            name: name.to_string(),
            sha: commit.get("id").str()?.to_string(),
            url: commit.get("url").str()?.to_string(),
            message: commit.get("message").str()?.to_string(),
        });
    }
    let branch = p.get("ref").str()?.trim_start_matches("refs/heads/");
    Ok(git::push_message(&Push {
        user: ctx.sender,
        compare_url: p.get("compare").str()?,
        branch,
        commits: &commits,
        deleted: p.get("deleted").bool()?,
        forced: p.get("forced").bool()?,
    }))
}

fn title<'a>(ctx: &Event<'a>, item: &Field<'a>) -> ApiResult<Option<&'a str>> {
    if ctx.include_title {
        Ok(Some(item.get("title").str()?))
    } else {
        Ok(None)
    }
}

fn opened_or_updated_pull_request(ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    let pr = p.get("pull_request");
    let action = match p.get("action").str()? {
        "synchronize" => "updated",
        a => a,
    };
    let assignee = if pr.get("assignee").truthy() { Some(pr.get("assignee").get("login").str()?) } else { None };
    let message = if p.get("changes").has("body") || action == "opened" { pr.get("body").opt_str()? } else { None };
    let branches = if action == "opened" || action == "merged" {
        Some((pr.get("head").get("label").str()?, pr.get("base").get("label").str()?))
    } else {
        None
    };
    Ok(git::item_event_message(&ItemEvent {
        user: ctx.sender,
        action,
        url: pr.get("html_url").str()?,
        kind: "PR",
        number: Some(pr.get("number").int()?),
        title: title(ctx, &pr)?,
        branches,
        assignee,
        message,
        ..Default::default()
    }))
}

fn pull_request_event(ctx: &Event, action: &str, assignee_updated: Option<&str>) -> ApiResult<String> {
    let pr = ctx.payload.get("pull_request");
    Ok(git::item_event_message(&ItemEvent {
        user: ctx.sender,
        action,
        url: pr.get("html_url").str()?,
        kind: "PR",
        number: Some(pr.get("number").int()?),
        title: title(ctx, &pr)?,
        assignee_updated,
        ..Default::default()
    }))
}

fn review_requested(ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    let pr = p.get("pull_request");
    let reviewers = if p.has("requested_reviewer") {
        let reviewer = p.get("requested_reviewer");
        format!("[{}]({})", reviewer.get("login").str()?, reviewer.get("html_url").str()?)
    } else {
        let team = p.get("requested_team");
        format!("[{}]({})", team.get("name").str()?, team.get("html_url").str()?)
    };
    let number = pr.get("number").int()?;
    let label = match title(ctx, &pr)? {
        Some(title) => format!("PR #{number} {title}"),
        None => format!("PR #{number}"),
    };
    Ok(format!("**{}** requested {reviewers} for a review on [{label}]({}).", ctx.sender, pr.get("html_url").str()?))
}

fn pull_request_review(ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    let pr = p.get("pull_request");
    let title = format!("for #{} {}", pr.get("number").int()?, pr.get("title").str()?);
    Ok(git::item_event_message(&ItemEvent {
        user: ctx.sender,
        action: "submitted",
        url: p.get("review").get("html_url").str()?,
        kind: "PR review",
        title: ctx.include_title.then_some(title.as_str()),
        message: p.get("review").get("body").opt_str()?,
        ..Default::default()
    }))
}

fn pull_request_review_comment(ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    let pr = p.get("pull_request");
    let action = p.get("action").str()?;
    let message = if action == "created" { Some(p.get("comment").get("body").str()?) } else { None };
    let title = format!("on #{} {}", pr.get("number").int()?, pr.get("title").str()?);
    Ok(git::item_event_message(&ItemEvent {
        user: ctx.sender,
        action,
        url: p.get("comment").get("html_url").str()?,
        kind: "PR review comment",
        title: ctx.include_title.then_some(title.as_str()),
        message,
        ..Default::default()
    }))
}

fn issue(ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    let issue = p.get("issue");
    let action = p.get("action").str()?;
    let assignment = action == "assigned" || action == "unassigned";
    let message = if assignment { None } else { issue.get("body").opt_str()? };
    let assignee_updated = if p.has("assignee") { Some(p.get("assignee").get("login").str()?) } else { None };
    Ok(git::item_event_message(&ItemEvent {
        user: ctx.sender,
        action,
        url: issue.get("html_url").str()?,
        kind: "issue",
        number: Some(issue.get("number").int()?),
        title: title(ctx, &issue)?,
        assignee_updated,
        message,
        ..Default::default()
    }))
}

/// "[user](url) added the bug label to [Issue #9](…)."
fn issue_labeled(ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    let added = p.get("action").str()? == "labeled";
    let (verb, preposition) = if added { ("added", "to") } else { ("removed", "from") };
    let label = p.get("label").get("name").str()?;
    let item = issue_label(ctx, "Issue")?;
    Ok(format!("[{}]({}) {verb} the {label} label {preposition} {item}.", ctx.sender, p.get("sender").get("html_url").str()?))
}

fn issue_milestoned(ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    let added = p.get("action").str()? == "milestoned";
    let (verb, preposition) = if added { ("added", "to") } else { ("removed", "from") };
    let milestone = p.get("milestone");
    let (name, url) = (milestone.get("title").str()?, milestone.get("html_url").str()?);
    let item = issue_label(ctx, "issue")?;
    let user_url = p.get("sender").get("html_url").str()?;
    Ok(format!("[{}]({user_url}) {verb} milestone [{name}]({url}) {preposition} {item}.", ctx.sender))
}

/// "[Issue #9](url)", with the title when the URL names the topic.
fn issue_label(ctx: &Event, kind: &str) -> ApiResult<String> {
    let issue = ctx.payload.get("issue");
    let number = issue.get("number").int()?;
    let label = match title(ctx, &issue)? {
        Some(title) => format!("{kind} #{number} {title}"),
        None => format!("{kind} #{number}"),
    };
    Ok(format!("[{label}]({})", issue.get("html_url").str()?))
}

fn issue_comment(ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    let issue = p.get("issue");
    let comment_url = p.get("comment").get("html_url").str()?;
    let action = match p.get("action").str()? {
        "created" => format!("[commented]({comment_url}) on"),
        other => format!("{other} a [comment]({comment_url}) on"),
    };
    let kind = if is_pull_request_comment(p) { "PR" } else { "issue" };
    Ok(git::item_event_message(&ItemEvent {
        user: ctx.sender,
        action: &action,
        url: issue.get("html_url").str()?,
        kind,
        number: Some(issue.get("number").int()?),
        title: title(ctx, &issue)?,
        message: Some(p.get("comment").get("body").str()?),
        ..Default::default()
    }))
}

fn release(ctx: &Event) -> ApiResult<String> {
    let p = &ctx.payload;
    let release = p.get("release");
    let tag = release.get("tag_name").str()?;
    let name = if release.get("name").truthy() { release.get("name").str()? } else { tag };
    Ok(git::release_message(ctx.sender, p.get("action").str()?, tag, name, release.get("html_url").str()?))
}

fn check_run(p: &Field) -> ApiResult<String> {
    let run = p.get("check_run");
    let sha = run.get("head_sha").str()?;
    let commit_url = format!("{}/commit/{sha}", p.get("repository").get("html_url").str()?);
    Ok(format!(
        "Check [{}]({}) {} ({}). ([{}]({commit_url}))",
        run.get("name").str()?,
        run.get("html_url").str()?,
        run.get("status").str()?,
        run.get("conclusion").str()?,
        git::short_sha(sha)
    ))
}
