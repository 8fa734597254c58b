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
    // migrations/2026-11-28-000027_purchasing_transfers
    ("suppliers_currency_fkey", "currency"),
    ("products_supplier_id_fkey", "supplier_id"),
    ("purchase_orders_number_key", "po_number"),
    ("purchase_orders_supplier_id_fkey", "supplier_id"),
    ("purchase_orders_location_id_fkey", "location_id"),
    ("purchase_orders_currency_fkey", "currency"),
    ("purchase_orders_created_by_fkey", "created_by"),
    ("purchase_order_lines_product_id_fkey", "product_id"),
    ("purchase_order_lines_received_check", "quantity_received"),
    ("transfers_number_key", "transfer_number"),
    ("transfers_from_location_id_fkey", "from_location_id"),
    ("transfers_to_location_id_fkey", "to_location_id"),
    ("transfers_created_by_fkey", "created_by"),
    ("transfers_locations_differ_check", "to_location_id"),
    ("transfer_lines_product_id_fkey", "product_id"),
    ("transfer_lines_product_key", "product_id"),
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
        // The conditional receipt should have caught it: never more than was ordered.
        StorageError::Conflict { field: "quantity_received" } => RepoError::Storage(StorageError::Stale),
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
