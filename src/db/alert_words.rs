//! `alert_words`: each user's words that flag messages `has_alert_word`.

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct WordRow {
    pub word: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct UserWordRow {
    pub user_id: i64,
    pub word: String,
}

/// The user's words in the order they were added.
pub fn for_user_stmt(user_id: i64) -> Result<Statement> {
    statement!("SELECT word FROM alert_words WHERE user_id = ?1 ORDER BY id", user_id)
}

/// Every word of the organization with its user, to flag a new message.
pub fn in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!("SELECT user_id, word FROM alert_words WHERE realm_id = ?1", realm_id)
}

/// Adds the words of a JSON array; a word the user has already (ignoring case) is skipped.
pub fn add_stmt(realm_id: RealmId, user_id: UserId, words_json: &str) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO alert_words (realm_id, user_id, word) SELECT ?1, ?2, value FROM json_each(?3) ORDER BY key",
        realm_id,
        user_id,
        words_json
    )
}

/// Removes the words of a JSON array, ignoring case.
pub fn remove_stmt(user_id: i64, words_json: &str) -> Result<Statement> {
    statement!(
        "DELETE FROM alert_words WHERE user_id = ?1 AND lower(word) IN (SELECT lower(value) FROM json_each(?2))",
        user_id,
        words_json
    )
}
