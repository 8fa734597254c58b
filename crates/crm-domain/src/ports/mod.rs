//! Ports: what the customer-management handlers need from storage, as object-safe async traits
//! (`Arc<dyn CustomerRepository>`), and the one error contract every adapter follows.
//!
//! Contract shared by all repositories:
//! - reads never return soft-deleted rows; finds answer `Ok(None)` rather than `NotFound`;
//! - a write to a missing or soft-deleted row is `RepoError::NotFound`;
//! - a state change (`save_*`) is a conditional `UPDATE … WHERE <state> = <expected>` that writes the row,
//!   its history row and its outbox events in one transaction; if it matches nothing although the row
//!   exists, it is `RepoError::Stale` and nothing is written;
//! - unique violations become `Conflict { field }`, foreign-key violations `MissingReference { field }`,
//!   pool/connection failures `Unavailable`, anything else `Unknown` (cause text for the log only).

mod company;
mod customer;
mod deal;
mod interaction;
mod reference;
mod user_customer;
mod users;

pub use company::{CompanyFilter, CompanyRepository};
pub use customer::{CustomerRepository, EmailScope};
pub use deal::{DealFilter, DealRepository, WonTotals};
pub use interaction::{FollowUpFilter, InteractionFilter, InteractionRepository, InteractionView};
pub use reference::{Currencies, PhoneNumbers};
pub use user_customer::{DecideUserCustomer, UserCustomerMatch, UserCustomerPlan, UserCustomers};
pub use users::{UserDirectory, UserStanding};

/// The shared storage error (`shared_kernel::StorageError`): a missing
/// `customer_id` is `CUSTOMER_NOT_FOUND`, a missing user reference
/// `USER_NOT_FOUND`, a stale compare-and-set `Stale` (reload and re-decide).
pub use shared_kernel::StorageError as RepoError;

#[cfg(test)]
mod tests {
    use super::*;

    /// The traits must stay usable as `Arc<dyn …>`.
    #[test]
    fn traits_are_object_safe() {
        fn takes(
            _: Option<std::sync::Arc<dyn CustomerRepository>>,
            _: Option<std::sync::Arc<dyn DealRepository>>,
            _: Option<std::sync::Arc<dyn InteractionRepository>>,
            _: Option<std::sync::Arc<dyn CompanyRepository>>,
            _: Option<std::sync::Arc<dyn UserDirectory>>,
            _: Option<std::sync::Arc<dyn UserCustomers>>,
        ) {
        }
        takes(None, None, None, None, None, None);
    }
}
