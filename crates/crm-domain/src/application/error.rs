//! The one error every customer-management use case answers with.

use shared_kernel::error::{Classified, ErrorKind};
use shared_kernel::StorageError;

use crate::company::CompanyError;
use crate::customer::CustomerError;
use crate::deal::DealError;
use crate::interaction::InteractionError;

/// Why a use case refused or failed: an aggregate's own refusal, a record it works on or names that
/// does not exist, or storage. Each variant has one fixed code (docs/customer-management.md: missing
/// customers are `CUSTOMER_NOT_FOUND`; missing companies, deals and interactions `NOT_FOUND`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CrmError {
    /// A customer rule refused the change.
    #[error(transparent)]
    Customer(#[from] CustomerError),
    /// A company rule refused the change.
    #[error(transparent)]
    Company(#[from] CompanyError),
    /// A deal rule refused the change.
    #[error(transparent)]
    Deal(#[from] DealError),
    /// An interaction rule refused the change.
    #[error(transparent)]
    Interaction(#[from] InteractionError),
    /// The customer worked on or named does not exist (or is deleted).
    #[error("no such customer")]
    CustomerNotFound,
    /// The company worked on, or named by `field` (`company_id`), does not exist.
    #[error("no such company")]
    CompanyNotFound {
        /// The request field that named it, when the company is a reference rather than the subject.
        field: Option<&'static str>,
    },
    /// The deal worked on does not exist.
    #[error("no such deal")]
    DealNotFound,
    /// The interaction worked on does not exist.
    #[error("no such interaction")]
    InteractionNotFound,
    /// The user `field` names does not exist (or, for a sales rep, is not active).
    #[error("no such active user")]
    UserNotFound {
        /// The request field that named the user (`assigned_to`, `user_id`, `attendee_id`).
        field: &'static str,
    },
    /// The phone is not an E.164 number (`+` and a number valid for its country code): 400
    /// `INVALID_PHONE` on `phone`.
    #[error("phone must be a valid international number starting with +")]
    InvalidPhone,
    /// The currency is not an active one of the reference data: 400 `VALIDATION_ERROR` on `currency`.
    #[error("must be an active ISO 4217 currency code")]
    InactiveCurrency,
    /// Storage failed, or a conditional write kept losing its race (`Stale`).
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl CrmError {
    /// The request field the error concerns, for `details`; storage errors name theirs themselves.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            CrmError::Customer(error) => error.field(),
            CrmError::Company(error) => error.field(),
            CrmError::Deal(error) => error.field(),
            CrmError::Interaction(error) => error.field(),
            CrmError::CompanyNotFound { field } => *field,
            CrmError::UserNotFound { field } => Some(field),
            CrmError::CustomerNotFound | CrmError::DealNotFound | CrmError::InteractionNotFound => None,
            CrmError::InvalidPhone => Some("phone"),
            CrmError::InactiveCurrency => Some("currency"),
            CrmError::Storage(error) => error.field(),
        }
    }
}

impl Classified for CrmError {
    fn kind(&self) -> ErrorKind {
        match self {
            CrmError::Customer(error) => error.kind(),
            CrmError::Company(error) => error.kind(),
            CrmError::Deal(error) => error.kind(),
            CrmError::Interaction(error) => error.kind(),
            CrmError::CustomerNotFound
            | CrmError::CompanyNotFound { .. }
            | CrmError::DealNotFound
            | CrmError::InteractionNotFound
            | CrmError::UserNotFound { .. } => ErrorKind::NotFound,
            CrmError::InvalidPhone | CrmError::InactiveCurrency => ErrorKind::Validation,
            CrmError::Storage(error) => error.kind(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            CrmError::Customer(error) => error.code(),
            CrmError::Company(error) => error.code(),
            CrmError::Deal(error) => error.code(),
            CrmError::Interaction(error) => error.code(),
            CrmError::CustomerNotFound => "CUSTOMER_NOT_FOUND",
            CrmError::CompanyNotFound { .. } | CrmError::DealNotFound | CrmError::InteractionNotFound => "NOT_FOUND",
            CrmError::UserNotFound { .. } => "USER_NOT_FOUND",
            CrmError::InvalidPhone => "INVALID_PHONE",
            CrmError::InactiveCurrency => "VALIDATION_ERROR",
            CrmError::Storage(error) => error.code(),
        }
    }
}

/// A storage error of a write to the record a use case works on, with its absence as `missing`.
pub(crate) fn or_missing(missing: CrmError) -> impl FnOnce(StorageError) -> CrmError {
    move |error| match error {
        StorageError::NotFound => missing,
        other => CrmError::Storage(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_records_have_their_own_codes() {
        assert_eq!(CrmError::CustomerNotFound.code(), "CUSTOMER_NOT_FOUND");
        assert_eq!(CrmError::DealNotFound.code(), "NOT_FOUND");
        let rep = CrmError::UserNotFound { field: "assigned_to" };
        assert_eq!((rep.code(), rep.field(), rep.kind()), ("USER_NOT_FOUND", Some("assigned_to"), ErrorKind::NotFound));
        assert_eq!(CrmError::CompanyNotFound { field: Some("company_id") }.field(), Some("company_id"));
        assert_eq!(or_missing(CrmError::DealNotFound)(StorageError::NotFound), CrmError::DealNotFound);
        assert_eq!(or_missing(CrmError::DealNotFound)(StorageError::Stale), CrmError::Storage(StorageError::Stale));
    }
}
