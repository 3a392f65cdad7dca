//! A D1 batch read by name instead of by position.
//!
//! `db.batch` answers one result per statement, in order. Reading them as `results[11]`
//! breaks silently when a statement is added in the middle; a [`Slot`] remembers its own
//! position and the row type, so adding a statement never shifts another one's reader.
//!
//! ```text
//! let mut batch = Batch::new();
//! let users = batch.add::<UserRow>(users::in_realm_stmt(realm_id)?);
//! let settings = batch.add::<RealmSettingsRow>(realm_settings::by_realm_id_stmt(realm_id)?);
//! let results = batch.run(db).await?;
//! let users = results.rows(users)?;
//! let settings = results.first(settings)?;
//! ```

use std::marker::PhantomData;
use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde_json::Value;
use worker::{D1Database, Result};

use crate::db::statement::Statement;

/// Statements to run in one round trip (one atomic `db.batch`).
#[derive(Default)]
pub struct Batch {
    statements: Vec<Statement>,
}

/// Where one statement's rows will be, and what they deserialize into.
pub struct Slot<T> {
    index: usize,
    rows: PhantomData<fn() -> T>,
}

impl<T> Clone for Slot<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Slot<T> {}

/// The rows of every statement of a [`Batch`], answered by D1 or remembered by an isolate
/// for the same statements.
pub struct BatchResults {
    results: Vec<Rc<Vec<Value>>>,
}

impl Batch {
    pub fn new() -> Self {
        Batch::default()
    }

    /// Adds a statement whose rows are read as `T`.
    pub fn add<T: DeserializeOwned>(&mut self, statement: Statement) -> Slot<T> {
        self.statements.push(statement);
        Slot { index: self.statements.len() - 1, rows: PhantomData }
    }

    /// Every statement, in order.
    pub fn statements(&self) -> &[Statement] {
        &self.statements
    }

    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    /// Runs every statement in one round trip.
    pub async fn run(self, db: &D1Database) -> Result<BatchResults> {
        let results = super::run_batch(db, self.statements).await?;
        let results = results.iter().map(|answer| Ok(Rc::new(answer.json_rows()?))).collect::<Result<_>>()?;
        Ok(BatchResults { results })
    }
}

impl BatchResults {
    /// Every row of the statement behind `slot`.
    pub fn rows<T: DeserializeOwned>(&self, slot: Slot<T>) -> Result<Vec<T>> {
        match self.results.get(slot.index) {
            Some(rows) => super::rows_as(rows),
            None => Err(worker::Error::RustError(format!("batch has no result {}", slot.index))),
        }
    }

    /// Answers remembered for a batch of as many statements.
    pub fn remembered(rows: &[Rc<Vec<Value>>]) -> Self {
        BatchResults { results: rows.to_vec() }
    }

    /// Every statement's rows as JSON objects (column name to value), to remember.
    pub fn to_rows(&self) -> Vec<Rc<Vec<Value>>> {
        self.results.clone()
    }

    /// Every row of a statement added only when needed (none when it was not added).
    pub fn rows_if_added<T: DeserializeOwned>(&self, slot: Option<Slot<T>>) -> Result<Vec<T>> {
        Ok(slot.map(|slot| self.rows(slot)).transpose()?.unwrap_or_default())
    }

    /// The first row of the statement behind `slot`, if any.
    pub fn first<T: DeserializeOwned>(&self, slot: Slot<T>) -> Result<Option<T>> {
        Ok(self.rows(slot)?.into_iter().next())
    }
}
