//! The order context's constraint names, for the one diesel mapper.

use diesel::result::Error as DieselError;
use order_domain::RepoError;
pub(crate) use postgres_toolkit::storage::corrupt;
use postgres_toolkit::storage::Constraints;

/// The request field each constraint of `migrations/…_orders_warehouse` guards.
pub static CONSTRAINTS: Constraints = Constraints::new(&[
    ("orders_order_number_key", "order_number"),
    ("orders_customer_id_fkey", "customer_id"),
    ("orders_company_id_fkey", "company_id"),
    ("orders_currency_fkey", "currency"),
    ("order_lines_product_id_fkey", "product_id"),
]);

/// A transaction body's failure in this context.
pub(crate) type TxError = postgres_toolkit::storage::TxError<RepoError>;

pub(crate) fn from_diesel(error: DieselError) -> RepoError {
    CONSTRAINTS.map(error)
}

/// Resolves a transaction's failure through this context's constraints.
pub(crate) fn tx_error(error: TxError) -> RepoError {
    error.resolve(&CONSTRAINTS)
}
