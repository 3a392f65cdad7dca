//! Zulip's mention syntax: `@**Full Name**`, `@**Full Name|id**`, `@**|id**`, silent
//! `@_**...**`, wildcards `@**all**` (and `everyone`, `channel`, `stream`), `@**topic**`,
//! group mentions `@*group*` / `@_*group*`; and channel links `#**channel**`,
//! `#**channel>topic**`, `#**channel>topic@message_id**`.
//!
//! The same recognisers serve [`scan_references`] (over raw content) and the writer (over
//! the `**`/`*` spans the Markdown parser found), so both agree on what is a mention.

use super::{html, links, MentionableGroup, MentionableUser, References, Rendered, Resolved};

const STREAM_WILDCARDS: [&str; 4] = ["all", "everyone", "stream", "channel"];
const TOPIC_WILDCARD: &str = "topic";

/// Zulip's `BEFORE_MENTION_ALLOWED_REGEX`: a mention starts the text or follows whitespace
/// or one of these characters, so `me@**x**` is not a mention.
pub fn allowed_before_mention(previous: Option<char>) -> bool {
    match previous {
        None => true,
        Some(c) => c.is_whitespace() || matches!(c, '\'' | '"' | '(' | '{' | '[' | '/' | '<'),
    }
}

/// Channel links may not follow `[`, so `[#**channel**](url)` does not double-link.
pub fn allowed_before_channel_link(previous: Option<char>) -> bool {
    previous != Some('[') && allowed_before_mention(previous)
}

/// What the text between `@**` and `**` refers to.
#[derive(Debug, PartialEq, Eq)]
pub enum UserTarget<'a> {
    StreamWildcard,
    TopicWildcard,
    /// `Name|id` or `|id`: the id decides, and a given name must still match exactly.
    Id {
        name: Option<&'a str>,
        id: i64,
    },
    Name(&'a str),
}

pub fn user_target(body: &str) -> UserTarget<'_> {
    if STREAM_WILDCARDS.contains(&body) {
        return UserTarget::StreamWildcard;
    }
    if body == TOPIC_WILDCARD {
        return UserTarget::TopicWildcard;
    }
    if let Some((name, digits)) = body.rsplit_once('|') {
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(id) = digits.parse() {
                let name = (!name.is_empty()).then_some(name);
                return UserTarget::Id { name, id };
            }
        }
    }
    UserTarget::Name(body)
}

/// What the text between `#**` and `**` links to.
#[derive(Debug, PartialEq, Eq)]
pub enum ChannelTarget<'a> {
    Channel(&'a str),
    Topic { channel: &'a str, topic: &'a str },
    Message { channel: &'a str, topic: &'a str, message_id: &'a str },
}

pub fn channel_target(body: &str) -> ChannelTarget<'_> {
    match body.split_once('>') {
        Some((channel, topic)) if !channel.is_empty() => match topic.rsplit_once('@') {
            Some((topic, id)) if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) => {
                ChannelTarget::Message { channel, topic, message_id: id }
            }
            _ => ChannelTarget::Topic { channel, topic },
        },
        _ => ChannelTarget::Channel(body),
    }
}

/// Finds every mention and channel link in raw content (Zulip's `possible_mentions`,
/// `possible_user_group_mentions` and `possible_linked_stream_names`).
pub fn scan_references(content: &str) -> References {
    let mut refs = References::default();
    let mut previous: Option<char> = None;
    for (at, c) in content.char_indices() {
        let rest = &content[at + c.len_utf8()..];
        if c == '@' {
            // Wildcards are noted wherever they are written, so that a send reads what their
            // rules need even where rendering sees a wildcard this scan would not.
            note_wildcard(rest, &mut refs);
            if allowed_before_mention(previous) {
                scan_mention(rest, &mut refs);
            }
        } else if c == '#' && allowed_before_channel_link(previous) {
            if let Some(body) = delimited(rest, "**") {
                let name = match channel_target(body) {
                    ChannelTarget::Channel(name) => name,
                    ChannelTarget::Topic { channel, .. } | ChannelTarget::Message { channel, .. } => channel,
                };
                push_unique(&mut refs.channel_names, name.to_string());
            }
        }
        previous = Some(c);
    }
    refs
}

fn note_wildcard(after_at: &str, refs: &mut References) {
    let rest = after_at.strip_prefix('_').unwrap_or(after_at);
    match delimited(rest, "**").map(user_target) {
        Some(UserTarget::StreamWildcard) => refs.stream_wildcard = true,
        Some(UserTarget::TopicWildcard) => refs.topic_wildcard = true,
        _ => {}
    }
}

