//! Message templates the git hosting integrations share (Zulip's `lib/webhooks/git.py`
//! wording): pushes, pull requests and issues, releases.

/// Commits listed in a push message; the rest are counted.
const COMMITS_LIMIT: usize = 20;
/// Committers named in a push message; the rest are "others".
const COMMITTERS_LIMIT: usize = 3;

/// A quoted block of text under a message.
pub fn quote(text: &str) -> String {
    format!("\n~~~ quote\n{text}\n~~~")
}

/// A commit's short hash, as Zulip shows it.
pub fn short_sha(sha: &str) -> &str {
    &sha[..sha.len().min(11)]
}

/// Zulip's "… webhook has been successfully configured by …." message.
pub fn setup_message(integration: &str, user_name: Option<&str>) -> String {
    match user_name {
        Some(user) => format!("{integration} webhook has been successfully configured by {user}."),
        None => format!("{integration} webhook has been successfully configured."),
    }
}

/// One pushed commit.
pub struct Commit {
    pub name: String,
    pub sha: String,
    pub url: String,
    pub message: String,
}

/// A push to a branch.
pub struct Push<'a> {
    pub user: &'a str,
    pub compare_url: &'a str,
    pub branch: &'a str,
    pub commits: &'a [Commit],
    pub deleted: bool,
    pub forced: bool,
}

pub fn push_message(push: &Push) -> String {
    let Push { user, compare_url, branch, commits, deleted, forced } = push;
    let pushed = if *forced { "force pushed" } else { "pushed" };
    if commits.is_empty() {
        let verb = if *deleted { "deleted" } else { pushed };
        return format!("{user} [{verb}]({compare_url}) the branch {branch}.");
    }
    let plural = if commits.len() > 1 { "s" } else { "" };
    let mut text = format!("{user} [{pushed}]({compare_url}) {} commit{plural} to branch {branch}.", commits.len());
    let committers = committers(commits);
    if !(committers.len() == 1 && committers[0].0 == *user) {
        text.push_str(&format!(" Commits by {}.", join_counts(&committers)));
    }
    let mut list = String::new();
    for commit in commits.iter().take(COMMITS_LIMIT) {
        let subject = commit.message.split('\n').next().unwrap_or("");
        list.push_str(&format!("* {subject} ([{}]({}))\n", short_sha(&commit.sha), commit.url));
    }
    if commits.len() > COMMITS_LIMIT {
        list.push_str(&format!("[and {} more commit(s)]", commits.len() - COMMITS_LIMIT));
    }
    format!("{text}\n\n{}", list.trim_end())
}

/// Committers by commit count (ties alphabetically), the fourth and later as "others".
fn committers(commits: &[Commit]) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for commit in commits {
        match counts.iter_mut().find(|(name, _)| *name == commit.name) {
            Some((_, n)) => *n += 1,
            None => counts.push((commit.name.clone(), 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    if counts.len() > COMMITTERS_LIMIT {
        let others = counts[COMMITTERS_LIMIT..].iter().map(|(_, n)| n).sum();
        counts.truncate(COMMITTERS_LIMIT);
        counts.push(("others".into(), others));
    }
    counts
}

/// "A (3), B (2) and C (1)".
fn join_counts(counts: &[(String, usize)]) -> String {
    let items: Vec<String> = counts.iter().map(|(name, n)| format!("{name} ({n})")).collect();
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => items.join(""),
    }
}

/// "pushed tag v1." (no period after a tag that ends with punctuation).
pub fn push_tag_message(user: &str, tag: &str, action: &str) -> String {
    let end = if tag.ends_with(|c: char| c.is_ascii_punctuation()) { "" } else { "." };
    format!("{user} {action} tag {tag}{end}")
}

pub fn release_message(user: &str, action: &str, tag: &str, release_name: &str, url: &str) -> String {
    format!("{user} {action} release [{release_name}]({url}) for tag {tag}.")
}

/// A pull request, issue or review event, in Zulip's one template for them.
#[derive(Default)]
pub struct ItemEvent<'a> {
    pub user: &'a str,
    pub action: &'a str,
    pub url: &'a str,
    /// "PR", "issue", "PR review", …
    pub kind: &'a str,
    pub number: Option<i64>,
    /// Shown when the topic given in the URL does not name the item.
    pub title: Option<&'a str>,
    /// `(head, base)` of a pull request.
    pub branches: Option<(&'a str, &'a str)>,
    pub assignee: Option<&'a str>,
    /// The user an assignment event added or removed.
    pub assignee_updated: Option<&'a str>,
    pub message: Option<&'a str>,
}

pub fn item_event_message(event: &ItemEvent) -> String {
    let id = event.number.map(|n| format!(" #{n}")).unwrap_or_default();
    let label = match event.title {
        Some(title) => format!("{}{id} {title}", event.kind),
        None => format!("{}{id}", event.kind),
    };
    let mut text = match event.assignee_updated {
        Some(who) => {
            let preposition = if event.action == "unassigned" { "from" } else { "to" };
            format!("{} {} {who} {preposition} [{label}]({})", event.user, event.action, event.url)
        }
        None => format!("{} {} [{label}]({})", event.user, event.action, event.url),
    };
    if let Some((head, base)) = event.branches {
        text.push_str(&format!(" from `{head}` to `{base}`"));
    }
    if let Some(assignee) = event.assignee {
        text.push_str(&format!(" (assigned to {assignee})"));
    }
    let message = event.message.filter(|m| !m.is_empty());
    let punctuation = if message.is_some() { ":" } else { "." };
    let ends_with_title = event.branches.is_none() && event.assignee.is_none();
    let title_punctuated = event.title.is_some_and(|t| t.ends_with(|c: char| c.is_ascii_punctuation()));
    if !(ends_with_title && title_punctuated) {
        text.push_str(punctuation);
    }
    if let Some(message) = message {
        text.push('\n');
        text.push_str(&quote(message));
    }
    text.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(name: &str) -> Commit {
        Commit { name: name.into(), sha: "0d1a26e67d8f5eaf".into(), url: "u".into(), message: "Fix\n\nbody".into() }
    }

    #[test]
    fn pushes_by_others_name_their_committers() {
        let commits: Vec<Commit> = ["T", "T", "B", "J", "K"].iter().map(|n| commit(n)).collect();
        let push = Push { user: "me", compare_url: "c", branch: "main", commits: &commits, deleted: false, forced: false };
        let text = push_message(&push);
        assert!(
            text.starts_with(
                "me [pushed](c) 5 commits to branch main. Commits by T (2), B (1), J (1) and others (1).\n\n* Fix ([0d1a26e67d8](u))"
            ),
            "{text}"
        );
    }

    #[test]
    fn item_events_end_with_a_colon_before_a_quote() {
        let event =
            ItemEvent { user: "u", action: "opened", url: "x", kind: "issue", number: Some(2), message: Some("hi"), ..Default::default() };
        assert_eq!(item_event_message(&event), "u opened [issue #2](x):\n\n~~~ quote\nhi\n~~~");
        let titled =
            ItemEvent { user: "u", action: "closed", url: "x", kind: "PR", number: Some(1), title: Some("Done!"), ..Default::default() };
        assert_eq!(item_event_message(&titled), "u closed [PR #1 Done!](x)");
    }
}
