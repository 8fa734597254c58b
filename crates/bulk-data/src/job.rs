//! The import job's lifecycle (docs/imports-and-exports.md) as a pure state machine: the caller passes the instant.
//!
//! ```text
//!            start              finish (all rows done)
//!   queued ─────────► running ─────────────────────────► succeeded   (import.completed)
//!     │  │             │  ▲ │ finish (atomic, a bad row)
//!     │  │             │  └─┘ resume (its instance died) ► failed     (import.failed)
//!     │  │             │ fail (file unreadable) ───────► failed     (import.failed)
//!     │  └─ fail ──────┼────────────────────────────────► failed
//!     └──── cancel ────┴─ cancel ──────────────────────► cancelled  (no event)
//! ```
//!
//! A finished job (succeeded, failed, cancelled) takes no trigger: each is
//! `INVALID_STATUS_TRANSITION` (409).

use event_contracts::imports::{ImportEventData, IMPORT_COMPLETED, IMPORT_FAILED};
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::RowErrors;
use crate::schema::{Format, ImportResource};

/// The code of a trigger the job's status refuses.
pub const INVALID_STATUS_TRANSITION: &str = "INVALID_STATUS_TRANSITION";

/// Where a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobStatus {
    /// Made at upload, waiting for a worker.
    Queued,
    /// A worker goes through its rows.
    Running,
    /// Every row was gone through (some may have failed).
    Succeeded,
    /// An atomic job met a bad row, or the file could not be read.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl JobStatus {
    /// Every status.
    pub const ALL: [JobStatus; 5] = [Self::Queued, Self::Running, Self::Succeeded, Self::Failed, Self::Cancelled];

    /// Its wire name (`queued`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// The status of its wire name (exact spelling).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Whether the job is over (succeeded, failed or cancelled).
    pub fn is_finished(self) -> bool {
        matches!(self, Self::Succeeded | Self::Failed | Self::Cancelled)
    }
}

/// `mode`: make every row, or match existing records and change them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ImportMode {
    /// Every row makes a record (the default).
    #[default]
    Create,
    /// A row that matches a record (by `id`, else its natural key) changes it; others make one.
    Upsert,
}

impl ImportMode {
    /// The mode of its query value (`create`, `upsert`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "create" => Some(Self::Create),
            "upsert" => Some(Self::Upsert),
            _ => None,
        }
    }

    /// Its wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Upsert => "upsert",
        }
    }
}

/// How a job treats its rows: the upload's query (`mode`, `dry_run`, `atomic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ImportOptions {
    /// `create` (default) or `upsert`.
    pub mode: ImportMode,
    /// Report what would happen, write nothing (default `false`).
    pub dry_run: bool,
    /// One bad row and nothing lands (default `false`).
    pub atomic: bool,
}

/// What happened to one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowOutcome {
    /// It made a record (in a dry run: would have).
    Created,
    /// It changed the record it matched.
    Updated,
    /// It matched a record whose values were all equal: nothing written, no event.
    Unchanged,
    /// It was refused, for these reasons (each `{field, code, message}`).
    Failed(RowErrors),
}

/// A job's counts. `processed_rows = created + updated + unchanged + failed_rows` at every commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Rows in the file: known at the end (set by `finish`), or earlier if the caller counted them.
    pub total_rows: u64,
    /// Rows gone through, in file order; a resumed job skips this many.
    pub processed_rows: u64,
    /// Rows that made a record.
    pub created: u64,
    /// Rows that changed a record.
    pub updated: u64,
    /// Rows that matched an equal record.
    pub unchanged: u64,
    /// Rows refused.
    pub failed_rows: u64,
}

impl Counts {
    /// Counts one row's outcome.
    pub fn record(&mut self, outcome: &RowOutcome) {
        self.processed_rows += 1;
        match outcome {
            RowOutcome::Created => self.created += 1,
            RowOutcome::Updated => self.updated += 1,
            RowOutcome::Unchanged => self.unchanged += 1,
            RowOutcome::Failed(_) => self.failed_rows += 1,
        }
    }
}

