//! Diesel and pool failures as the order `RepoError`, by constraint name.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use order_domain::RepoError;

pub(crate) fn from_diesel(error: DieselError) -> RepoError {
    match error {
        DieselError::NotFound => RepoError::NotFound,
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            let field = match info.constraint_name() {
                Some("orders_order_number_key") => "order_number",
                _ => "resource",
            };
            RepoError::Duplicate { field }
        }
        DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection, info) => {
            RepoError::Unavailable(info.message().to_owned())
        }
        other => RepoError::Unknown(other.to_string()),
    }
}

/// What a transaction closure can fail with: a database error (rolls back) or a decided refusal.
#[derive(Debug)]
pub(crate) enum TxError {
    Db(DieselError),
    Repo(RepoError),
}

impl From<DieselError> for TxError {
    fn from(error: DieselError) -> Self {
        Self::Db(error)
    }
}

impl From<TxError> for RepoError {
    fn from(error: TxError) -> Self {
        match error {
            TxError::Db(e) => from_diesel(e),
            TxError::Repo(e) => e,
        }
    }
}

/// A stored value the CHECK constraints should have made impossible.
pub(crate) fn corrupt(what: &str, value: &str) -> RepoError {
    RepoError::Unknown(format!("stored {what} '{value}' is not valid"))
}
