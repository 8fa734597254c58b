//! Customer storage port.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::RepoError;
use crate::customer::{Customer, CustomerCreated, StatusTransition, TierChange};
use crate::email::Email;
use crate::query::CustomerFilter;

/// Which customers an email lookup considers (emails are unique per company, or globally without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmailScope {
    /// Any company or none; the newest match when several share the email.
    Newest,
    /// Only customers of this company.
    Company(Uuid),
    /// Only customers without a company (the registration subscriber's lookup).
    NoCompany,
}

/// Customers in storage, under the contract of [`crate::ports`].
#[async_trait]
pub trait CustomerRepository: Send + Sync {
    /// Inserts the customer, its first history row and its events in one transaction.
    /// `Conflict { field: "email" }`; `MissingReference` for `company_id`, `assigned_to`, `user_id`.
    async fn create(&self, created: &CustomerCreated) -> Result<Customer, RepoError>;

    /// Several creations, each answered as [`CustomerRepository::create`] answers it, in `batch`'s
    /// order. An adapter may write them together (a bulk import's batch: one statement per table
    /// instead of one per customer); this default writes them one by one.
    async fn create_many(&self, batch: &[CustomerCreated]) -> Vec<Result<Customer, RepoError>> {
        let mut answers = Vec::with_capacity(batch.len());
        for created in batch {
            answers.push(self.create(created).await);
        }
        answers
    }

    /// The live customer `id`, if any.
    async fn find_by_id(&self, id: Uuid) -> Result<Option<Customer>, RepoError>;

    /// Whether the live customer `id` exists: one read (another context's reference check).
    async fn exists(&self, id: Uuid) -> Result<bool, RepoError> {
        Ok(self.find_by_id(id).await?.is_some())
    }

    /// The live customer with this email in `scope`, if any. Case-insensitive (emails are stored lower-cased).
    async fn find_by_email(&self, email: &Email, scope: EmailScope) -> Result<Option<Customer>, RepoError>;

    /// The customer linked to a user account (registration subscriber idempotency).
    async fn find_by_user_id(&self, user_id: Uuid) -> Result<Option<Customer>, RepoError>;

    /// Filtered, sorted by `filter.sort` then `id DESC`.
    async fn list(&self, filter: &CustomerFilter, page: PageRequest) -> Result<Page<Customer>, RepoError>;

    /// Writes the plain fields: `user_id`, `name`, `phone`, `source`, `assigned_to`, `tags`, `updated_at`.
    /// Never status, tier or `churned_at` (those only change through the two methods below).
    /// Written only over `customer.version` (the version it was read at): `Stale` if the row changed
    /// meanwhile, `NotFound` if it is gone.
    async fn update(&self, customer: &Customer) -> Result<Customer, RepoError>;

    /// `UPDATE … SET status, churned_at, updated_at WHERE id = … AND status = transition.from`, plus the
    /// history row and the events, in one transaction. `Stale` if the status moved meanwhile.
    async fn save_transition(&self, transition: &StatusTransition) -> Result<Customer, RepoError>;

    /// `UPDATE … SET tier, updated_at WHERE id = … AND tier = change.from`, plus the events, in one
    /// transaction. `Stale` if the tier moved meanwhile (two upgrades never end in a downgrade).
    async fn save_tier_change(&self, change: &TierChange) -> Result<Customer, RepoError>;

    /// Sets `deleted_at`; `NotFound` if missing or already deleted. Frees the email for reuse.
    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError>;
}
