//! What a reminder says (Zulip's `get_reminder_formatted_content`): a link to the message
//! reminded of, the owner's note, and the message quoted under a silent mention of its
//! sender.

use crate::domain::markdown_syntax::{silent_mention, unused_fence};
use crate::domain::message_edit::near_message_url;
use crate::domain::topics::truncate;
use crate::error::{ApiError, ApiResult};

/// Zulip's `MAX_REMINDER_NOTE_LENGTH`.
pub const MAX_NOTE_LENGTH: usize = 1000;

/// The message a reminder is about, as its content needs it.
pub struct Target<'a> {
    pub id: i64,
    /// Channel messages: the channel's id and name, and the topic.
    pub channel: Option<(i64, &'a str, &'a str)>,
    /// Direct messages: everyone in the conversation.
    pub participants: &'a [i64],
    pub content: &'a str,
    pub sender_id: i64,
    pub sender_full_name: &'a str,
}

/// Zulip's `normalize_note_text`: trailing whitespace and leading blank lines go; too long
/// a note is refused.
pub fn normalize_note(note: &str) -> ApiResult<String> {
    let note = note.trim_end().trim_start_matches('\n');
    if note.chars().count() > MAX_NOTE_LENGTH {
        return Err(ApiError::bad_request(format!("Maximum reminder note length: {MAX_NOTE_LENGTH} characters")));
    }
    Ok(note.to_string())
}

/// The reminder's Markdown, at most `max_length` characters (the message quoted is
/// truncated to fit).
pub fn reminder_content(base_url: &str, target: &Target<'_>, note: Option<&str>, max_length: usize) -> String {
    let url = near_message_url(base_url, target.id, target.channel, target.participants);
    let mut content = match target.channel {
        Some((_, channel, topic)) => format!("You requested a reminder for {}.", message_link(&url, target.id, channel, topic)),
        None => "You requested a reminder for the following direct message.".to_string(),
    };
    if let Some(note) = note.filter(|n| !n.is_empty()) {
        content.pop();
        content.push_str(&format!(". Note:\n > {note}"));
    }
    content.push_str("\n\n");
    let mention = silent_mention(target.sender_id, target.sender_full_name);
    if target.content.starts_with("/poll") {
        content.push_str(&format!("{mention} [sent]({url}) a poll."));
    } else if target.content.starts_with("/todo") {
        content.push_str(&format!("{mention} [sent]({url}) a todo list."));
    } else {
        content.push_str(&format!("{mention} [said]({url}):\n"));
        let fence = unused_fence(target.content);
        let frame = content.chars().count() + 2 * fence.len() + "quote\n\n".len();
        let quoted = truncate(target.content, max_length.saturating_sub(frame).max(30), "\n[message truncated]");
        content.push_str(&format!("{fence}quote\n{quoted}\n{fence}"));
    }
    content
}

/// `#**channel>topic@id**`, or a Markdown link where the names would break that syntax.
fn message_link(url: &str, id: i64, channel: &str, topic: &str) -> String {
    let breaks = |s: &str| s.contains(['*', '`', '$']);
    if breaks(channel) || channel.contains('>') || breaks(topic) {
        let escape = |s: &str| s.replace('[', "\\[").replace(']', "\\]");
        return format!("[#{} > {} @ 💬]({url})", escape(channel), escape(topic));
    }
    format!("#**{channel}>{topic}@{id}**")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel_target(content: &str) -> Target<'_> {
        Target { id: 9, channel: Some((4, "Verona", "castle")), participants: &[], content, sender_id: 7, sender_full_name: "Othello" }
    }

    #[test]
    fn a_channel_message_is_linked_and_quoted() {
        let content = reminder_content("http://x", &channel_target("see you"), None, 10_000);
        assert_eq!(
            content,
            "You requested a reminder for #**Verona>castle@9**.\n\n\
             @_**Othello|7** [said](http://x/#narrow/channel/4-Verona/topic/castle/near/9):\n```quote\nsee you\n```"
        );
    }

    #[test]
    fn a_note_follows_the_link_quoted() {
        let content = reminder_content("http://x", &channel_target("see you"), Some("bring tea"), 10_000);
        assert!(content.starts_with("You requested a reminder for #**Verona>castle@9**. Note:\n > bring tea\n\n"), "{content}");
    }

    #[test]
    fn a_direct_message_links_its_conversation() {
        let target = Target { id: 9, channel: None, participants: &[8, 7], content: "hi", sender_id: 7, sender_full_name: "Othello" };
        let content = reminder_content("http://x", &target, None, 10_000);
        assert!(content.starts_with("You requested a reminder for the following direct message.\n\n"), "{content}");
        assert!(content.contains("[said](http://x/#narrow/dm/7,8-dm/near/9)"), "{content}");
    }

    #[test]
    fn the_quote_fence_outlasts_the_message_fences_and_long_messages_are_cut() {
        let content = reminder_content("http://x", &channel_target("````\ncode\n````"), None, 10_000);
        assert!(content.ends_with("`````quote\n````\ncode\n````\n`````"), "{content}");
        let long = "x".repeat(20_000);
        let content = reminder_content("http://x", &channel_target(&long), None, 10_000);
        assert!(content.chars().count() <= 10_000 && content.contains("[message truncated]"), "{}", content.len());
    }

    #[test]
    fn notes_are_trimmed_and_bounded() {
        assert_eq!(normalize_note("\n\nbring tea  \n").unwrap(), "bring tea");
        assert!(normalize_note(&"n".repeat(MAX_NOTE_LENGTH + 1)).is_err());
    }
}
