//! The warehouse's constraint names, for the one diesel mapper.

use diesel::result::Error as DieselError;
pub(crate) use postgres_toolkit::db::contains_pattern_lower as contains_pattern;
use postgres_toolkit::storage::Constraints;
use shared_kernel::StorageError;
use warehouse_domain::{RepoError, WarehouseError};

/// The request field each constraint of `migrations/…_orders_warehouse` guards.
pub static CONSTRAINTS: Constraints = Constraints::new(&[
    ("products_sku_key", "sku"),
    ("products_currency_fkey", "currency"),
    ("locations_code_key", "code"),
    ("locations_country_fkey", "country"),
    ("inventory_product_location_key", "location_id"),
    ("inventory_product_id_fkey", "product_id"),
    ("inventory_location_id_fkey", "location_id"),
    ("inventory_reserved_within_on_hand_check", "quantity_reserved"),
]);

/// A stored value the `CHECK` constraints should have made impossible.
pub(crate) fn corrupt(what: &str, value: &str) -> RepoError {
    RepoError::Storage(postgres_toolkit::storage::corrupt(what, value))
}

/// A transaction body's failure in this context.
pub(crate) type TxError = postgres_toolkit::storage::TxError<RepoError>;

pub(crate) fn from_diesel(error: DieselError) -> RepoError {
    match CONSTRAINTS.map(error) {
        // The compare-and-set should have caught it; the CHECK is the last line of defence.
        StorageError::Conflict { field: "quantity_reserved" } => {
            RepoError::Refused(WarehouseError::InsufficientStock { requested: 0, available: 0 })
        }
        other => RepoError::Storage(other),
    }
}

/// Resolves a transaction's failure through this context's constraints.
pub(crate) fn tx_error(error: TxError) -> RepoError {
    match error {
        postgres_toolkit::storage::TxError::Db(error) => from_diesel(error),
        postgres_toolkit::storage::TxError::Refused(error) => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_name_their_fields() {
        assert_eq!(CONSTRAINTS.field(Some("products_sku_key")), Some("sku"));
        assert_eq!(CONSTRAINTS.field(Some("inventory_product_location_key")), Some("location_id"));
        assert_eq!(CONSTRAINTS.field(None), None);
        assert_eq!(contains_pattern("A%_b"), "%a\\%\\_b%");
    }
}
