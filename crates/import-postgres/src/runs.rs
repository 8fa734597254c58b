//! The runners' statements: claiming a job, keeping the claim, reading the upload back, writing a
//! batch's progress and errors, finishing.

use std::time::Duration;

use diesel::sql_types::{Array, BigInt, Bytea, Double, Integer, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryableByName;
use diesel_async::RunQueryDsl;
use postgres_toolkit::events::record_event;
use postgres_toolkit::storage::connect;
use shared_kernel::{EventEnvelope, StorageError};
use uuid::Uuid;

use bulk_data::{Counts, ImportJob};

use super::rows::{Count, JobRow, JOB_COLUMNS};
use super::{storage, to_i64, ImportStore, StoredError};

/// A job a runner has taken.
#[derive(Debug)]
pub struct Claimed {
    /// The job as it stands (running, claimed by the runner).
    pub job: ImportJob,
    /// Whether it was running already under a claim that ran out: its instance died.
    pub resumed: bool,
}

/// A batch's outcome as the job records it.
#[derive(Debug)]
pub struct Progress<'a> {
    /// `processed_rows` where the batch began: the write is refused unless the job is still there
    /// (another instance took it over, or it was cancelled, meanwhile).
    pub from: u64,
    /// The job's counts after the batch.
    pub counts: Counts,
    /// The batch's rows' problems, in row order.
    pub errors: &'a [StoredError],
}

#[derive(QueryableByName)]
struct ClaimedRow {
    #[diesel(embed)]
    job: JobRow,
    #[diesel(sql_type = Text)]
    was: String,
}

#[derive(QueryableByName)]
struct Chunk {
    #[diesel(sql_type = Bytea)]
    data: Vec<u8>,
}

fn seconds(lease: Duration) -> f64 {
    lease.as_secs_f64()
}

/// Field names and messages are cut as the API's error answers cut them.
fn cut(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
}

