//! A write's proof, inside its own batch, that reads made earlier still answer what they
//! answered: each read runs again as a subquery and is compared with its remembered rows.
//! When one differs, the update of the `read_guards` row fails its CHECK
//! (`reads_still_current`, migration 0019), and D1 writes nothing of the batch.
//!
//! Rows compare as sets with their count: the plans built from these reads depend on which
//! rows a read answered, not on their order.

use serde_json::Value;
use worker::Result;

use crate::db::statement::Statement;

/// The constraint whose failure says that a remembered read answers differently now.
const CONSTRAINT: &str = "reads_still_current";

/// A statement that fails its batch unless `read` answers exactly `rows` (JSON objects as
/// D1 returned them); `None` when the rows cannot be compared column by column (rows of
/// different columns).
pub fn still_answers_stmt(read: &Statement, rows: &[Value]) -> Result<Option<Statement>> {
    let Some(first) = rows.first() else {
        let sql = format!("UPDATE read_guards SET current = NOT EXISTS (SELECT 1 FROM ({})) WHERE id = 1", read.sql());
        return Ok(Some(Statement::new(sql, read.args().to_vec())));
    };
    let Some(columns) = first.as_object().map(|row| row.keys().cloned().collect::<Vec<String>>()) else { return Ok(None) };
    let mut remembered = Vec::with_capacity(rows.len());
    for row in rows {
        match row.as_object() {
            Some(row) if row.len() == columns.len() => {
                let values: Option<Vec<Value>> = columns.iter().map(|c| row.get(c).cloned()).collect();
                match values {
                    Some(values) => remembered.push(Value::Array(values)),
                    None => return Ok(None),
                }
            }
            _ => return Ok(None),
        }
    }
    let quoted: Vec<String> = columns.iter().map(|c| format!("\"{}\"", c.replace('"', "\"\""))).collect();
    let extracted: Vec<String> = (0..columns.len()).map(|i| format!("value ->> {i}")).collect();
    let rows_param = read.args().len() + 1;
    let sql = format!(
        "UPDATE read_guards SET current = coalesce(( \
         WITH answered AS (SELECT {} FROM ({})), remembered AS (SELECT {} FROM json_each(?{rows_param})) \
         SELECT (SELECT count(*) FROM answered) = (SELECT count(*) FROM remembered) \
         AND NOT EXISTS (SELECT * FROM answered EXCEPT SELECT * FROM remembered) \
         AND NOT EXISTS (SELECT * FROM remembered EXCEPT SELECT * FROM answered)), 0) WHERE id = 1",
        quoted.join(", "),
        read.sql(),
        extracted.join(", "),
    );
    let mut args = read.args().to_vec();
    args.push(Value::String(serde_json::to_string(&remembered)?));
    Ok(Some(Statement::new(sql, args)))
}

/// Whether a batch failed because a guard's read answers differently now (nothing of it
/// was written).
pub fn failed(err: &worker::Error) -> bool {
    err.to_string().contains(CONSTRAINT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read() -> Statement {
        Statement::new("SELECT id, name FROM users WHERE realm_id = ?1", vec![json!(2)])
    }

    #[test]
    fn an_empty_answer_is_proved_by_the_read_answering_nothing() {
        let guard = still_answers_stmt(&read(), &[]).unwrap().unwrap();
        assert!(guard.sql().contains("NOT EXISTS (SELECT 1 FROM (SELECT id, name FROM users WHERE realm_id = ?1))"));
        assert_eq!(guard.args(), &[json!(2)]);
    }

    #[test]
    fn remembered_rows_follow_the_reads_arguments_in_their_columns_order() {
        let rows = [json!({"id": 7, "name": "Ann \"A\""}), json!({"name": null, "id": 8})];
        let guard = still_answers_stmt(&read(), &rows).unwrap().unwrap();
        assert!(guard.sql().contains(r#"SELECT "id", "name" FROM (SELECT id, name FROM users WHERE realm_id = ?1)"#));
        assert!(guard.sql().contains("json_each(?2)"));
        assert_eq!(guard.args(), &[json!(2), json!(r#"[[7,"Ann \"A\""],[8,null]]"#)]);
    }

    #[test]
    fn rows_of_different_columns_cannot_be_proved() {
        let rows = [json!({"id": 7, "name": "Ann"}), json!({"id": 8})];
        assert!(still_answers_stmt(&read(), &rows).unwrap().is_none());
    }

    #[test]
    fn only_the_guards_constraint_says_a_read_changed() {
        assert!(failed(&worker::Error::RustError("D1_ERROR: CHECK constraint failed: reads_still_current: SQLITE_CONSTRAINT".into())));
        assert!(!failed(&worker::Error::RustError("D1_ERROR: UNIQUE constraint failed: users.id".into())));
    }
}
