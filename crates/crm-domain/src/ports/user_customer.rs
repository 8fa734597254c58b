//! The registration port: a registered user's customer, settled once per delivery of the event.

use async_trait::async_trait;
use uuid::Uuid;

use super::RepoError;
use crate::customer::CustomerCreated;
use crate::email::Email;

/// What storage holds for a newly registered user, read inside the settling transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserCustomerMatch {
    /// A live customer already belongs to the user.
    Linked,
    /// No customer belongs to the user, but this live customer without a company has their email.
    SameEmail {
        /// The customer to link.
        customer_id: Uuid,
    },
    /// Neither.
    Neither,
}

/// What to write for a registered user, as the use case decided it from a [`UserCustomerMatch`].
#[derive(Debug, Clone, PartialEq)]
pub enum UserCustomerPlan {
    /// Nothing to write.
    Nothing,
    /// Link the existing customer to the user (`user_id`, `updated_at`).
    Link {
        /// The customer to link.
        customer_id: Uuid,
        /// The user it becomes.
        user_id: Uuid,
        /// When (its `updated_at`).
        at: time::OffsetDateTime,
    },
    /// Insert this new customer, its first history row and its events.
    Create(Box<CustomerCreated>),
}

/// How the use case decides, handed to the port so it runs inside the port's transaction.
pub type DecideUserCustomer<'a> = &'a (dyn Fn(UserCustomerMatch) -> UserCustomerPlan + Send + Sync);

/// Customers made from registered users, under the contract of [`crate::ports`].
#[async_trait]
pub trait UserCustomers: Send + Sync {
    /// In one transaction: marks `delivery` (the event's id) handled, and if it already was, does
    /// nothing and answers `None`; else reads what the user `user_id` with `email` has
    /// ([`UserCustomerMatch`]), writes what `decide` makes of it and answers that plan. A `Link` whose
    /// customer was deleted or given a company meanwhile is `Stale` (nothing is written, the delivery
    /// stays unhandled); a customer already linked to the user is `Conflict { field: "user_id" }`.
    async fn settle_registration(
        &self,
        delivery: Uuid,
        user_id: Uuid,
        email: &Email,
        decide: DecideUserCustomer<'_>,
    ) -> Result<Option<UserCustomerPlan>, RepoError>;
}
