//! Read batches whose answers an isolate remembers, so that a write planned from the same
//! reads again can skip them. A remembered answer is never trusted, only checked: the
//! write's own batch runs each read again and fails, writing nothing, unless it answers
//! exactly what was remembered ([`crate::db::read_guards`]). A failed check costs that
//! write one round trip; the writer then reads and plans as usual.
//!
//! Only a batch whose every statement is described ([`Statement`]) is remembered, keyed by
//! a digest of those statements' SQL and arguments: the same key means the same reads
//! (and were two batches ever to share one, the guards, built from the batch at hand,
//! would fail the write).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use crate::db::batch::{Batch, BatchResults};
use crate::db::read_guards;
use crate::db::statement::Statement;
use crate::error::ApiResult;

/// Rows (and statements) the isolate keeps at most, and batches; past either, it starts
/// over. A few megabytes.
const CAPACITY_ROWS: usize = 20_000;
const CAPACITY_BATCHES: usize = 1_000;
/// A batch that answers more rows than this is not kept (a send to a very large channel
/// reads again).
const MAX_ROWS_PER_BATCH: usize = 2_000;

thread_local! {
    static REMEMBERED: RefCell<HashMap<String, Rows>> = RefCell::new(HashMap::new());
    static ROWS: Cell<usize> = const { Cell::new(0) };
}

/// What a batch is remembered under.
pub fn key(batch: &Batch) -> String {
    key_of(batch.statements())
}

fn key_of(statements: &[Statement]) -> String {
    let joined = statements.iter().map(|s| s.key()).collect::<Vec<_>>().join("\u{1}");
    crate::secrets::sha256_hex(joined.as_bytes())
}

/// Every statement's rows of a batch, in its order, as JSON objects ([`BatchResults::to_rows`]).
pub type Rows = Vec<Rc<Vec<Value>>>;

/// Keeps what the batch of `key` answered.
pub fn remember(key: String, rows: Rows) {
    let count = weight(&rows);
    if count > MAX_ROWS_PER_BATCH {
        return;
    }
    REMEMBERED.with(|remembered| {
        let mut remembered = remembered.borrow_mut();
        if ROWS.get() + count > CAPACITY_ROWS || remembered.len() >= CAPACITY_BATCHES {
            remembered.clear();
            ROWS.set(0);
        }
        let old = remembered.insert(key, rows);
        let old_count = old.map_or(0, |old| weight(&old));
        ROWS.set(ROWS.get() + count - old_count);
    });
}

/// What a batch of reads answered, held until the write planned from it says whether it
/// left those answers as they were.
pub struct Remembrance {
    key: String,
    rows: Rows,
}

impl Remembrance {
    pub fn new(key: String, rows: Rows) -> Self {
        Remembrance { key, rows }
    }

    /// Keeps the answers for the next write of the same reads: call it only when this
    /// write did not change them (else that write would find them changed and read again).
    pub fn keep(self) {
        remember(self.key, self.rows);
    }
}

/// A batch's remembered answers, and what a write owes for using them.
pub struct Recalled {
    pub results: BatchResults,
    pub recall: Recall,
}

/// The proof a write owes for recalled answers: its guards, one per read, first in its
/// batch.
pub struct Recall {
    key: String,
    guards: Vec<Statement>,
}

impl Recall {
    pub fn guards(&self) -> &[Statement] {
        &self.guards
    }

    /// Drops the recalled answers: the write changed what they answer.
    pub fn forget(&self) {
        forget(&self.key);
    }

    /// Whether the write's batch failed because a recalled read answers differently now
    /// (nothing was written); the answers are then forgotten.
    pub fn is_stale(&self, err: &worker::Error) -> bool {
        let stale = read_guards::failed(err);
        if stale {
            forget(&self.key);
        }
        stale
    }
}

/// The remembered answers of exactly `batch`'s statements, if this isolate has them.
pub fn recall(batch: &Batch) -> ApiResult<Option<Recalled>> {
    let statements = batch.statements();
    let key = key_of(statements);
    let Some(rows) = REMEMBERED.with(|remembered| remembered.borrow().get(&key).cloned()) else { return Ok(None) };
    if rows.len() != statements.len() {
        return Ok(None);
    }
    let mut guards = Vec::with_capacity(statements.len());
    for (statement, rows) in statements.iter().zip(rows.iter()) {
        match read_guards::still_answers_stmt(statement, rows)? {
            Some(guard) => guards.push(guard),
            None => return Ok(None),
        }
    }
    Ok(Some(Recalled { results: BatchResults::remembered(&rows), recall: Recall { key, guards } }))
}

/// Drops the answers kept under `key` (they were found to be old).
pub fn forget(key: &str) {
    REMEMBERED.with(|remembered| {
        if let Some(old) = remembered.borrow_mut().remove(key) {
            ROWS.set(ROWS.get().saturating_sub(weight(&old)));
        }
    });
}

/// What a remembered batch counts against [`CAPACITY_ROWS`]: its rows and its statements.
fn weight(rows: &[Rc<Vec<Value>>]) -> usize {
    rows.iter().map(|r| r.len() + 1).sum()
}
