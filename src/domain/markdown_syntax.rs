//! Zulip Markdown the server writes into its own messages (reminders, reports, notices).

/// `@_**Full Name|id**`: names a user without notifying them.
pub fn silent_mention(id: i64, full_name: &str) -> String {
    format!("@_**{full_name}|{id}**")
}

/// A backtick fence longer than any fence that starts a line of `content` (Zulip's
/// `get_unused_fence`), so a quote of `content` cannot be closed by it.
pub fn unused_fence(content: &str) -> String {
    let longest = content.lines().map(|l| l.trim_start().chars().take_while(|c| *c == '`').count()).filter(|n| *n >= 3).max();
    "`".repeat(longest.map_or(3, |n| n + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_outlasts_the_fences_it_encloses() {
        assert_eq!(unused_fence("plain"), "```");
        assert_eq!(unused_fence("```\ncode\n```"), "````");
        assert_eq!(unused_fence("  `````math\nx\n`````"), "``````");
    }
}
