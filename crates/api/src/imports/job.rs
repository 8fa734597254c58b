//! Running one claimed job.
//!
//! - **Batched** (the default): up to [`BATCH_ROWS`] rows, their errors and the job's progress
//!   commit in one transaction (`request_tx`: every use case the rows call joins it), and only if
//!   the job is still this runner's at the count the batch began from. A runner that dies leaves the
//!   job at its last commit; the next claim skips that many rows, so every row is done once.
//! - **Whole** (`atomic` or `dry_run`): every row's writes are in one transaction, committed at the
//!   end only for an atomic job without a bad row (a dry run always rolls back); progress and errors
//!   are written beside it as each batch ends, so they show while it runs. A claim taken over starts
//!   such a job from its first row again, since nothing of it was committed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bulk_data::{Counts, FileError, ImportJob, RowOutcome, RowResult, Trigger};
use import_postgres::{Claimed, ImportStore, Progress, StoredError};
use postgres_toolkit::request_tx::RequestTransaction;
use time::OffsetDateTime;
use uuid::Uuid;

use super::rows::{import_rows, Transient};
use super::source::{Source, SourceError};
use super::{BATCH_ROWS, LEASE};
use crate::app::AppState;

/// Why a run stopped before the job's end.
#[derive(Debug)]
enum Stop {
    /// The job is no longer this runner's: cancelled, or taken over.
    Lost,
    /// The database failed; the run is tried again.
    Transient(String),
    /// The uploader may no longer write what the job writes: it fails with this text.
    Forbidden(&'static str),
}

impl From<Transient> for Stop {
    fn from(t: Transient) -> Self {
        Self::Transient(t.0)
    }
}

impl From<shared_kernel::StorageError> for Stop {
    fn from(e: shared_kernel::StorageError) -> Self {
        Self::Transient(e.to_string())
    }
}

/// How often a failing run is tried again (after 1, 2, 4, 8 and 16 s) before the job fails.
const ATTEMPTS: u32 = 5;

/// The next rows of the file, at most a batch, and whether the file ended after them (with the
/// file error that ended it, if any).
struct Batch {
    rows: Vec<(u64, RowResult)>,
    end: Option<Option<FileError>>,
}

async fn next_batch(source: &mut Source) -> Result<Batch, Stop> {
    let mut rows = Vec::with_capacity(BATCH_ROWS);
    while rows.len() < BATCH_ROWS {
        match source.next().await {
            Ok(Some(row)) => rows.push(row),
            Ok(None) => return Ok(Batch { rows, end: Some(None) }),
            Err(SourceError::File(error)) => return Ok(Batch { rows, end: Some(Some(error)) }),
            Err(SourceError::Storage(error)) => return Err(error.into()),
        }
    }
    Ok(Batch { rows, end: None })
}

/// Rows are written as their uploader: before each batch, the uploader must still be active and
/// hold what the upload needed (`imports:create`, the resource's `create`, and `update` for an
/// upsert), as their requests would have to. A job outlives neither a suspension nor a lost role.
async fn uploader_still_allowed(state: &AppState, job: &ImportJob) -> Result<(), Stop> {
    let access = state.identity.access.get(job.created_by).await.map_err(|e| Stop::Transient(e.message))?;
    let Some(access) = access else { return Err(Stop::Forbidden("the uploader's account no longer exists")) };
    if access.status != identity_domain::UserStatus::Active {
        return Err(Stop::Forbidden("the uploader's account is no longer active"));
    }
    let mut needed = super::permissions_needed(job.resource, job.options.mode);
    if needed.all(|(resource, action)| access.permissions.allows(resource, action)) {
        Ok(())
    } else {
        Err(Stop::Forbidden("the uploader no longer holds the permissions this import needs"))
    }
}

/// Goes through `rows` through the use cases (inside the caller's transaction), counting each.
async fn do_rows(
    state: &AppState,
    job: &ImportJob,
    rows: Vec<(u64, RowResult)>,
    counts: &mut Counts,
    lost: &AtomicBool,
) -> Result<Vec<StoredError>, Stop> {
    uploader_still_allowed(state, job).await?;
    let outcomes = import_rows(state, job, rows, lost).await?;
    if lost.load(Ordering::Relaxed) {
        return Err(Stop::Lost);
    }
    let mut errors = Vec::new();
    for (row, outcome) in outcomes {
        if let RowOutcome::Failed(problems) = &outcome {
            errors.extend(problems.iter().map(|p| StoredError {
                row,
                field: p.field.clone(),
                code: p.code.clone(),
                message: p.message.clone(),
            }));
        }
        counts.record(&outcome);
    }
    Ok(errors)
}

/// Runs a claimed job to its end, or until it is lost or keeps failing.
pub async fn run(state: &AppState, store: &ImportStore, holder: Uuid, claimed: Claimed) {
    let store = store.clone();
    let mut job = claimed.job;
    let id = job.id;
    let lost = Arc::new(AtomicBool::new(false));
    let keeper = tokio::spawn(keep_claim(store.clone(), id, holder, lost.clone()));
    if claimed.resumed {
        tracing::info!(import_id = %id, after = job.counts.processed_rows, "resuming an import job");
    }
    let whole = job.options.atomic || job.options.dry_run;
    let mut attempt = 0;
    let mut done_before = job.counts.processed_rows;
    loop {
        let outcome = if whole {
            run_whole(state, &store, holder, &job, &lost).await
        } else {
            run_batched(state, &store, holder, &mut job, &lost).await
        };
        // The attempts count failures in a row: a batch committed since the last one starts afresh,
        // so a long job that meets a lock timeout now and then is not failed for their sum.
        if job.counts.processed_rows > done_before {
            done_before = job.counts.processed_rows;
            attempt = 0;
        }
        match outcome {
            Ok(()) | Err(Stop::Lost) => break,
            Err(Stop::Forbidden(reason)) => {
                tracing::warn!(import_id = %id, reason, "an import's uploader lost its rights; the job fails");
                fail(state, &store, holder, &job, reason.to_owned()).await;
                break;
            }
            Err(Stop::Transient(error)) if attempt < ATTEMPTS => {
                attempt += 1;
                tracing::warn!(import_id = %id, attempt, %error, "an import batch failed; trying again");
                tokio::time::sleep(Duration::from_millis(500 * (1 << attempt) + jitter())).await;
            }
            Err(Stop::Transient(error)) => {
                // Not one row's fault (a row's own refusal is its error): the database keeps failing.
                tracing::error!(import_id = %id, %error, "an import batch kept failing; the job fails");
                // The cause stays in the log: the job and its event are read by clients.
                fail(state, &store, holder, &job, "the database kept failing; try the import again later".to_owned())
                    .await;
                break;
            }
        }
    }
    keeper.abort();
}

/// Ends `job` as failed with `error` (and `import.failed`), if it is still `holder`'s.
async fn fail(state: &AppState, store: &ImportStore, holder: Uuid, job: &ImportJob, error: String) {
    let mut failed = job.clone();
    let event = failed.apply(Trigger::Fail { error }, OffsetDateTime::now_utc()).ok().flatten();
    let ended = async {
        let tx = RequestTransaction::begin(store.pool()).await?;
        match tx.run(store.finish(&failed, holder, event.as_ref())).await {
            Ok(_) => tx.commit().await,
            Err(error) => {
                tx.rollback().await;
                Err(error)
            }
        }
    };
    match ended.await {
        Ok(()) => state.outbox.notify(),
        Err(error) => tracing::warn!(import_id = %job.id, %error, "could not fail an import job; its claim runs out"),
    }
}

/// A few random milliseconds, so that two runners that failed together do not retry together.
fn jitter() -> u64 {
    u64::from(shared_kernel::new_id().as_u128() as u16 % 300)
}

/// Renews the claim while the job runs; sets `lost` when the job is no longer this runner's.
async fn keep_claim(store: ImportStore, id: Uuid, holder: Uuid, lost: Arc<AtomicBool>) {
    loop {
        tokio::time::sleep(LEASE / 3).await;
        match store.renew(id, holder, LEASE).await {
            Ok(true) => {}
            Ok(false) => {
                lost.store(true, Ordering::Relaxed);
                return;
            }
            Err(error) => tracing::warn!(import_id = %id, %error, "could not renew an import job's claim"),
        }
    }
}

/// The job's end: `Finish`, or `Fail` with the file's error.
fn ending(end: Option<FileError>) -> Trigger {
    match end {
        None => Trigger::Finish,
        Some(error) => Trigger::Fail { error: error.to_string() },
    }
}

async fn run_batched(
    state: &AppState,
    store: &ImportStore,
    holder: Uuid,
    job: &mut ImportJob,
    lost: &AtomicBool,
) -> Result<(), Stop> {
    let mut source = Source::new(store.clone(), job, job.counts.processed_rows);
    loop {
        let Batch { rows, end } = next_batch(&mut source).await?;
        let from = job.counts.processed_rows;
        let tx = RequestTransaction::begin(store.pool()).await?;
        let work = async {
            store.wait_longer_for_locks().await?;
            let mut counts = job.counts;
            let errors = do_rows(state, job, rows, &mut counts, lost).await?;
            let progress = Progress { from, counts, errors: &errors };
            if !store.record_progress(job.id, holder, LEASE, &progress).await? {
                return Err(Stop::Lost);
            }
            let mut next = job.clone();
            next.counts = counts;
            if let Some(end) = end.clone() {
                let event = next.apply(ending(end), OffsetDateTime::now_utc()).ok().flatten();
                if !store.finish(&next, holder, event.as_ref()).await? {
                    return Err(Stop::Lost);
                }
            }
            Ok(next)
        };
        match tx.run(work).await {
            Ok(next) => {
                tx.commit().await?;
                state.outbox.notify();
                *job = next;
                if end.is_some() {
                    return Ok(());
                }
            }
            Err(stop) => {
                tx.rollback().await;
                return Err(stop);
            }
        }
    }
}

async fn run_whole(
    state: &AppState,
    store: &ImportStore,
    holder: Uuid,
    job: &ImportJob,
    lost: &AtomicBool,
) -> Result<(), Stop> {
    // Whatever an earlier attempt or instance recorded was never committed with its rows.
    if !store.restart(job.id, holder).await? {
        return Err(Stop::Lost);
    }
    let mut counts = Counts { total_rows: job.counts.total_rows, ..Counts::default() };
    let mut source = Source::new(store.clone(), job, 0);
    let tx = RequestTransaction::begin(store.pool()).await?;
    let outcome = async {
        if let Err(error) = tx.run(store.wait_longer_for_locks()).await {
            return Err(Stop::from(error));
        }
        loop {
            let batch = next_batch(&mut source).await?;
            let from = counts.processed_rows;
            let errors = tx.run(do_rows(state, job, batch.rows, &mut counts, lost)).await?;
            // Beside the rows' transaction: progress shows, and errors stay if the rows roll back.
            let progress = Progress { from, counts, errors: &errors };
            if !store.record_progress(job.id, holder, LEASE, &progress).await? {
                return Err(Stop::Lost);
            }
            if let Some(end) = batch.end {
                return Ok(end);
            }
        }
    }
    .await;
    let end = match outcome {
        Ok(end) => end,
        Err(stop) => {
            tx.rollback().await;
            return Err(stop);
        }
    };
    let mut finished = job.clone();
    finished.counts = counts;
    let event = finished.apply(ending(end), OffsetDateTime::now_utc()).ok().flatten();
    let keeps_rows = !job.options.dry_run && finished.status == bulk_data::JobStatus::Succeeded;
    let tx = if keeps_rows {
        tx
    } else {
        tx.rollback().await;
        RequestTransaction::begin(store.pool()).await?
    };
    match tx.run(store.finish(&finished, holder, event.as_ref())).await {
        Ok(true) => {
            tx.commit().await?;
            state.outbox.notify();
            Ok(())
        }
        Ok(false) => {
            tx.rollback().await;
            Err(Stop::Lost)
        }
        Err(error) => {
            tx.rollback().await;
            Err(error.into())
        }
    }
}
