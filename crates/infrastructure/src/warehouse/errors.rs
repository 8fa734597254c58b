//! Diesel and pool failures as the warehouse `RepoError`, by constraint name.

pub(crate) use crate::db::contains_pattern_lower as contains_pattern;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use warehouse_domain::{RepoError, WarehouseError};

/// The request field a unique constraint of `migrations/…_orders_warehouse` guards.
fn field_of(constraint: Option<&str>) -> &'static str {
    match constraint.unwrap_or_default() {
        "products_sku_key" => "sku",
        "locations_code_key" => "code",
        "inventory_product_location_key" => "location_id",
        _ => "resource",
    }
}

pub(crate) fn from_diesel(error: DieselError) -> RepoError {
    match error {
        DieselError::NotFound => RepoError::NotFound,
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            RepoError::Duplicate { field: field_of(info.constraint_name()) }
        }
        DieselError::DatabaseError(DatabaseErrorKind::CheckViolation, info)
            if info.constraint_name() == Some("inventory_reserved_within_on_hand_check") =>
        {
            // The compare-and-set should have caught it; the CHECK is the last line of defence.
            RepoError::Domain(WarehouseError::InsufficientStock { requested: 0, available: 0 })
        }
        DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection, info) => {
            RepoError::Unavailable(info.message().to_owned())
        }
        other => RepoError::Unknown(other.to_string()),
    }
}

/// What a transaction closure can fail with: a database error or a decided refusal (both roll back).
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

impl From<RepoError> for TxError {
    fn from(error: RepoError) -> Self {
        Self::Repo(error)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_name_their_fields() {
        assert_eq!(field_of(Some("products_sku_key")), "sku");
        assert_eq!(field_of(Some("inventory_product_location_key")), "location_id");
        assert_eq!(field_of(None), "resource");
        assert_eq!(contains_pattern("A%_b"), "%a\\%\\_b%");
    }
}
