//! The rows the store's statements answer.

use diesel::sql_types::{BigInt, Bool, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryableByName;
use shared_kernel::StorageError;
use time::OffsetDateTime;
use uuid::Uuid;

use bulk_data::{Counts, ImportJob};

/// The columns of [`JobRow`], for statements written out in SQL.
pub(crate) const JOB_COLUMNS: &str = "id, created_by, resource, format, mode, dry_run, atomic, status, total_rows, \
    processed_rows, created, updated, unchanged, failed_rows, error, created_at, started_at, finished_at";

#[derive(QueryableByName)]
pub(crate) struct JobRow {
    #[diesel(sql_type = SqlUuid)]
    pub id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    pub created_by: Uuid,
    #[diesel(sql_type = Text)]
    pub resource: String,
    #[diesel(sql_type = Text)]
    pub format: String,
    #[diesel(sql_type = Text)]
    pub mode: String,
    #[diesel(sql_type = Bool)]
    pub dry_run: bool,
    #[diesel(sql_type = Bool)]
    pub atomic: bool,
    #[diesel(sql_type = Text)]
    pub status: String,
    #[diesel(sql_type = BigInt)]
    pub total_rows: i64,
    #[diesel(sql_type = BigInt)]
    pub processed_rows: i64,
    #[diesel(sql_type = BigInt)]
    pub created: i64,
    #[diesel(sql_type = BigInt)]
    pub updated: i64,
    #[diesel(sql_type = BigInt)]
    pub unchanged: i64,
    #[diesel(sql_type = BigInt)]
    pub failed_rows: i64,
    #[diesel(sql_type = Nullable<Text>)]
    pub error: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: OffsetDateTime,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub started_at: Option<OffsetDateTime>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub finished_at: Option<OffsetDateTime>,
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

impl JobRow {
    pub(crate) fn into_job(self) -> Result<ImportJob, StorageError> {
        let (resource, format, options, status) = super::parse_job(&self)?;
        Ok(ImportJob {
            id: self.id,
            resource,
            format,
            options,
            status,
            counts: Counts {
                total_rows: count(self.total_rows),
                processed_rows: count(self.processed_rows),
                created: count(self.created),
                updated: count(self.updated),
                unchanged: count(self.unchanged),
                failed_rows: count(self.failed_rows),
            },
            error: self.error,
            created_by: self.created_by,
            created_at: self.created_at,
            started_at: self.started_at,
            finished_at: self.finished_at,
        })
    }
}

#[derive(QueryableByName)]
pub(crate) struct Count {
    #[diesel(sql_type = BigInt)]
    pub n: i64,
}

#[derive(QueryableByName)]
pub(crate) struct ErrorRow {
    #[diesel(sql_type = BigInt)]
    row_number: i64,
    #[diesel(sql_type = Nullable<Text>)]
    field: Option<String>,
    #[diesel(sql_type = Text)]
    code: String,
    #[diesel(sql_type = Text)]
    message: String,
}

/// One stored problem of one row: an entry of `GET /imports/{id}/errors`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredError {
    /// The 1-based data row (CSV) or line (JSONL).
    pub row: u64,
    pub field: Option<String>,
    pub code: String,
    pub message: String,
}

impl From<ErrorRow> for StoredError {
    fn from(r: ErrorRow) -> Self {
        Self { row: count(r.row_number), field: r.field, code: r.code, message: r.message }
    }
}