/// What moves a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    /// A worker takes a queued job.
    Start,
    /// The reader reached the end of the file and every row is counted.
    Finish,
    /// The file cannot be read on (not UTF-8, an unclosed quote, its upload gone): why.
    Fail {
        /// The job's `error`.
        error: String,
    },
    /// The caller's `POST /imports/{id}/cancel`.
    Cancel,
    /// Another instance takes a running job whose instance died; it goes on after the first
    /// `processed_rows` rows (the last committed batch).
    Resume,
}

impl Trigger {
    /// Its name, for messages and tests.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::Finish => "finish",
            Self::Fail { .. } => "fail",
            Self::Cancel => "cancel",
            Self::Resume => "resume",
        }
    }
}

/// A trigger the job's status refuses: 409 `INVALID_STATUS_TRANSITION`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an import job that is {} cannot {trigger}", .from.as_str())]
pub struct InvalidTransition {
    /// The job's status.
    pub from: JobStatus,
    /// The refused trigger's name.
    pub trigger: &'static str,
}

impl InvalidTransition {
    /// The API's code for it.
    pub fn code(&self) -> &'static str {
        INVALID_STATUS_TRANSITION
    }
}

/// An import job (as docs/imports-and-exports.md describes it, less what only storage knows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportJob {
    /// Its id; also its events' aggregate id.
    pub id: Uuid,
    /// What it imports.
    pub resource: ImportResource,
    /// The file's format.
    pub format: Format,
    /// `mode`, `dry_run`, `atomic`.
    pub options: ImportOptions,
    /// Where it stands.
    pub status: JobStatus,
    /// Its counts.
    pub counts: Counts,
    /// Why it failed.
    pub error: Option<String>,
    /// Who uploaded it.
    pub created_by: Uuid,
    /// When it was uploaded.
    pub created_at: OffsetDateTime,
    /// When a worker first took it.
    pub started_at: Option<OffsetDateTime>,
    /// When it finished.
    pub finished_at: Option<OffsetDateTime>,
}

