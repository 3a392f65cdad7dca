//! A statement kept as its SQL and arguments until its batch runs. Kept that way, a batch
//! knows when it repeats an earlier one exactly ([`crate::platform::remembered_reads`]), and a later
//! write can run the same reads again inside its own batch ([`super::read_guards`]).

use serde_json::Value;
use wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement, Result};

#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    sql: String,
    args: Vec<Value>,
}

/// A [`Statement`] (as a `worker::Result`), written like `worker::query!` without the
/// database: numbered placeholders `?1`, `?2`… for the arguments in order.
macro_rules! statement {
    ($sql:expr $(, $arg:expr)* $(,)?) => {
        worker::Result::Ok($crate::db::statement::Statement::new($sql, vec![$(serde_json::to_value(&$arg)?),*]))
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

    /// The statement for D1 (as `worker::query!` binds: missing values as NULL).
    pub fn prepare(&self, db: &D1Database) -> Result<D1PreparedStatement> {
        let bindings: Vec<JsValue> = self.args.iter().map(binding).collect();
        db.prepare(&self.sql).bind(&bindings)
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
