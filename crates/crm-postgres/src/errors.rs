//! Diesel and pool failures as the customer-management `RepoError`, by constraint name.

use crm_domain::RepoError;
use diesel::result::Error as DieselError;
pub(crate) use postgres_toolkit::db::contains_pattern;
pub(crate) use postgres_toolkit::storage::corrupt;
use postgres_toolkit::storage::Constraints;

/// The request field each constraint of `migrations/…_crm` guards.
pub static CONSTRAINTS: Constraints = Constraints::new(&[
    ("customers_email_key", "email"),
    ("customers_company_email_key", "email"),
    ("customers_user_key", "user_id"),
    ("customers_user_id_fkey", "user_id"),
    ("customers_company_id_fkey", "company_id"),
    ("interactions_company_id_fkey", "company_id"),
    ("customers_assigned_to_fkey", "assigned_to"),
    ("deals_assigned_to_fkey", "assigned_to"),
    ("deals_customer_id_fkey", "customer_id"),
    ("interactions_customer_id_fkey", "customer_id"),
    ("interactions_created_by_fkey", "created_by"),
]);

pub(crate) fn from_diesel(error: DieselError) -> RepoError {
    CONSTRAINTS.map(error)
}

/// What a conditional update that matched nothing means, from whether its row is still live (asked
/// on the caller's connection: taking a second one while holding the first can starve the pool):
/// changed meanwhile (`Stale`) or gone (`NotFound`).
pub(crate) fn stale_or_missing(row_is_live: Result<bool, DieselError>) -> RepoError {
    match row_is_live {
        Ok(true) => RepoError::Stale,
        Ok(false) => RepoError::NotFound,
        Err(error) => from_diesel(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_name_their_fields() {
        assert_eq!(CONSTRAINTS.field(Some("customers_company_email_key")), Some("email"));
        assert_eq!(CONSTRAINTS.field(Some("deals_customer_id_fkey")), Some("customer_id"));
        assert_eq!(CONSTRAINTS.field(Some("interactions_created_by_fkey")), Some("created_by"));
        assert_eq!(contains_pattern("50%_a\\"), "%50\\%\\_a\\\\%");
    }
}
