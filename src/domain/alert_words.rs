//! Alert words: which words a user may save, and which users a message alerts. Zulip finds
//! them in the message's Markdown source, lower-cased, where the word stands alone: at the
//! start or after one of a few punctuation marks, and at the end or before another few.

use std::collections::HashSet;

use worker::D1Database;

use crate::db::alert_words::{self as db, WordRow};
use crate::error::{ApiError, ApiResult};

/// Zulip's limit on one alert word.
pub const MAX_ALERT_WORD_LENGTH: usize = 100;

const ALLOWED_BEFORE: &[char] = &[' ', '\n', '(', '"', '.', ',', '\'', ';', '[', '*', '`', '>'];
const ALLOWED_AFTER: &[char] = &[' ', '\n', ')', '"', '?', ':', '.', ',', '\'', ';', ']', '!', '*', '`'];

/// The words as saved: trimmed, empty ones dropped; a word longer than 100 characters is an
/// error naming its position.
pub fn clean_alert_words(words: &[String]) -> ApiResult<Vec<String>> {
    for (i, word) in words.iter().enumerate() {
        if word.chars().count() > MAX_ALERT_WORD_LENGTH {
            return Err(ApiError::bad_request(format!("alert_words[{i}] is too long (limit: {MAX_ALERT_WORD_LENGTH} characters)")));
        }
    }
    Ok(words.iter().map(|w| w.trim().to_string()).filter(|w| !w.is_empty()).collect())
}

/// Whether `content` holds `word` (case-insensitive) as a word of its own.
pub fn contains_alert_word(content: &str, word: &str) -> bool {
    let content = content.to_lowercase();
    let word = word.to_lowercase();
    if word.is_empty() {
        return false;
    }
    let mut from = 0;
    while let Some(found) = content[from..].find(&word) {
        let start = from + found;
        let end = start + word.len();
        let before_ok = content[..start].chars().next_back().is_none_or(|c| ALLOWED_BEFORE.contains(&c));
        let after_ok = content[end..].chars().next().is_none_or(|c| ALLOWED_AFTER.contains(&c));
        if before_ok && after_ok {
            return true;
        }
        from = start + content[start..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// The users (among `words`, user id and word) whom `content` alerts.
pub fn alerted_users(content: &str, words: &[(i64, String)]) -> HashSet<i64> {
    words.iter().filter(|(_, word)| contains_alert_word(content, word)).map(|(user_id, _)| *user_id).collect()
}

/// The user's alert words in the order they were added. One round trip.
pub async fn alert_words_of(db: &D1Database, user_id: i64) -> ApiResult<Vec<String>> {
    let words: Vec<WordRow> = crate::db::all(db, db::for_user_stmt(user_id)?).await?;
    Ok(words.into_iter().map(|w| w.word).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_match_case_insensitively_at_boundaries() {
        assert!(contains_alert_word("Deploy the ALPHA build", "alpha"));
        assert!(contains_alert_word("alpha", "Alpha"));
        assert!(contains_alert_word("(alpha)", "alpha"));
        assert!(contains_alert_word("is it alpha?", "alpha"));
        assert!(contains_alert_word("**alpha**", "alpha"));
        assert!(!contains_alert_word("alphabet", "alpha"));
        assert!(!contains_alert_word("betalpha", "alpha"));
        assert!(!contains_alert_word("alpha-beta", "alpha"));
        assert!(contains_alert_word("xalpha and alpha", "alpha"));
    }

    #[test]
    fn phrases_match_too() {
        assert!(contains_alert_word("the Big Deal, today", "big deal"));
    }

    #[test]
    fn words_are_trimmed_and_limited() {
        assert_eq!(clean_alert_words(&[" a ".into(), "".into(), "  ".into()]).unwrap(), vec!["a"]);
        let long = "x".repeat(101);
        let err = clean_alert_words(&["ok".into(), long]).unwrap_err();
        assert_eq!(err.msg, "alert_words[1] is too long (limit: 100 characters)");
    }

    #[test]
    fn alerted_users_lists_each_user_once() {
        let words = vec![(1, "alpha".to_string()), (1, "beta".to_string()), (2, "gamma".to_string())];
        assert_eq!(alerted_users("alpha beta", &words), HashSet::from([1]));
    }
}
