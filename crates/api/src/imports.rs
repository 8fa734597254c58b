//! Import jobs' runner (docs/imports-and-exports.md, "Runner"): a background task of each
//! instance that claims queued jobs, and running jobs whose instance died, and goes through their
//! rows through the resources' use cases, a batch a transaction.

mod job;
pub mod rows;
mod source;

use std::sync::Arc;
use std::time::Duration;

use actix_web::web;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::app::AppState;

/// How long a claim holds without renewal. A job whose instance died is taken over once its claim
/// has run out and a runner next looks: within `LEASE + POLL` (32 s, inside the 60 s allowed).
pub const LEASE: Duration = Duration::from_secs(30);
/// How often an idle runner looks for work it was not woken for (another instance's upload, a
/// claim that ran out).
pub const POLL: Duration = Duration::from_secs(2);
/// The most rows one transaction writes (with the job's progress).
pub const BATCH_ROWS: usize = 1_000;

/// The permissions (`resource`, `action`) an import of `resource` in `mode` needs: to upload it, and
/// again before each of its batches (rows are written as their uploader).
pub fn permissions_needed(
    resource: bulk_data::ImportResource,
    mode: bulk_data::ImportMode,
) -> impl Iterator<Item = (&'static str, &'static str)> {
    let upsert = (mode == bulk_data::ImportMode::Upsert).then_some((resource.as_str(), "update"));
    [("imports", "create"), (resource.as_str(), "create")].into_iter().chain(upsert)
}

/// Wakes this instance's runner at once when an upload is queued.
#[derive(Clone, Default)]
pub struct RunnerSignal(Arc<Notify>);

impl RunnerSignal {
    pub fn notify(&self) {
        self.0.notify_one();
    }
}

/// Starts the runner: one job at a time, until the task is aborted (a job cut off half-way is
/// resumed from its last committed batch by whichever instance claims it next).
/// `store` is on the runner's own connections.
pub fn spawn(state: web::Data<AppState>, store: import_postgres::ImportStore, signal: RunnerSignal) -> JoinHandle<()> {
    tokio::spawn(async move {
        // Each runner claims under an id of its own, so two instances in one process (tests) are two
        // holders too.
        let holder = shared_kernel::new_id();
        loop {
            match store.claim(holder, LEASE).await {
                Ok(Some(claimed)) => {
                    job::run(&state, &store, holder, claimed).await;
                    continue;
                }
                Ok(None) => {}
                Err(error) => tracing::warn!(%error, "could not look for import jobs"),
            }
            tokio::select! {
                () = signal.0.notified() => {}
                () = tokio::time::sleep(POLL) => {}
            }
        }
    })
}
