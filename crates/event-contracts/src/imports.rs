//! Events of bulk import jobs. Aggregate id = the import job's id.
//!
//! * `import.completed`: the job went through every row (`status` `succeeded`), whatever its
//!   `failed_rows`;
//! * `import.failed`: an atomic job met a bad row (nothing landed), or the file could not be read
//!   (`error` says why; the rows of batches committed before that stay).
//!
//! A cancelled job raises neither. Both carry [`ImportEventData`], the job's final counts. The
//! records the job created or changed raise their own events (`customer.created`, …) as their single
//! endpoints do; these two only close the job.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// An import job went through all its rows.
pub const IMPORT_COMPLETED: &str = "import.completed";
/// An import job ended without going through its rows: an atomic job with a bad row, or an
/// unreadable file.
pub const IMPORT_FAILED: &str = "import.failed";

/// The names [`ImportEventData`] travels under.
pub const IMPORT_EVENTS: [&str; 2] = [IMPORT_COMPLETED, IMPORT_FAILED];

/// The `data` of both import events: the job as it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportEventData {
    /// The job's id; also the envelope's aggregate id.
    pub import_id: Uuid,
    /// `customers`, `companies`, `products` or `inventory`.
    pub resource: String,
    /// `csv` or `jsonl`.
    pub format: String,
    /// `create` or `upsert`.
    pub mode: String,
    /// Whether the job only reported what it would have done.
    pub dry_run: bool,
    /// Whether one bad row stops every row from landing.
    pub atomic: bool,
    /// `succeeded` (with `import.completed`) or `failed` (with `import.failed`).
    pub status: String,
    /// Data rows (CSV) or non-blank lines (JSONL) the job found.
    pub total_rows: u64,
    /// Rows the job went through.
    pub processed_rows: u64,
    /// Rows that made a record (or would have, in a dry run).
    pub created: u64,
    /// Rows that changed a matched record.
    pub updated: u64,
    /// Rows that matched a record whose values were all equal.
    pub unchanged: u64,
    /// Rows refused; their errors are listed at `GET /api/v1/imports/{id}/errors`.
    pub failed_rows: u64,
    /// Why a failed job failed; `null` for a completed one.
    pub error: Option<String>,
    /// The user who started the job.
    pub created_by: Uuid,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::round_trips;
    use serde_json::json;
    use shared_kernel::EventEnvelope;
    use time::macros::datetime;

    #[test]
    fn import_events_keep_their_wire_shape() {
        let (job, user) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let data = ImportEventData {
            import_id: job,
            resource: "customers".to_owned(),
            format: "csv".to_owned(),
            mode: "upsert".to_owned(),
            dry_run: false,
            atomic: false,
            status: "succeeded".to_owned(),
            total_rows: 10,
            processed_rows: 10,
            created: 6,
            updated: 2,
            unchanged: 1,
            failed_rows: 1,
            error: None,
            created_by: user,
        };
        round_trips(
            &data,
            json!({"import_id": job, "resource": "customers", "format": "csv", "mode": "upsert",
                   "dry_run": false, "atomic": false, "status": "succeeded", "total_rows": 10,
                   "processed_rows": 10, "created": 6, "updated": 2, "unchanged": 1, "failed_rows": 1,
                   "error": null, "created_by": user}),
        );
        for name in IMPORT_EVENTS {
            let event = EventEnvelope::with_payload(name, job, datetime!(2026-03-01 10:00 UTC), &data);
            assert_eq!(event.payload::<ImportEventData>().expect("its shape"), data);
        }
    }
}
