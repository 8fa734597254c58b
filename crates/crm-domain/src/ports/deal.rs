//! Deal storage port.

use std::collections::BTreeMap;

use async_trait::async_trait;
use shared_kernel::{CurrencyCode, Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::RepoError;
use crate::deal::{Deal, DealCreated, StageTransition};
use crate::enums::DealStage;

/// `GET /deals` and `GET /deals/stage/:stage`; all `None` lists every deal. Newest first, then `id DESC`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DealFilter {
    /// Only deals in this stage.
    pub stage: Option<DealStage>,
    /// Only deals with this customer.
    pub customer_id: Option<Uuid>,
    /// Only deals of this sales rep.
    pub assigned_to: Option<Uuid>,
}

/// `GET /deals/stats/won`: the count and the sum of won deals per currency (cents).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WonTotals {
    /// How many deals are won, every currency together.
    pub count: i64,
    /// The sum of their values per currency, in cents (saturating at `i64::MAX`); no conversion.
    pub by_currency: BTreeMap<CurrencyCode, i64>,
}

/// Deals in storage, under the contract of [`crate::ports`].
#[async_trait]
pub trait DealRepository: Send + Sync {
    /// Inserts the deal, its first history row and its events in one transaction.
    /// `MissingReference` for `customer_id` or `assigned_to`.
    async fn create(&self, created: &DealCreated) -> Result<Deal, RepoError>;

    /// The live deal `id`, if any.
    async fn find_by_id(&self, id: Uuid) -> Result<Option<Deal>, RepoError>;

    /// One page of the live deals `filter` selects.
    async fn list(&self, filter: &DealFilter, page: PageRequest) -> Result<Page<Deal>, RepoError>;

    /// Writes `name`, `expected_close_date`, `value`, `currency`, `tags`, `updated_at`, only over
    /// `deal.version` (the version it was read at) and while the stored stage is still open; `Stale` if
    /// the row changed meanwhile (the handler re-reads: a deal closed meanwhile is `DEAL_CLOSED`).
    async fn update_open(&self, deal: &Deal) -> Result<Deal, RepoError>;

    /// `UPDATE … SET stage, probability, actual_close_date, loss_reason, updated_at WHERE id = … AND
    /// stage = transition.from`, plus the history row and the events, in one transaction. `Stale` if
    /// the stage moved meanwhile.
    async fn save_stage_change(&self, transition: &StageTransition) -> Result<Deal, RepoError>;

    /// Sets `deleted_at`; `NotFound` if missing or already deleted.
    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError>;

    /// Non-deleted deals per stage, every stage present (zero when empty), in `DealStage::ALL` order.
    async fn pipeline_counts(&self) -> Result<Vec<(DealStage, i64)>, RepoError>;

    /// Won, non-deleted deals of non-deleted customers.
    async fn won_totals(&self) -> Result<WonTotals, RepoError>;
}