impl ImportStore {
    /// Takes the oldest job that is queued, or running under a claim that ran out, for `holder`
    /// until `lease` from now. Instances never take the same job: the row is locked and skipped.
    pub async fn claim(&self, holder: Uuid, lease: Duration) -> Result<Option<Claimed>, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let claimed: Vec<ClaimedRow> = diesel::sql_query(format!(
            "WITH due AS ( \
               SELECT id, status AS was FROM import_jobs \
               WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < now()) \
               ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED) \
             UPDATE import_jobs j SET status = 'running', lease_holder = $1, \
               lease_expires_at = now() + make_interval(secs => $2), started_at = coalesce(j.started_at, now()) \
             FROM due WHERE j.id = due.id \
             RETURNING {}, due.was",
            JOB_COLUMNS.split(", ").map(|c| format!("j.{c}")).collect::<Vec<_>>().join(", ")
        ))
        .bind::<SqlUuid, _>(holder)
        .bind::<Double, _>(seconds(lease))
        .load(&mut *conn)
        .await
        .map_err(storage)?;
        match claimed.into_iter().next() {
            Some(row) => Ok(Some(Claimed { resumed: row.was == "running", job: row.job.into_job()? })),
            None => Ok(None),
        }
    }

    /// Extends `holder`'s claim on a running job; `false` when it is no longer theirs (cancelled,
    /// finished, or taken over after the claim ran out).
    pub async fn renew(&self, id: Uuid, holder: Uuid, lease: Duration) -> Result<bool, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let renewed = diesel::sql_query(
            "UPDATE import_jobs SET lease_expires_at = now() + make_interval(secs => $3) \
             WHERE id = $1 AND lease_holder = $2 AND status = 'running'",
        )
        .bind::<SqlUuid, _>(id)
        .bind::<SqlUuid, _>(holder)
        .bind::<Double, _>(seconds(lease))
        .execute(&mut *conn)
        .await
        .map_err(storage)?;
        Ok(renewed == 1)
    }

    /// Chunk `seq` of the upload, `None` past the last.
    pub async fn chunk(&self, id: Uuid, seq: i32) -> Result<Option<Vec<u8>>, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let chunks: Vec<Chunk> = diesel::sql_query("SELECT data FROM import_chunks WHERE job_id = $1 AND seq = $2")
            .bind::<SqlUuid, _>(id)
            .bind::<Integer, _>(seq)
            .load(&mut *conn)
            .await
            .map_err(storage)?;
        Ok(chunks.into_iter().next().map(|c| c.data))
    }

    /// Starts `holder`'s job over from its first row: counts to 0, errors gone. For a job whose
    /// rows all commit together (atomic, dry run): a claim that ran out left nothing of them.
    pub async fn restart(&self, id: Uuid, holder: Uuid) -> Result<bool, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let reset: Count = diesel::sql_query(
            "WITH job AS ( \
               UPDATE import_jobs SET processed_rows = 0, created = 0, updated = 0, unchanged = 0, failed_rows = 0 \
               WHERE id = $1 AND lease_holder = $2 AND status = 'running' RETURNING id), \
             gone AS (DELETE FROM import_row_errors e USING job WHERE e.job_id = job.id) \
             SELECT count(*) AS n FROM job",
        )
        .bind::<SqlUuid, _>(id)
        .bind::<SqlUuid, _>(holder)
        .get_result(&mut *conn)
        .await
        .map_err(storage)?;
        Ok(reset.n == 1)
    }

    /// Records a batch: the counts, the errors and a renewed claim, in one statement, only if the
    /// job is still `holder`'s, running, at `progress.from`. `false` otherwise: the caller rolls
    /// the batch back.
    pub async fn record_progress(
        &self,
        id: Uuid,
        holder: Uuid,
        lease: Duration,
        progress: &Progress<'_>,
    ) -> Result<bool, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let c = &progress.counts;
        let errors = progress.errors;
        let recorded: Count = diesel::sql_query(
            "WITH job AS ( \
               UPDATE import_jobs SET processed_rows = $3, created = $4, updated = $5, unchanged = $6, \
                 failed_rows = $7, lease_expires_at = now() + make_interval(secs => $8) \
               WHERE id = $1 AND lease_holder = $2 AND status = 'running' AND processed_rows = $9 \
               RETURNING id), \
             errors AS ( \
               INSERT INTO import_row_errors (job_id, row_number, seq, field, code, message) \
               SELECT job.id, e.r, (row_number() OVER (PARTITION BY e.r ORDER BY e.o))::int - 1, e.f, e.c, e.m \
               FROM job, unnest($10::bigint[], $11::text[], $12::text[], $13::text[]) WITH ORDINALITY AS e(r, f, c, m, o) \
               ON CONFLICT DO NOTHING) \
             SELECT count(*) AS n FROM job",
        )
        .bind::<SqlUuid, _>(id)
        .bind::<SqlUuid, _>(holder)
        .bind::<BigInt, _>(to_i64(c.processed_rows))
        .bind::<BigInt, _>(to_i64(c.created))
        .bind::<BigInt, _>(to_i64(c.updated))
        .bind::<BigInt, _>(to_i64(c.unchanged))
        .bind::<BigInt, _>(to_i64(c.failed_rows))
        .bind::<Double, _>(seconds(lease))
        .bind::<BigInt, _>(to_i64(progress.from))
        .bind::<Array<BigInt>, _>(errors.iter().map(|e| to_i64(e.row)).collect::<Vec<_>>())
        .bind::<Array<Nullable<Text>>, _>(errors.iter().map(|e| e.field.as_deref().map(|f| cut(f, 120))).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(errors.iter().map(|e| cut(&e.code, 64)).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(errors.iter().map(|e| cut(&e.message, 1000)).collect::<Vec<_>>())
        .get_result(&mut *conn)
        .await
        .map_err(storage)?;
        Ok(recorded.n == 1)
    }

    /// Writes `job` as finished (its status, counts, error and end) and its event, if `holder`
    /// still runs it; `false` otherwise. Call it inside the transaction of the last batch, so the
    /// end and the event commit with it.
    pub async fn finish(
        &self,
        job: &ImportJob,
        holder: Uuid,
        event: Option<&EventEnvelope>,
    ) -> Result<bool, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let c = &job.counts;
        let finished = diesel::sql_query(
            "UPDATE import_jobs SET status = $3, total_rows = $4, processed_rows = $5, created = $6, updated = $7, \
               unchanged = $8, failed_rows = $9, error = $10, finished_at = $11, lease_holder = NULL, \
               lease_expires_at = NULL \
             WHERE id = $1 AND lease_holder = $2 AND status = 'running'",
        )
        .bind::<SqlUuid, _>(job.id)
        .bind::<SqlUuid, _>(holder)
        .bind::<Text, _>(job.status.as_str())
        .bind::<BigInt, _>(to_i64(c.total_rows))
        .bind::<BigInt, _>(to_i64(c.processed_rows))
        .bind::<BigInt, _>(to_i64(c.created))
        .bind::<BigInt, _>(to_i64(c.updated))
        .bind::<BigInt, _>(to_i64(c.unchanged))
        .bind::<BigInt, _>(to_i64(c.failed_rows))
        .bind::<Nullable<Text>, _>(job.error.as_deref())
        .bind::<Nullable<Timestamptz>, _>(job.finished_at)
        .execute(&mut *conn)
        .await
        .map_err(storage)?;
        if finished != 1 {
            return Ok(false);
        }
        if let Some(event) = event {
            record_event(&conn, &[event]).await.map_err(storage)?;
        }
        Ok(true)
    }
}
