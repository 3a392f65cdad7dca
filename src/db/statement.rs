//! A statement kept as its SQL and arguments until its batch runs. Kept that way, a batch
//! knows when it repeats an earlier one exactly ([`crate::platform::remembered_reads`]), and a later
//! write can run the same reads again inside its own batch ([`super::read_guards`]).

use js_sys::Array;
use serde_json::Value;
use wasm_bindgen::JsValue;
use worker::worker_sys::{D1Database, D1PreparedStatement};
use worker::Result;

#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    sql: String,
    args: Vec<Value>,
}

/// A [`Statement`] (as a `worker::Result`, an argument may fail to serialize): its SQL
/// with numbered placeholders `?1`, `?2`… and the arguments in order.
macro_rules! statement {
    ($sql:expr $(, $arg:expr)* $(,)?) => {
        (|| -> worker::Result<$crate::db::statement::Statement> {
            Ok($crate::db::statement::Statement::new($sql, vec![$(serde_json::to_value(&$arg)?),*]))
        })()
    };
}
pub(crate) use statement;

impl Statement {
    pub fn new(sql: impl Into<String>, args: Vec<Value>) -> Self {
        Statement { sql: sql.into(), args }
    }

    pub fn sql(&self) -> &str {
        &self.sql
    }

    pub fn args(&self) -> &[Value] {
        &self.args
    }

    /// The statement for D1, missing values bound as NULL (D1 refuses `undefined`).
    pub(super) fn prepare(&self, db: &D1Database) -> Result<D1PreparedStatement> {
        let statement = db.prepare(&self.sql)?;
        if self.args.is_empty() {
            return Ok(statement);
        }
        Ok(statement.bind(self.args.iter().map(binding).collect::<Array>())?)
    }

    /// Its SQL and arguments as one string: equal exactly when the statements are.
    pub fn key(&self) -> String {
        format!("{}\u{0}{}", self.sql, serde_json::to_string(&self.args).unwrap_or_default())
    }
}

fn binding(value: &Value) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or_default()),
        Value::String(s) => JsValue::from_str(s),
        other => JsValue::from_str(&other.to_string()),
    }
}
