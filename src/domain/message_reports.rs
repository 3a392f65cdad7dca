//! A report of a message to the organization's moderators (Zulip's `send_message_report`):
//! who reported what, why, and the message under a spoiler, in the moderation request
//! channel's topic about its sender.

use crate::domain::markdown_syntax::{silent_mention, unused_fence};
use crate::domain::topics::truncate;
use crate::error::{ApiError, ApiResult};

/// Zulip's `Realm.REPORT_MESSAGE_REASONS` keys.
pub const REPORT_TYPES: [&str; 5] = ["spam", "harassment", "inappropriate", "norms", "other"];
/// Zulip's `MAX_REPORT_MESSAGE_EXPLANATION_LENGTH`.
pub const MAX_DESCRIPTION_LENGTH: usize = 1000;
/// Zulip's `MAX_REPORT_MESSAGE_SNIPPET_LENGTH`: room left for the notes and the wording.
const MAX_SNIPPET_LENGTH: usize = 10_000 - MAX_DESCRIPTION_LENGTH - 500;

/// A person as the report names them: `(id, full name)`.
pub type Person<'a> = (i64, &'a str);

/// Where the reported message was sent.
pub enum Reported<'a> {
    Channel {
        name: &'a str,
        topic: &'a str,
    },
    /// A direct message: everyone in the conversation, by id.
    Direct(Vec<Person<'a>>),
}

/// The request's `report_type` and `description`, checked as Zulip checks them.
pub fn check_report(report_type: &str, description: &str) -> ApiResult<()> {
    if !REPORT_TYPES.contains(&report_type) {
        return Err(ApiError::bad_request("Invalid report_type"));
    }
    if description.chars().count() > MAX_DESCRIPTION_LENGTH {
        return Err(ApiError::too_long("description", MAX_DESCRIPTION_LENGTH as i64));
    }
    if report_type == "other" && description.is_empty() {
        return Err(ApiError::bad_request("An explanation is required."));
    }
    Ok(())
}

fn mention((id, name): Person<'_>) -> String {
    silent_mention(id, name)
}

/// The topic of the moderation request channel where reports of `sender_full_name`'s
/// messages go.
pub fn report_topic(sender_full_name: &str) -> String {
    format!("{sender_full_name}'s moderation requests")
}

/// The report's Markdown, as Zulip stores it (its trailing newline trimmed).
pub fn report_content(
    reporter: Person<'_>,
    sender: Person<'_>,
    message_id: i64,
    reported: &Reported<'_>,
    content: &str,
    report_type: &str,
    description: &str,
) -> String {
    let (reporting, reported_user) = (mention(reporter), mention(sender));
    let header = match reported {
        Reported::Channel { name, topic } => format!("{reporting} reported #**{name}>{topic}@{message_id}** sent by {reported_user}."),
        Reported::Direct(people) if people.len() > 2 => {
            let (last, others) = people.split_last().expect("more than two people");
            let others: Vec<String> = others.iter().copied().map(mention).collect();
            format!("{reporting} reported a DM sent by {reported_user} to {}, and {}.", others.join(", "), mention(*last))
        }
        Reported::Direct(_) => format!("{reporting} reported a DM sent by {reported_user}."),
    };
    let snippet = truncate(content, MAX_SNIPPET_LENGTH, "\n[message truncated]");
    let fence = unused_fence(&snippet);
    format!(
        "{header}\n- Reason: **{report_type}**\n- Notes:\n```quote\n{description}\n```\n{fence} spoiler **Message sent by {reported_user}**\n{snippet}\n{fence}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_channel_message_report_links_it_and_hides_it_under_a_spoiler() {
        let reported = Reported::Channel { name: "Verona", topic: "castle" };
        let content = report_content((3, "Iago"), (7, "Othello"), 9, &reported, "rude words", "harassment", "mean");
        assert_eq!(
            content,
            "@_**Iago|3** reported #**Verona>castle@9** sent by @_**Othello|7**.\n- Reason: **harassment**\n- Notes:\n\
             ```quote\nmean\n```\n``` spoiler **Message sent by @_**Othello|7****\nrude words\n```"
        );
    }

    #[test]
    fn a_group_direct_message_report_names_the_conversation() {
        let reported = Reported::Direct(vec![(3, "Iago"), (5, "Cordelia"), (7, "Othello")]);
        let content = report_content((3, "Iago"), (7, "Othello"), 9, &reported, "x", "spam", "");
        assert!(content
            .starts_with("@_**Iago|3** reported a DM sent by @_**Othello|7** to @_**Iago|3**, @_**Cordelia|5**, and @_**Othello|7**.\n"));
    }

    #[test]
    fn other_needs_an_explanation_and_unknown_types_are_refused() {
        assert_eq!(check_report("other", "").unwrap_err().msg, "An explanation is required.");
        assert_eq!(check_report("rudeness", "x").unwrap_err().msg, "Invalid report_type");
        assert!(check_report("spam", "").is_ok());
        assert!(check_report("spam", &"d".repeat(MAX_DESCRIPTION_LENGTH + 1)).is_err());
    }
}
