//! A D1 batch read by name instead of by position.
//!
//! `db.batch` answers one result per statement, in order. Reading them as `results[11]`
//! breaks silently when a statement is added in the middle; a [`Slot`] remembers its own
//! position and the row type, so adding a statement never shifts another one's reader.
//!
//! ```text
//! let mut batch = Batch::new();
//! let users = batch.add::<UserRow>(users::in_realm_stmt(db, realm_id)?);
//! let settings = batch.add::<RealmSettingsRow>(realm_settings::by_realm_id_stmt(db, realm_id)?);
//! let results = batch.run(db).await?;
//! let users = results.rows(users)?;
//! let settings = results.first(settings)?;
//! ```

use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use worker::{D1Database, D1PreparedStatement, D1Result, Result};

/// Statements to run in one round trip (one atomic `db.batch`).
#[derive(Default)]
pub struct Batch {
    statements: Vec<D1PreparedStatement>,
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

/// The answers of a [`Batch`].
pub struct BatchResults {
    results: Vec<D1Result>,
}

impl Batch {
    pub fn new() -> Self {
        Batch::default()
    }

    /// Adds a statement whose rows are read as `T`.
    pub fn add<T: DeserializeOwned>(&mut self, statement: D1PreparedStatement) -> Slot<T> {
        self.statements.push(statement);
        Slot { index: self.statements.len() - 1, rows: PhantomData }
    }

    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    /// Runs every statement in one round trip.
    pub async fn run(self, db: &D1Database) -> Result<BatchResults> {
        Ok(BatchResults { results: super::run_batch(db, self.statements).await? })
    }
}

impl BatchResults {
    /// Every row of the statement behind `slot`.
    pub fn rows<T: DeserializeOwned>(&self, slot: Slot<T>) -> Result<Vec<T>> {
        match self.results.get(slot.index) {
            Some(result) => result.results(),
            None => Err(worker::Error::RustError(format!("batch has no result {}", slot.index))),
        }
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
