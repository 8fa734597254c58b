//! Ports: what the customer-management handlers need from storage, as object-safe async traits
//! (`Arc<dyn CustomerRepository>`), and the one error contract every adapter follows.
//!
//! Contract shared by all repositories:
//! - reads never return soft-deleted rows; finds answer `Ok(None)` rather than `NotFound`;
//! - a write to a missing or soft-deleted row is `RepoError::NotFound`;
//! - a state change (`save_*`) is a conditional `UPDATE … WHERE <state> = <expected>` that writes the row,
//!   its history row and its outbox events in one transaction; if it matches nothing although the row
//!   exists, it is `RepoError::StaleState` and nothing is written;
//! - unique violations become `Duplicate { field }`, foreign-key violations `MissingReference { field }`,
//!   pool/connection failures `Unavailable`, anything else `Unknown` (cause text for the log only).

mod company;
mod customer;
mod deal;
mod interaction;

pub use company::{CompanyFilter, CompanyRepository};
pub use customer::{CustomerRepository, EmailScope};
pub use deal::{DealFilter, DealRepository, WonTotals};
pub use interaction::{FollowUpFilter, InteractionFilter, InteractionRepository, InteractionView};

use shared_kernel::error::{Classified, ErrorKind};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RepoError {
    /// `NOT_FOUND` 404 (handlers may use a narrower code such as `CUSTOMER_NOT_FOUND`).
    #[error("record not found")]
    NotFound,
    /// `ALREADY_EXISTS` 409: a unique key (`email`) is taken among non-deleted rows.
    #[error("{field} already exists")]
    Duplicate { field: &'static str },
    /// 404: a referenced row does not exist (`customer_id` → `CUSTOMER_NOT_FOUND`, user references →
    /// `USER_NOT_FOUND`, anything else `NOT_FOUND`).
    #[error("{field} names nothing")]
    MissingReference { field: &'static str },
    /// `CONFLICT` 409: the conditional update matched nothing; the state changed concurrently.
    /// A generic code because the precise one depends on the new state: a handler that wants it
    /// reloads and re-runs the domain operation once, which then either succeeds or fails with the
    /// exact code (`INVALID_STATUS_TRANSITION`, `MOVE_STAGE_FAILED`, `INTERACTION_ALREADY_ENDED`, …).
    #[error("the record changed concurrently")]
    StaleState,
    /// `SERVICE_UNAVAILABLE` 503.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// `INTERNAL_ERROR` 500; the text is for the log, never for the response.
    #[error("storage error: {0}")]
    Unknown(String),
}

impl Classified for RepoError {
    fn kind(&self) -> ErrorKind {
        match self {
            RepoError::NotFound | RepoError::MissingReference { .. } => ErrorKind::NotFound,
            RepoError::Duplicate { .. } | RepoError::StaleState => ErrorKind::Conflict,
            RepoError::Unavailable(_) => ErrorKind::Unavailable,
            RepoError::Unknown(_) => ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            RepoError::NotFound => "NOT_FOUND",
            RepoError::Duplicate { .. } => "ALREADY_EXISTS",
            RepoError::MissingReference { field: "customer_id" } => "CUSTOMER_NOT_FOUND",
            RepoError::MissingReference { field: "user_id" | "assigned_to" | "created_by" | "attendees" } => {
                "USER_NOT_FOUND"
            }
            RepoError::MissingReference { .. } => "NOT_FOUND",
            RepoError::StaleState => "CONFLICT",
            RepoError::Unavailable(_) => "SERVICE_UNAVAILABLE",
            RepoError::Unknown(_) => "INTERNAL_ERROR",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_kinds() {
        let cases = [
            (RepoError::NotFound, ErrorKind::NotFound, "NOT_FOUND"),
            (RepoError::Duplicate { field: "email" }, ErrorKind::Conflict, "ALREADY_EXISTS"),
            (RepoError::MissingReference { field: "customer_id" }, ErrorKind::NotFound, "CUSTOMER_NOT_FOUND"),
            (RepoError::MissingReference { field: "assigned_to" }, ErrorKind::NotFound, "USER_NOT_FOUND"),
            (RepoError::MissingReference { field: "company_id" }, ErrorKind::NotFound, "NOT_FOUND"),
            (RepoError::StaleState, ErrorKind::Conflict, "CONFLICT"),
            (RepoError::Unavailable("pool timeout".into()), ErrorKind::Unavailable, "SERVICE_UNAVAILABLE"),
            (RepoError::Unknown("boom".into()), ErrorKind::Internal, "INTERNAL_ERROR"),
        ];
        for (error, kind, code) in cases {
            assert_eq!((error.kind(), error.code()), (kind, code), "{error}");
        }
    }

    /// The traits must stay usable as `Arc<dyn …>`.
    #[test]
    fn traits_are_object_safe() {
        fn takes(
            _: Option<std::sync::Arc<dyn CustomerRepository>>,
            _: Option<std::sync::Arc<dyn DealRepository>>,
            _: Option<std::sync::Arc<dyn InteractionRepository>>,
            _: Option<std::sync::Arc<dyn CompanyRepository>>,
        ) {
        }
        takes(None, None, None, None);
    }
}
