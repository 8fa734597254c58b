//! Customer status moves and tier upgrades. Each is saved conditionally on the state it started from;
//! if another writer moved the customer meanwhile, the move is decided again on the fresh state.

use shared_kernel::application::{until_settled, Attempt};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{CrmError, CustomerService};
use crate::customer::{Customer, CustomerError, StatusTransition};
use crate::enums::{CustomerStatus, Tier};
use crate::RepoError;

impl CustomerService {
    /// lead → prospect.
    #[tracing::instrument(skip_all, fields(customer_id = %id))]
    pub async fn qualify(&self, id: Uuid) -> Result<Customer, CrmError> {
        self.transition(id, |customer, now| customer.qualify(now)).await
    }

    /// prospect → customer (also `customer.converted`).
    #[tracing::instrument(skip_all, fields(customer_id = %id))]
    pub async fn convert(&self, id: Uuid) -> Result<Customer, CrmError> {
        self.transition(id, |customer, now| customer.convert(now)).await
    }

    /// customer → churned, with an optional reason.
    #[tracing::instrument(skip_all, fields(customer_id = %id))]
    pub async fn churn(&self, id: Uuid, reason: Option<String>) -> Result<Customer, CrmError> {
        self.transition(id, |customer, now| customer.churn(reason.clone(), now)).await
    }

    /// churned → prospect.
    #[tracing::instrument(skip_all, fields(customer_id = %id))]
    pub async fn reactivate(&self, id: Uuid) -> Result<Customer, CrmError> {
        self.transition(id, |customer, now| customer.reactivate(now)).await
    }

    /// The one move that leads to `target`, with the reason kept in the history.
    #[tracing::instrument(skip_all, fields(customer_id = %id, target = %target.as_str()))]
    pub async fn set_status(
        &self,
        id: Uuid,
        target: CustomerStatus,
        reason: Option<String>,
    ) -> Result<Customer, CrmError> {
        self.transition(id, |customer, now| customer.transition_to(target, reason.clone(), now)).await
    }

    /// Upgrades the tier (`INVALID_TIER_CHANGE` for anything else).
    #[tracing::instrument(skip_all, fields(customer_id = %id, tier = %tier.as_str()))]
    pub async fn change_tier(&self, id: Uuid, tier: Tier) -> Result<Customer, CrmError> {
        until_settled(|| async move {
            let customer = self.get(id).await?;
            let change = customer.change_tier(tier, self.clock.now())?;
            saved_or(self.customers.save_tier_change(&change).await)
        })
        .await
    }

    /// Loads, moves and saves; on a concurrent change, decides again on the fresh state.
    async fn transition<F>(&self, id: Uuid, step: F) -> Result<Customer, CrmError>
    where
        F: Fn(&Customer, OffsetDateTime) -> Result<StatusTransition, CustomerError>,
    {
        let step = &step;
        until_settled(|| async move {
            let customer = self.get(id).await?;
            let moved = step(&customer, self.clock.now())?;
            saved_or(self.customers.save_transition(&moved).await)
        })
        .await
    }
}

/// A conditional save of the customer as an attempt; its absence is `CustomerNotFound`.
fn saved_or(saved: Result<Customer, RepoError>) -> Result<Attempt<Customer>, CrmError> {
    match saved {
        Err(RepoError::NotFound) => Err(CrmError::CustomerNotFound),
        saved => Attempt::of(saved),
    }
}