impl ImportJob {
    /// A queued job, made at upload.
    pub fn new(
        id: Uuid,
        resource: ImportResource,
        format: Format,
        options: ImportOptions,
        created_by: Uuid,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            id,
            resource,
            format,
            options,
            status: JobStatus::Queued,
            counts: Counts::default(),
            error: None,
            created_by,
            created_at: now,
            started_at: None,
            finished_at: None,
        }
    }

    /// The status `trigger` moves a job of `status` to, or the refusal.
    pub fn next_status(status: JobStatus, trigger: &Trigger) -> Result<JobStatus, InvalidTransition> {
        use JobStatus::*;
        let next = match (status, trigger) {
            (Queued, Trigger::Start) => Running,
            (Running, Trigger::Finish) => Succeeded, // or Failed for an atomic job: see `apply`
            (Queued | Running, Trigger::Fail { .. }) => Failed,
            (Queued | Running, Trigger::Cancel) => Cancelled,
            (Running, Trigger::Resume) => Running,
            (from, trigger) => return Err(InvalidTransition { from, trigger: trigger.name() }),
        };
        Ok(next)
    }

    /// Applies `trigger` at `now`; answers the event it raises (`import.completed` on a success,
    /// `import.failed` on a failure), to be written with the job's change.
    ///
    /// `finish` of an atomic job with a failed row fails it: nothing of it landed, so its created,
    /// updated and unchanged counts go to 0 (its `failed_rows` and errors stay to say why).
    pub fn apply(&mut self, trigger: Trigger, now: OffsetDateTime) -> Result<Option<EventEnvelope>, InvalidTransition> {
        let mut next = Self::next_status(self.status, &trigger)?;
        match trigger {
            Trigger::Start => self.started_at = Some(now),
            Trigger::Resume | Trigger::Cancel => {}
            Trigger::Finish => {
                self.counts.total_rows = self.counts.total_rows.max(self.counts.processed_rows);
                if self.options.atomic && self.counts.failed_rows > 0 {
                    next = JobStatus::Failed;
                    let c = &mut self.counts;
                    (c.created, c.updated, c.unchanged) = (0, 0, 0);
                    self.error = Some(format!(
                        "atomic import: {} of {} rows failed, so no row was written",
                        c.failed_rows, c.total_rows
                    ));
                }
            }
            Trigger::Fail { error } => self.error = Some(error),
        }
        self.status = next;
        if next.is_finished() {
            self.finished_at = Some(now);
        }
        Ok(self.finished_event(now))
    }

    /// Counts a committed batch's outcomes (only while running).
    pub fn record_batch<'o>(
        &mut self,
        outcomes: impl IntoIterator<Item = &'o RowOutcome>,
    ) -> Result<(), InvalidTransition> {
        if self.status != JobStatus::Running {
            return Err(InvalidTransition { from: self.status, trigger: "record rows" });
        }
        for outcome in outcomes {
            self.counts.record(outcome);
        }
        Ok(())
    }

    /// How many rows a worker taking this job skips (they were committed before).
    pub fn resume_after(&self) -> u64 {
        self.counts.processed_rows
    }

    /// The event of a finished job, `None` for a cancelled or unfinished one.
    pub fn finished_event(&self, now: OffsetDateTime) -> Option<EventEnvelope> {
        let name = match self.status {
            JobStatus::Succeeded => IMPORT_COMPLETED,
            JobStatus::Failed => IMPORT_FAILED,
            _ => return None,
        };
        Some(EventEnvelope::with_payload(name, self.id, now, &self.event_data()))
    }

    /// The job's events' payload.
    pub fn event_data(&self) -> ImportEventData {
        let c = &self.counts;
        ImportEventData {
            import_id: self.id,
            resource: self.resource.as_str().to_owned(),
            format: self.format.as_str().to_owned(),
            mode: self.options.mode.as_str().to_owned(),
            dry_run: self.options.dry_run,
            atomic: self.options.atomic,
            status: self.status.as_str().to_owned(),
            total_rows: c.total_rows,
            processed_rows: c.processed_rows,
            created: c.created,
            updated: c.updated,
            unchanged: c.unchanged,
            failed_rows: c.failed_rows,
            error: self.error.clone(),
            created_by: self.created_by,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::RowError;
    use time::macros::datetime;
    use JobStatus::*;

    const T0: OffsetDateTime = datetime!(2026-03-01 10:00 UTC);
    const T1: OffsetDateTime = datetime!(2026-03-01 10:05 UTC);

    fn job(atomic: bool) -> ImportJob {
        ImportJob::new(
            Uuid::from_u128(1),
            ImportResource::Customers,
            Format::Csv,
            ImportOptions { mode: ImportMode::Upsert, dry_run: false, atomic },
            Uuid::from_u128(2),
            T0,
        )
    }

    fn in_status(status: JobStatus) -> ImportJob {
        ImportJob { status, ..job(false) }
    }

    fn triggers() -> [Trigger; 5] {
        [
            Trigger::Start,
            Trigger::Finish,
            Trigger::Fail { error: "unreadable".to_owned() },
            Trigger::Cancel,
            Trigger::Resume,
        ]
    }

    fn failed_row() -> RowOutcome {
        RowOutcome::Failed(vec![RowError::validation(Some("email"), "bad")])
    }

    #[test]
    fn every_status_against_every_trigger() {
        // (status, [start, finish, fail, cancel, resume]); None = INVALID_STATUS_TRANSITION.
        let table: [(JobStatus, [Option<JobStatus>; 5]); 5] = [
            (Queued, [Some(Running), None, Some(Failed), Some(Cancelled), None]),
            (Running, [None, Some(Succeeded), Some(Failed), Some(Cancelled), Some(Running)]),
            (Succeeded, [None; 5]),
            (Failed, [None; 5]),
            (Cancelled, [None; 5]),
        ];
        for (status, expected) in table {
            for (trigger, want) in triggers().into_iter().zip(expected) {
                let mut job = in_status(status);
                let before = job.clone();
                let got = job.apply(trigger.clone(), T1);
                match want {
                    Some(next) => {
                        let event = got.unwrap_or_else(|e| panic!("{status:?} + {}: {e}", trigger.name()));
                        assert_eq!(job.status, next, "{status:?} + {}", trigger.name());
                        assert_eq!(
                            event.is_some(),
                            matches!(next, Succeeded | Failed),
                            "{status:?} + {}",
                            trigger.name()
                        );
                        assert_eq!(job.finished_at.is_some(), next.is_finished());
                    }
                    None => {
                        let err = got.expect_err("refused");
                        assert_eq!(
                            (err.from, err.trigger, err.code()),
                            (status, trigger.name(), INVALID_STATUS_TRANSITION)
                        );
                        assert_eq!(job, before, "a refused trigger changes nothing");
                    }
                }
            }
        }
    }

    #[test]
    fn a_job_that_went_through_its_rows_succeeds_whatever_failed() {
        let mut job = job(false);
        job.apply(Trigger::Start, T0).expect("allowed");
        assert_eq!(job.started_at, Some(T0));
        job.record_batch(&[RowOutcome::Created, failed_row(), RowOutcome::Unchanged, RowOutcome::Updated])
            .expect("allowed");
        let event = job.apply(Trigger::Finish, T1).expect("allowed").expect("an event");
        assert_eq!(job.status, Succeeded);
        assert_eq!(event.name, "import.completed");
        assert_eq!(event.aggregate_id, job.id);
        let data: ImportEventData = event.payload().expect("its shape");
        assert_eq!(
            (data.total_rows, data.processed_rows, data.created, data.updated, data.unchanged, data.failed_rows),
            (4, 4, 1, 1, 1, 1)
        );
        assert_eq!(data.status, "succeeded");
        assert_eq!(data.error, None);
    }

    #[test]
    fn an_atomic_job_with_a_bad_row_fails_and_lands_nothing() {
        let mut job = job(true);
        job.apply(Trigger::Start, T0).expect("allowed");
        job.record_batch(&[RowOutcome::Created, failed_row()]).expect("allowed");
        let event = job.apply(Trigger::Finish, T1).expect("allowed").expect("an event");
        assert_eq!(job.status, Failed);
        assert_eq!(event.name, "import.failed");
        assert_eq!((job.counts.created, job.counts.failed_rows, job.counts.processed_rows), (0, 1, 2));
        assert_eq!(job.error.as_deref(), Some("atomic import: 1 of 2 rows failed, so no row was written"));
        // Without a bad row, an atomic job succeeds.
        let mut clean = self::job(true);
        clean.apply(Trigger::Start, T0).expect("allowed");
        clean.record_batch(&[RowOutcome::Created]).expect("running");
        clean.apply(Trigger::Finish, T1).expect("allowed");
        assert_eq!(clean.status, Succeeded);
    }

    #[test]
    fn an_unreadable_file_fails_the_job_with_its_error() {
        let mut job = job(false);
        job.apply(Trigger::Start, T0).expect("allowed");
        let event = job
            .apply(Trigger::Fail { error: "row 7 is not UTF-8 text".to_owned() }, T1)
            .expect("allowed")
            .expect("an event");
        assert_eq!(
            event.payload::<ImportEventData>().expect("its shape").error.as_deref(),
            Some("row 7 is not UTF-8 text")
        );
        assert_eq!(job.finished_at, Some(T1));
    }

    #[test]
    fn a_resumed_job_goes_on_after_its_committed_rows() {
        let mut job = job(false);
        job.apply(Trigger::Start, T0).expect("allowed");
        job.record_batch(&vec![RowOutcome::Created; 1_000]).expect("allowed");
        assert_eq!(job.apply(Trigger::Resume, T1).expect("allowed"), None);
        assert_eq!((job.status, job.resume_after(), job.started_at), (Running, 1_000, Some(T0)));
    }

    #[test]
    fn rows_are_counted_only_while_running() {
        for status in [Queued, Succeeded, Failed, Cancelled] {
            let mut job = in_status(status);
            assert!(job.record_batch(&[RowOutcome::Created]).is_err());
            assert_eq!(job.counts, Counts::default());
        }
    }

    #[test]
    fn cancelling_raises_nothing() {
        let mut job = job(false);
        assert_eq!(job.apply(Trigger::Cancel, T1).expect("allowed"), None);
        assert_eq!(job.finished_event(T1), None);
        let err = job.apply(Trigger::Cancel, T1).expect_err("refused");
        assert_eq!(err.to_string(), "an import job that is cancelled cannot cancel");
    }

    #[test]
    fn names_round_trip() {
        for status in JobStatus::ALL {
            assert_eq!(JobStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(ImportMode::parse("upsert"), Some(ImportMode::Upsert));
        assert_eq!(ImportMode::parse("Upsert"), None);
    }
}
