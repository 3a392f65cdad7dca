//! The platform-floor statements of `make bench` (development only): one known D1 cost each,
//! shaped like the project's own reads and writes.

use crate::db::statement::{statement, Statement};
use worker::Result;

/// A write that leaves the organization's first account as it was. Not the organization's
/// row: a write there bumps its settings version (migration 0017), and the next request
/// would read the settings again.
pub fn touch_stmt(realm_string_id: &str) -> Result<Statement> {
    statement!(
        "UPDATE users SET full_name = full_name \
         WHERE id = (SELECT MIN(id) FROM users WHERE realm_id = (SELECT id FROM realms WHERE string_id = ?1))",
        realm_string_id
    )
}
