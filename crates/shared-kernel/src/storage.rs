//! The one storage error every context's repository ports return.
//!
//! Adapters translate whatever their database says into these six meanings
//! (the PostgreSQL adapter through one mapper driven by each context's table
//! of constraint names); the HTTP layer turns them into a status and a code in
//! one place. A business refusal that a conditional statement finds (stock
//! reserved, a banned profile) is not a storage error: ports that can refuse
//! return their context's own error, which wraps this one.

use crate::error::{Classified, ErrorKind};

/// Why a repository port failed, in one of six meanings every adapter must keep apart; each maps to
/// one [`ErrorKind`] and wire code ([`Classified`]), as docs/conventions.md tabulates.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StorageError {
    /// No such record (soft-deleted records do not exist). 404 `NOT_FOUND`,
    /// or the caller's narrower code (`ORDER_NOT_FOUND`).
    #[error("not found")]
    NotFound,
    /// A constraint with a name refused the write: a unique key is taken, or a
    /// named `CHECK` held; `field` is the request field it guards. 409 `ALREADY_EXISTS`.
    #[error("{field} already exists")]
    Conflict {
        /// The request field whose value is taken (`email`, `sku`, `user_id`, ...).
        field: &'static str,
    },
    /// A conditional write (compare-and-set on a version or state) matched no
    /// row: the record changed since it was read. Callers reload and re-decide
    /// (`crate::application::until_settled`), else 409 `CONFLICT`.
    #[error("the record changed concurrently")]
    Stale,
    /// A referenced record does not exist; `field` names the reference. 400
    /// `VALIDATION_ERROR` for reference data (`country`, `currency`, ...), 404
    /// with the entity's code for records (`customer_id` → `CUSTOMER_NOT_FOUND`).
    #[error("{field} names nothing")]
    MissingReference {
        /// The request field holding the dangling reference (`country`, `customer_id`, ...); see
        /// [`REFERENCE_DATA_FIELDS`] for those that are validation errors.
        field: &'static str,
    },
    /// The database cannot be reached. 503; the text is for the log only.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// Anything else. 500; the text is for the log only.
    #[error("storage error: {0}")]
    Unknown(String),
}

/// Request fields whose values name reference data rather than records: a
/// missing one is a validation error, not a missing resource.
pub const REFERENCE_DATA_FIELDS: &[&str] = &["country", "address.country", "currency", "language", "timezone"];

/// Request fields that name users.
const USER_FIELDS: &[&str] = &["user_id", "assigned_to", "created_by", "attendees", "attendee_id"];

impl Classified for StorageError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::NotFound => ErrorKind::NotFound,
            Self::Conflict { .. } | Self::Stale => ErrorKind::Conflict,
            Self::MissingReference { field } if REFERENCE_DATA_FIELDS.contains(field) => ErrorKind::Validation,
            Self::MissingReference { .. } => ErrorKind::NotFound,
            Self::Unavailable(_) => ErrorKind::Unavailable,
            Self::Unknown(_) => ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::NotFound => "NOT_FOUND",
            Self::Conflict { .. } => "ALREADY_EXISTS",
            Self::Stale => "CONFLICT",
            Self::MissingReference { field } if REFERENCE_DATA_FIELDS.contains(field) => "VALIDATION_ERROR",
            Self::MissingReference { field: "customer_id" } => "CUSTOMER_NOT_FOUND",
            Self::MissingReference { field } if USER_FIELDS.contains(field) => "USER_NOT_FOUND",
            Self::MissingReference { .. } => "NOT_FOUND",
            Self::Unavailable(_) => "SERVICE_UNAVAILABLE",
            Self::Unknown(_) => "INTERNAL_ERROR",
        }
    }
}

impl StorageError {
    /// The request field the failure concerns, for the error's `details`: `Some` only for
    /// [`Conflict`](Self::Conflict) and [`MissingReference`](Self::MissingReference).
    pub fn field(&self) -> Option<&'static str> {
        match self {
            Self::Conflict { field } | Self::MissingReference { field } => Some(field),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_meaning_has_its_kind_and_code() {
        let cases = [
            (StorageError::NotFound, ErrorKind::NotFound, "NOT_FOUND"),
            (StorageError::Conflict { field: "email" }, ErrorKind::Conflict, "ALREADY_EXISTS"),
            (StorageError::Stale, ErrorKind::Conflict, "CONFLICT"),
            (StorageError::MissingReference { field: "country" }, ErrorKind::Validation, "VALIDATION_ERROR"),
            (StorageError::MissingReference { field: "customer_id" }, ErrorKind::NotFound, "CUSTOMER_NOT_FOUND"),
            (StorageError::MissingReference { field: "assigned_to" }, ErrorKind::NotFound, "USER_NOT_FOUND"),
            (StorageError::MissingReference { field: "company_id" }, ErrorKind::NotFound, "NOT_FOUND"),
            (StorageError::Unavailable("down".into()), ErrorKind::Unavailable, "SERVICE_UNAVAILABLE"),
            (StorageError::Unknown("bug".into()), ErrorKind::Internal, "INTERNAL_ERROR"),
        ];
        for (error, kind, code) in cases {
            assert_eq!((error.kind(), error.code()), (kind, code), "{error:?}");
        }
        assert_eq!(StorageError::Conflict { field: "sku" }.field(), Some("sku"));
        assert_eq!(StorageError::Stale.field(), None);
    }
}
