//! What the import endpoints answer, and the upload's query.

use bulk_data::ImportJob;
use import_postgres::StoredError;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// `POST /imports/{resource}`'s query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UploadQuery {
    /// `create` (default): every row makes a record; `upsert`: a row matching a record (by `id`,
    /// else its natural key) changes it.
    #[param(inline, value_type = Option<ImportModeName>)]
    pub mode: Option<String>,
    /// Validate every row and report what would happen; write nothing (default false).
    pub dry_run: Option<bool>,
    /// One bad row and nothing lands; the job fails (default false).
    pub atomic: Option<bool>,
}

/// Document-only: the import modes.
#[derive(ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum ImportModeName {
    Create,
    Upsert,
}

/// Document-only: where a job stands.
#[derive(ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum ImportStatusName {
    Queued,
    Running,
    Succeeded,
    Failed,
    Cancelled,
}

/// An import job.
#[derive(Debug, Serialize, ToSchema)]
pub struct ImportJobView {
    pub id: Uuid,
    /// `customers`, `companies`, `products` or `inventory`.
    pub resource: String,
    /// `csv` or `jsonl`.
    pub format: String,
    #[schema(value_type = ImportModeName)]
    pub mode: String,
    pub dry_run: bool,
    pub atomic: bool,
    #[schema(value_type = ImportStatusName)]
    pub status: String,
    /// Rows in the file (counted at upload).
    pub total_rows: u64,
    /// Rows gone through; moves as batches commit.
    pub processed_rows: u64,
    pub created: u64,
    pub updated: u64,
    pub unchanged: u64,
    pub failed_rows: u64,
    /// Why a failed job failed.
    pub error: Option<String>,
    pub created_by: Uuid,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub started_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub finished_at: Option<OffsetDateTime>,
}

impl From<ImportJob> for ImportJobView {
    fn from(job: ImportJob) -> Self {
        let c = job.counts;
        Self {
            id: job.id,
            resource: job.resource.as_str().to_owned(),
            format: job.format.as_str().to_owned(),
            mode: job.options.mode.as_str().to_owned(),
            dry_run: job.options.dry_run,
            atomic: job.options.atomic,
            status: job.status.as_str().to_owned(),
            total_rows: c.total_rows,
            processed_rows: c.processed_rows,
            created: c.created,
            updated: c.updated,
            unchanged: c.unchanged,
            failed_rows: c.failed_rows,
            error: job.error,
            created_by: job.created_by,
            created_at: job.created_at,
            started_at: job.started_at,
            finished_at: job.finished_at,
        }
    }
}

/// One problem of one refused row.
#[derive(Debug, Serialize, ToSchema)]
pub struct ImportRowErrorView {
    /// The 1-based data row (CSV) or line (JSONL).
    pub row: u64,
    /// The column or key at fault; `null` for the row as a whole.
    pub field: Option<String>,
    /// The code the single endpoint answers for it (`VALIDATION_ERROR`, `INVALID_EMAIL`, …).
    pub code: String,
    pub message: String,
}

impl From<StoredError> for ImportRowErrorView {
    fn from(e: StoredError) -> Self {
        Self { row: e.row, field: e.field, code: e.code, message: e.message }
    }
}
