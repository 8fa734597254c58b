//! What can be wrong with an import file: a whole-file problem ([`FileError`]), a header that does
//! not fit the resource ([`HeaderError`]), or one row's problem ([`RowError`]).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The code of every problem this crate finds, as the API's 400 answers use it.
pub const VALIDATION_ERROR: &str = "VALIDATION_ERROR";

/// The largest row (CSV record or JSONL line) read, in bytes: the API's body limit, since a row is
/// one create body. A longer row is a row error, and reading goes on with the next one.
pub const MAX_ROW_BYTES: usize = 1024 * 1024;

/// The most cells a CSV row may have; a row with more is a row error (its cells are not kept).
pub const MAX_CELLS: usize = 1024;

/// One problem of one row: stored as an entry of `GET /imports/{id}/errors` (`{row, field, code,
/// message}`, the row number kept beside it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowError {
    /// The column or key at fault; `None` when the row as a whole is (ragged, not JSON, too long).
    pub field: Option<String>,
    /// The API's code for it (`VALIDATION_ERROR` here; the importer adds the use case's codes).
    pub code: String,
    /// What is wrong, for a person.
    pub message: String,
}

impl RowError {
    /// A `VALIDATION_ERROR` about `field` (or the whole row).
    pub fn validation(field: Option<&str>, message: impl Into<String>) -> Self {
        Self { field: field.map(str::to_owned), code: VALIDATION_ERROR.to_owned(), message: message.into() }
    }
}

/// A row's problems (at least one): every bad cell or key is named, as the API's `details` name
/// every bad field of a body at once.
pub type RowErrors = Vec<RowError>;

/// The header row names columns the resource does not have, or lacks some it needs: at upload, a
/// 400 `VALIDATION_ERROR` whose `details` are [`HeaderError::details`], and no job is made.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HeaderError {
    /// Columns the resource does not know, in header order.
    pub unknown: Vec<String>,
    /// Required columns not in the header; an alternative is written `sku|product_id`.
    pub missing: Vec<String>,
    /// Columns named more than once.
    pub duplicate: Vec<String>,
}

impl HeaderError {
    /// Whether the header is fine.
    pub fn is_empty(&self) -> bool {
        self.unknown.is_empty() && self.missing.is_empty() && self.duplicate.is_empty()
    }

    /// One `(column, message)` pair a problem, for the error envelope's `details`.
    pub fn details(&self) -> Vec<(String, String)> {
        let unknown = self.unknown.iter().map(|c| (c.clone(), "unknown column".to_owned()));
        let missing = self.missing.iter().map(|c| {
            let message = if c.contains('|') {
                format!("one of the columns {} is required", c.replace('|', ", "))
            } else {
                "required column missing".to_owned()
            };
            (c.clone(), message)
        });
        let duplicate = self.duplicate.iter().map(|c| (c.clone(), "column given more than once".to_owned()));
        unknown.chain(missing).chain(duplicate).collect()
    }
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if !self.unknown.is_empty() {
            parts.push(format!("unknown columns: {}", self.unknown.join(", ")));
        }
        if !self.missing.is_empty() {
            parts.push(format!("missing columns: {}", self.missing.join(", ")));
        }
        if !self.duplicate.is_empty() {
            parts.push(format!("columns given twice: {}", self.duplicate.join(", ")));
        }
        write!(f, "the header does not fit the resource ({})", parts.join("; "))
    }
}

impl std::error::Error for HeaderError {}

/// The file cannot be read on: the job fails with this as its `error` (rows of batches committed
/// before stay), or, found at upload, the answer is 400 `VALIDATION_ERROR` and no job is made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// No header row (CSV), or no non-blank line (JSONL): nothing says what the file holds.
    #[error("the file is empty: {}", if *.csv { "a CSV file needs a header row" } else { "a JSONL file needs at least one line" })]
    Empty {
        /// Whether the file was read as CSV.
        csv: bool,
    },
    /// A row holds bytes that are not UTF-8 (row 0: the CSV header). Everything must be UTF-8.
    #[error("{} is not UTF-8 text; save the file as UTF-8", RowName(*.row))]
    NotUtf8 {
        /// The data row (CSV) or line (JSONL); 0 for the header row.
        row: u64,
    },
    /// A quoted CSV cell is never closed: the rest of the file would be one cell.
    #[error("{} opens a quoted cell (\") that is never closed", RowName(*.row))]
    UnclosedQuote {
        /// The data row whose cell opens the quote; 0 for the header row.
        row: u64,
    },
    /// The CSV header is longer than [`MAX_ROW_BYTES`] or has more than [`MAX_CELLS`] columns.
    #[error("the header row is too long")]
    HeaderTooLong,
    /// The CSV header does not fit the resource.
    #[error(transparent)]
    Header(#[from] HeaderError),
}

impl FileError {
    /// The API's code for it.
    pub fn code(&self) -> &'static str {
        VALIDATION_ERROR
    }
}

/// "row N", or "the header row" for 0.
struct RowName(u64);

impl fmt::Display for RowName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("the header row"),
            n => write!(f, "row {n}"),
        }
    }
}
