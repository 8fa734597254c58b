//! Turning diesel and pool errors into repository errors, once.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use identity_domain::ports::RepoError;

use crate::DbError;

/// Maps a unique or foreign-key violation to the field it concerns, using
/// the constraint naming convention `<table>_<field>_key` / `_fkey`.
pub fn field_of_constraint(constraint: Option<&str>) -> &'static str {
    let Some(name) = constraint else { return "resource" };
    // Known constraints first; anything else is reported generically.
    const KNOWN: [(&str, &str); 12] = [
        ("email", "email"),
        ("name", "name"),
        ("sku", "sku"),
        ("code", "code"),
        ("user", "user_id"),
        ("company", "company_id"),
        ("customer", "customer_id"),
        ("country", "country"),
        ("timezone", "timezone"),
        ("language", "language"),
        ("primary", "is_primary"),
        ("product", "product_id"),
    ];
    KNOWN.iter().find(|(needle, _)| name.contains(needle)).map_or("resource", |(_, field)| field)
}

pub fn from_diesel(error: DieselError) -> RepoError {
    match error {
        DieselError::NotFound => RepoError::NotFound,
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            RepoError::Duplicate { field: field_of_constraint(info.constraint_name()) }
        }
        DieselError::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, info) => {
            RepoError::MissingReference { field: field_of_constraint(info.constraint_name()) }
        }
        DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection, info) => {
            RepoError::Unavailable(info.message().to_owned())
        }
        other => RepoError::Unknown(other.to_string()),
    }
}

pub fn from_db(error: DbError) -> RepoError {
    match error {
        DbError::Unavailable(message) => RepoError::Unavailable(message),
        DbError::Query(error) => from_diesel(error),
        other => RepoError::Unknown(other.to_string()),
    }
}

impl From<DbError> for RepoError {
    fn from(error: DbError) -> Self {
        from_db(error)
    }
}
