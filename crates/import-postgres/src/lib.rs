//! The PostgreSQL side of bulk data (docs/imports-and-exports.md): the store of import jobs (the job
//! rows, the uploaded file in chunks, the runners' claims, a lease any instance takes over once it
//! runs out, each batch's progress and its rows' errors), and the exports' reads ([`exports`]).
//!
//! Every statement goes through [`postgres_toolkit::storage::connect`], so a runner that calls these
//! inside its batch's transaction (`postgres_toolkit::request_tx`) writes the progress together with
//! the rows the batch made: both commit, or neither does. Races are settled by the statements
//! themselves (a claim skips locked rows, a progress write names the row count it continues from).

pub mod export_queries;
pub mod exports;
mod rows;
mod runs;

use diesel::sql_types::{BigInt, Bool, Bytea, Integer, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use postgres_toolkit::storage::{connect, Constraints};
use postgres_toolkit::DbPool;
use shared_kernel::{Page, PageRequest, StorageError};
use time::OffsetDateTime;
use uuid::Uuid;

use bulk_data::{Format, ImportJob, ImportOptions, ImportResource, JobStatus};

pub use rows::StoredError;
pub use runs::{Claimed, Progress};

use rows::{Count, ErrorRow, JobRow, JOB_COLUMNS};

/// No constraint of these tables is a caller's mistake: what is written is checked before.
const CONSTRAINTS: Constraints = Constraints::new(&[]);

fn storage(error: diesel::result::Error) -> StorageError {
    CONSTRAINTS.map(error)
}

/// What `POST /imports/{resource}/cancel` found.
#[derive(Debug)]
pub enum CancelOutcome {
    /// The job was queued or running and is now cancelled.
    Cancelled(ImportJob),
    /// No such job (or another caller's).
    NotFound,
    /// The job had finished already.
    Finished(JobStatus),
}

/// Import jobs in PostgreSQL.
#[derive(Clone)]
pub struct ImportStore {
    pool: DbPool,
}

impl ImportStore {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }

    /// The pool the store's statements run on outside a transaction.
    pub fn pool(&self) -> &DbPool {
        &self.pool
    }

    /// Makes `job` (queued in memory) as an upload in progress: invisible and never claimed until
    /// [`ImportStore::finish_upload`].
    pub async fn begin_upload(&self, job: &ImportJob) -> Result<(), StorageError> {
        let mut conn = connect(&self.pool).await?;
        diesel::sql_query(
            "INSERT INTO import_jobs (id, created_by, resource, format, mode, dry_run, atomic, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind::<SqlUuid, _>(job.id)
        .bind::<SqlUuid, _>(job.created_by)
        .bind::<Text, _>(job.resource.as_str())
        .bind::<Text, _>(job.format.as_str())
        .bind::<Text, _>(job.options.mode.as_str())
        .bind::<Bool, _>(job.options.dry_run)
        .bind::<Bool, _>(job.options.atomic)
        .bind::<Timestamptz, _>(job.created_at)
        .execute(&mut *conn)
        .await
        .map(drop)
        .map_err(storage)
    }

    /// Stores the upload's chunk number `seq` (from 0, in arrival order).
    pub async fn append_chunk(&self, id: Uuid, seq: i32, data: &[u8]) -> Result<(), StorageError> {
        let mut conn = connect(&self.pool).await?;
        diesel::sql_query("INSERT INTO import_chunks (job_id, seq, data) VALUES ($1, $2, $3)")
            .bind::<SqlUuid, _>(id)
            .bind::<Integer, _>(seq)
            .bind::<Bytea, _>(data)
            .execute(&mut *conn)
            .await
            .map(drop)
            .map_err(storage)
    }

    /// The whole file has arrived (`bytes` long, `total_rows` rows): the job is queued, visible and
    /// claimable. Answers the job.
    pub async fn finish_upload(&self, id: Uuid, bytes: u64, total_rows: u64) -> Result<ImportJob, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let row: JobRow = diesel::sql_query(format!(
            "UPDATE import_jobs SET status = 'queued', upload_bytes = $2, total_rows = $3 \
             WHERE id = $1 AND status = 'uploading' RETURNING {JOB_COLUMNS}"
        ))
        .bind::<SqlUuid, _>(id)
        .bind::<BigInt, _>(to_i64(bytes))
        .bind::<BigInt, _>(to_i64(total_rows))
        .get_result(&mut *conn)
        .await
        .map_err(storage)?;
        row.into_job()
    }

    /// Forgets an upload that did not complete (refused, or its client went away), with its chunks.
    pub async fn abandon_upload(&self, id: Uuid) -> Result<(), StorageError> {
        let mut conn = connect(&self.pool).await?;
        diesel::sql_query("DELETE FROM import_jobs WHERE id = $1 AND status = 'uploading'")
            .bind::<SqlUuid, _>(id)
            .execute(&mut *conn)
            .await
            .map(drop)
            .map_err(storage)
    }

    /// The job `id`, if it exists and belongs to `owner` (any owner when `None`).
    pub async fn get(&self, id: Uuid, owner: Option<Uuid>) -> Result<Option<ImportJob>, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let row: Option<JobRow> = diesel::sql_query(format!(
            "SELECT {JOB_COLUMNS} FROM import_jobs \
             WHERE id = $1 AND status <> 'uploading' AND ($2::uuid IS NULL OR created_by = $2)"
        ))
        .bind::<SqlUuid, _>(id)
        .bind::<Nullable<SqlUuid>, _>(owner)
        .get_result(&mut *conn)
        .await
        .map(Some)
        .or_else(|e| if e == diesel::result::Error::NotFound { Ok(None) } else { Err(e) })
        .map_err(storage)?;
        row.map(JobRow::into_job).transpose()
    }

    /// The jobs of `owner` (every job when `None`), newest first.
    pub async fn list(&self, owner: Option<Uuid>, page: PageRequest) -> Result<Page<ImportJob>, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let filter = "status <> 'uploading' AND ($1::uuid IS NULL OR created_by = $1)";
        let rows: Vec<JobRow> = diesel::sql_query(format!(
            "SELECT {JOB_COLUMNS} FROM import_jobs WHERE {filter} \
             ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3"
        ))
        .bind::<Nullable<SqlUuid>, _>(owner)
        .bind::<BigInt, _>(page.offset())
        .bind::<BigInt, _>(page.limit())
        .load(&mut *conn)
        .await
        .map_err(storage)?;
        let total: Count = diesel::sql_query(format!("SELECT count(*) AS n FROM import_jobs WHERE {filter}"))
            .bind::<Nullable<SqlUuid>, _>(owner)
            .get_result(&mut *conn)
            .await
            .map_err(storage)?;
        let jobs = rows.into_iter().map(JobRow::into_job).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::new(jobs, shared_kernel::Total::exact(total.n), page))
    }

    /// A job's row errors, by row then by their order in the row.
    pub async fn errors(&self, id: Uuid, page: PageRequest) -> Result<Page<StoredError>, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let rows: Vec<ErrorRow> = diesel::sql_query(
            "SELECT row_number, field, code, message FROM import_row_errors WHERE job_id = $1 \
             ORDER BY row_number, seq OFFSET $2 LIMIT $3",
        )
        .bind::<SqlUuid, _>(id)
        .bind::<BigInt, _>(page.offset())
        .bind::<BigInt, _>(page.limit())
        .load(&mut *conn)
        .await
        .map_err(storage)?;
        let total: Count = diesel::sql_query("SELECT count(*) AS n FROM import_row_errors WHERE job_id = $1")
            .bind::<SqlUuid, _>(id)
            .get_result(&mut *conn)
            .await
            .map_err(storage)?;
        Ok(Page::new(rows.into_iter().map(StoredError::from).collect(), shared_kernel::Total::exact(total.n), page))
    }

    /// Cancels a queued or running job of `owner` (any owner when `None`), in one statement: a
    /// runner's next batch then finds it cancelled and rolls back.
    pub async fn cancel(
        &self,
        id: Uuid,
        owner: Option<Uuid>,
        now: OffsetDateTime,
    ) -> Result<CancelOutcome, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let cancelled: Option<JobRow> = diesel::sql_query(format!(
            "UPDATE import_jobs SET status = 'cancelled', finished_at = $3, lease_holder = NULL, \
               lease_expires_at = NULL \
             WHERE id = $1 AND status IN ('queued', 'running') AND ($2::uuid IS NULL OR created_by = $2) \
             RETURNING {JOB_COLUMNS}"
        ))
        .bind::<SqlUuid, _>(id)
        .bind::<Nullable<SqlUuid>, _>(owner)
        .bind::<Timestamptz, _>(now)
        .get_result(&mut *conn)
        .await
        .map(Some)
        .or_else(|e| if e == diesel::result::Error::NotFound { Ok(None) } else { Err(e) })
        .map_err(storage)?;
        drop(conn);
        match cancelled {
            Some(row) => Ok(CancelOutcome::Cancelled(row.into_job()?)),
            None => Ok(match self.get(id, owner).await? {
                Some(job) => CancelOutcome::Finished(job.status),
                None => CancelOutcome::NotFound,
            }),
        }
    }

    /// Drops the uploads of jobs finished 7 days ago, the errors of those finished 30 days ago and
    /// uploads abandoned a day ago (their instance died mid-upload). Answers the rows deleted.
    pub async fn sweep(&self) -> Result<usize, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let mut swept = 0;
        for sql in [
            "DELETE FROM import_chunks c USING import_jobs j \
             WHERE c.job_id = j.id AND j.finished_at < now() - interval '7 days'",
            "DELETE FROM import_row_errors e USING import_jobs j \
             WHERE e.job_id = j.id AND j.finished_at < now() - interval '30 days'",
            "DELETE FROM import_jobs WHERE status = 'uploading' AND created_at < now() - interval '1 day'",
        ] {
            swept += diesel::sql_query(sql).execute(&mut *conn).await.map_err(storage)?;
        }
        Ok(swept)
    }
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn parse_job(row: &JobRow) -> Result<(ImportResource, Format, ImportOptions, JobStatus), StorageError> {
    use postgres_toolkit::storage::corrupt;
    let resource = ImportResource::parse(&row.resource).ok_or_else(|| corrupt("import resource", &row.resource))?;
    let format = Format::parse(&row.format).ok_or_else(|| corrupt("import format", &row.format))?;
    let mode = bulk_data::ImportMode::parse(&row.mode).ok_or_else(|| corrupt("import mode", &row.mode))?;
    let status = JobStatus::parse(&row.status).ok_or_else(|| corrupt("import status", &row.status))?;
    Ok((resource, format, ImportOptions { mode, dry_run: row.dry_run, atomic: row.atomic }, status))
}

impl ImportStore {
    /// In a runner's transaction: rows wait up to 20 s for a lock another import's batch holds
    /// (the same email, a company's name), instead of the requests' 2 s, so that two jobs on the
    /// same keys take turns rather than fail.
    pub async fn wait_longer_for_locks(&self) -> Result<(), StorageError> {
        let mut conn = connect(&self.pool).await?;
        diesel::sql_query("SET LOCAL lock_timeout = '20s'").execute(&mut *conn).await.map(drop).map_err(storage)
    }

    /// In a runner's transaction: holds `key` until it ends, so that two imports matching the same
    /// natural key that no unique index guards (a company's name) take turns.
    pub async fn lock_key(&self, key: &str) -> Result<(), StorageError> {
        let mut conn = connect(&self.pool).await?;
        diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1, 7301))")
            .bind::<Text, _>(format!("import:{key}"))
            .execute(&mut *conn)
            .await
            .map(drop)
            .map_err(storage)
    }
}
