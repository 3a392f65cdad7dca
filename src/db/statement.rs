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

/// A [`Statement`] (as a `worker::Result`, as builders answer it): its SQL with numbered
/// placeholders `?1`, `?2`… and the arguments in order, each an [`Arg`].
macro_rules! statement {
    ($sql:expr $(, $arg:expr)* $(,)?) => {
        worker::Result::<$crate::db::statement::Statement>::Ok($crate::db::statement::Statement::new(
            $sql,
            vec![$($crate::db::statement::Arg::arg(&$arg)),*],
        ))
    };
}
pub(crate) use statement;

/// A value a statement binds, as D1 takes it: a number, text or NULL (a boolean binds as
/// D1 turns it into 1 or 0).
pub trait Arg {
    fn arg(&self) -> Value;
}

macro_rules! number_args {
    ($($t:ty),*) => {
        $(impl Arg for $t {
            fn arg(&self) -> Value {
                Value::from(*self)
            }
        })*
    };
}
number_args!(i64, i32, u32, u64, usize, f64, bool);

/// The shared codes bind as the database stores them.
macro_rules! code_args {
    ($($t:ty),*) => {
        $(impl Arg for $t {
            fn arg(&self) -> Value {
                Value::from(self.code())
            }
        })*
    };
}
code_args!(crate::model::roles::Role, crate::model::recipients::RecipientType, crate::model::topics::VisibilityPolicy);

/// The id newtypes bind as their bare integer.
macro_rules! id_args {
    ($($t:ty),*) => {
        $(impl Arg for $t {
            fn arg(&self) -> Value {
                Value::from(self.0)
            }
        })*
    };
}
id_args!(
    crate::model::ids::UserId,
    crate::model::ids::MessageId,
    crate::model::ids::ChannelId,
    crate::model::ids::RealmId,
    crate::model::ids::GroupId
);

impl Arg for crate::model::TopicsPolicy {
    fn arg(&self) -> Value {
        Value::from(self.as_str())
    }
}

impl Arg for crate::model::EditHistoryPolicy {
    fn arg(&self) -> Value {
        Value::from(self.as_str())
    }
}

impl Arg for str {
    fn arg(&self) -> Value {
        Value::from(self)
    }
}

impl Arg for String {
    fn arg(&self) -> Value {
        Value::from(self.as_str())
    }
}

impl Arg for Value {
    fn arg(&self) -> Value {
        self.clone()
    }
}

impl<T: Arg + ?Sized> Arg for &T {
    fn arg(&self) -> Value {
        (**self).arg()
    }
}

impl<T: Arg> Arg for Option<T> {
    fn arg(&self) -> Value {
        self.as_ref().map_or(Value::Null, Arg::arg)
    }
}

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