fn scan_mention(after_at: &str, refs: &mut References) {
    let rest = after_at.strip_prefix('_').unwrap_or(after_at);
    if let Some(body) = delimited(rest, "**") {
        match user_target(body) {
            UserTarget::Name(name) => push_unique(&mut refs.user_names, name.to_string()),
            UserTarget::Id { id, .. } => {
                if !refs.user_ids.contains(&id) {
                    refs.user_ids.push(id);
                }
            }
            UserTarget::StreamWildcard | UserTarget::TopicWildcard => {}
        }
    } else if let Some(body) = delimited(rest, "*") {
        push_unique(&mut refs.group_names, body.to_string());
    }
}

/// The non-empty, `*`-free text between `delimiter` pairs at the start of `text`.
fn delimited<'a>(text: &'a str, delimiter: &str) -> Option<&'a str> {
    let inner = text.strip_prefix(delimiter)?;
    let end = inner.find('*')?;
    (end > 0 && inner[end..].starts_with(delimiter)).then(|| &inner[..end])
}

fn push_unique(list: &mut Vec<String>, value: String) {
    if !list.contains(&value) {
        list.push(value);
    }
}

/// The HTML for `@**body**` (or `@_**body**` when `silent`), recording the mention; `None`
/// when it names no resolved user, so the writer leaves Zulip's plain `@**Name**` rendering.
pub fn user_mention_html(body: &str, silent: bool, resolved: &Resolved, rendered: &mut Rendered) -> Option<String> {
    let at = if silent { "" } else { "@" };
    let silent_class = if silent { " silent" } else { "" };
    match user_target(body) {
        UserTarget::StreamWildcard => {
            rendered.stream_wildcard |= !silent;
            Some(format!(
                "<span class=\"user-mention channel-wildcard-mention{silent_class}\" data-user-id=\"*\">{at}{}</span>",
                html::text(body)
            ))
        }
        UserTarget::TopicWildcard => {
            rendered.topic_wildcard |= !silent;
            Some(format!("<span class=\"topic-mention{silent_class}\">{at}{}</span>", html::text(body)))
        }
        target => {
            let user = find_user(&target, resolved)?;
            if !silent {
                rendered.mentioned_user_ids.insert(user.id);
            }
            Some(format!(
                "<span class=\"user-mention{silent_class}\" data-user-id=\"{}\">{at}{}</span>",
                user.id,
                html::text(&user.full_name)
            ))
        }
    }
}

/// Names match case-insensitively (as Zulip's lookup does); with `Name|id`, the id decides
/// and the name must equal the user's current full name exactly.
fn find_user<'r>(target: &UserTarget<'_>, resolved: &'r Resolved) -> Option<&'r MentionableUser> {
    match target {
        UserTarget::Name(name) => {
            let wanted = name.to_lowercase();
            resolved.users.iter().find(|u| u.full_name.to_lowercase() == wanted)
        }
        UserTarget::Id { name, id } => resolved.users.iter().find(|u| u.id == *id).filter(|u| name.is_none_or(|n| n == u.full_name)),
        UserTarget::StreamWildcard | UserTarget::TopicWildcard => None,
    }
}

/// The HTML for `@*group*` (or `@_*group*`), recording the mention; `None` if unresolved.
pub fn group_mention_html(name: &str, silent: bool, resolved: &Resolved, rendered: &mut Rendered) -> Option<String> {
    let wanted = name.to_lowercase();
    let group: &MentionableGroup = resolved.groups.iter().find(|g| g.name.to_lowercase() == wanted)?;
    if !silent {
        rendered.mentioned_group_ids.insert(group.id);
    }
    let (class, at) = if silent { ("user-group-mention silent", "") } else { ("user-group-mention", "@") };
    Some(format!("<span class=\"{class}\" data-user-group-id=\"{}\">{at}{}</span>", group.id, html::text(&group.name)))
}

/// The HTML for `#**body**`; `None` if the channel is not resolved (exact name match, as
/// Zulip looks channels up by name).
pub fn channel_link_html(body: &str, resolved: &Resolved) -> Option<String> {
    let find = |name: &str| resolved.channels.iter().find(|c| c.name == name);
    match channel_target(body) {
        ChannelTarget::Channel(name) => {
            let channel = find(name)?;
            Some(links::channel_link(channel.id, name))
        }
        // Zulip shows the empty topic by the organization's display name, which this
        // renderer does not know; leave such links as text.
        ChannelTarget::Topic { topic: "", .. } | ChannelTarget::Message { topic: "", .. } => None,
        ChannelTarget::Topic { channel, topic } => {
            let found = find(channel)?;
            Some(links::topic_link(found.id, channel, topic))
        }
        ChannelTarget::Message { channel, topic, message_id } => {
            let found = find(channel)?;
            Some(links::message_link(found.id, channel, topic, message_id))
        }
    }
}
