//! Interaction storage port.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::RepoError;
use crate::enums::InteractionType;
use crate::interaction::Interaction;

/// `GET /interactions[/customer/:id|/company/:id|/type/:type|/created-by/:id]`.
/// Ordered by `started_at DESC`, then `id DESC`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InteractionFilter {
    /// Only interactions with this customer.
    pub customer_id: Option<Uuid>,
    /// Only interactions concerning this company.
    pub company_id: Option<Uuid>,
    /// Only interactions of this channel.
    pub interaction_type: Option<InteractionType>,
    /// Only interactions logged by this user.
    pub created_by: Option<Uuid>,
}

/// `GET /interactions/follow-ups`: `follow_up_required = true`, optionally due before an instant or
/// created by a user; ordered by `follow_up_date ASC NULLS LAST`, then `id`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FollowUpFilter {
    /// Only follow-ups dated before this instant.
    pub due_before: Option<OffsetDateTime>,
    /// Only interactions logged by this user.
    pub created_by: Option<Uuid>,
}

/// A list row: the interaction plus the names the spec resolves by join.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InteractionView {
    /// The interaction itself.
    pub interaction: Interaction,
    /// The customer's name.
    pub customer_name: String,
    /// The company's name, when the interaction concerns one.
    pub company_name: Option<String>,
    /// The name of the user who logged it, filled by the use case from the user directory
    /// (storage leaves it `None`); `None` when no user matches `created_by`.
    pub created_by_name: Option<String>,
}

/// Interactions in storage, under the contract of [`crate::ports`].
#[async_trait]
pub trait InteractionRepository: Send + Sync {
    /// Inserts an interaction made by [`Interaction::new`]. `MissingReference` for `customer_id`,
    /// `company_id`, `created_by` or `attendees`.
    async fn create(&self, interaction: &Interaction) -> Result<Interaction, RepoError>;

    /// The live interaction `id`, if any.
    async fn find_by_id(&self, id: Uuid) -> Result<Option<Interaction>, RepoError>;

    /// One page of the live interactions `filter` selects, with their names.
    async fn list(&self, filter: &InteractionFilter, page: PageRequest) -> Result<Page<InteractionView>, RepoError>;

    /// One page of the live interactions that need a follow-up, as [`FollowUpFilter`] orders them.
    async fn follow_ups(&self, filter: &FollowUpFilter, page: PageRequest) -> Result<Page<InteractionView>, RepoError>;

    /// Writes `subject`, `description`, `outcome`, the follow-up fields, `attendees`, `updated_at` over
    /// `interaction.version` (the version it was read at): `Stale` if the row changed meanwhile,
    /// `NotFound` if it is gone. Never `ended_at`/`duration_sec`.
    async fn update(&self, interaction: &Interaction) -> Result<Interaction, RepoError>;

    /// Writes `ended_at`, `duration_sec`, `updated_at` `WHERE ended_at IS NULL`; `Stale` if it was
    /// ended meanwhile (the handler answers `INTERACTION_ALREADY_ENDED`).
    async fn save_end(&self, interaction: &Interaction) -> Result<Interaction, RepoError>;

    /// Sets `deleted_at`; `NotFound` if missing or already deleted.
    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError>;
}
