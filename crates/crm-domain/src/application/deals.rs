//! Deal use cases: create, edit an open deal, move through the stages, delete.

use std::sync::Arc;

use shared_kernel::application::{settle_edit, until_settled, Attempt, Clock};
use shared_kernel::CurrencyCode;
use time::{Date, OffsetDateTime};
use uuid::Uuid;

use super::{active_currency, active_user, CrmError, CrmPorts};
use crate::deal::{Deal, DealError, NewDeal, StageTransition};
use crate::enums::DealStage;
use crate::ports::{Currencies, CustomerRepository, DealRepository, UserDirectory};
use crate::RepoError;

/// The deal use cases.
#[derive(Clone)]
pub struct DealService {
    deals: Arc<dyn DealRepository>,
    customers: Arc<dyn CustomerRepository>,
    users: Arc<dyn UserDirectory>,
    currencies: Arc<dyn Currencies>,
    clock: Arc<dyn Clock>,
}

impl DealService {
    /// The service over `ports`.
    pub fn new(ports: &CrmPorts) -> Self {
        Self {
            deals: ports.deals.clone(),
            customers: ports.customers.clone(),
            users: ports.users.clone(),
            currencies: ports.currencies.clone(),
            clock: ports.clock.clone(),
        }
    }

    /// Opens a deal at `lead`: its currency, if given, is an active one (`InactiveCurrency`), then
    /// the aggregate's rules, then its customer (`CUSTOMER_NOT_FOUND`), then its sales rep (an active
    /// user).
    #[tracing::instrument(skip_all, fields(customer_id = %input.customer_id, assigned_to = %input.assigned_to))]
    pub async fn create(&self, input: NewDeal) -> Result<Deal, CrmError> {
        if let Some(code) = input.currency {
            active_currency(&*self.currencies, code).await?;
        }
        let created = Deal::new(input, self.clock.now())?;
        if !self.customers.exists(created.deal.customer_id).await? {
            return Err(CrmError::CustomerNotFound);
        }
        active_user(&*self.users, created.deal.assigned_to, "assigned_to").await?;
        Ok(self.deals.create(&created).await?)
    }

    /// The live deal `id`, or `DealNotFound`.
    #[tracing::instrument(skip_all, fields(deal_id = %id))]
    pub async fn get(&self, id: Uuid) -> Result<Deal, CrmError> {
        self.deals.find_by_id(id).await?.ok_or(CrmError::DealNotFound)
    }

    /// Renames the deal or moves its expected close date; only while open (`DEAL_CLOSED`).
    #[tracing::instrument(skip_all, fields(deal_id = %id))]
    pub async fn update_basic_info(
        &self,
        id: Uuid,
        name: Option<String>,
        expected_close_date: Option<Date>,
    ) -> Result<Deal, CrmError> {
        self.edit_open(id, |deal, now| deal.update_basic_info(name.clone(), expected_close_date, now)).await
    }

    /// Sets the value, and the currency when one is given (else the deal keeps its own); only while
    /// open. A given currency is checked first (an active one, `InactiveCurrency`), before the deal is read.
    #[tracing::instrument(skip_all, fields(deal_id = %id))]
    pub async fn update_value(&self, id: Uuid, value: i64, currency: Option<CurrencyCode>) -> Result<Deal, CrmError> {
        if let Some(code) = currency {
            active_currency(&*self.currencies, code).await?;
        }
        self.edit_open(id, |deal, now| deal.update_value(value, currency.unwrap_or(deal.currency), now)).await
    }

    /// Moves an open deal to `stage`; to its current stage changes nothing.
    #[tracing::instrument(skip_all, fields(deal_id = %id, stage = %stage.as_str()))]
    pub async fn move_stage(&self, id: Uuid, stage: DealStage) -> Result<Deal, CrmError> {
        self.change_stage(id, |deal, now| deal.move_to(stage, now)).await
    }

    /// Wins an open deal on `close_date`.
    #[tracing::instrument(skip_all, fields(deal_id = %id))]
    pub async fn win(&self, id: Uuid, close_date: Date) -> Result<Deal, CrmError> {
        self.change_stage(id, |deal, now| deal.win(close_date, now).map(Some)).await
    }

    /// Loses an open deal on `close_date`, with an optional reason.
    #[tracing::instrument(skip_all, fields(deal_id = %id))]
    pub async fn lose(&self, id: Uuid, close_date: Date, reason: Option<String>) -> Result<Deal, CrmError> {
        self.change_stage(id, |deal, now| deal.lose(close_date, reason.clone(), now).map(Some)).await
    }

    /// Soft-deletes the deal (`NotFound` storage error when missing).
    #[tracing::instrument(skip_all, fields(deal_id = %id))]
    pub async fn delete(&self, id: Uuid) -> Result<(), CrmError> {
        Ok(self.deals.soft_delete(id, self.clock.now()).await?)
    }

    /// Saves the edit `decide` makes of the open deal over the version read; a change made meanwhile
    /// is re-read and the edit decided again (a deal closed meanwhile is `DEAL_CLOSED`).
    async fn edit_open(
        &self,
        id: Uuid,
        decide: impl Fn(&Deal, OffsetDateTime) -> Result<Deal, DealError>,
    ) -> Result<Deal, CrmError> {
        let decide = &decide;
        settle_edit(
            self.get(id).await?,
            || self.get(id),
            |deal| async move { saved_or(self.deals.update_open(&decide(&deal, self.clock.now())?).await) },
        )
        .await
    }

    /// Loads, moves and saves; the deal unchanged when the move is a no-op; decided again on a
    /// concurrent move (a deal closed meanwhile then answers `MOVE_STAGE_FAILED`).
    async fn change_stage<F>(&self, id: Uuid, step: F) -> Result<Deal, CrmError>
    where
        F: Fn(&Deal, OffsetDateTime) -> Result<Option<StageTransition>, DealError>,
    {
        let step = &step;
        until_settled(|| async move {
            let deal = self.get(id).await?;
            let Some(moved) = step(&deal, self.clock.now())? else {
                return Ok(Attempt::Done(deal));
            };
            saved_or(self.deals.save_stage_change(&moved).await)
        })
        .await
    }
}

/// A conditional save of the deal as an attempt; its absence is `DealNotFound`.
fn saved_or(saved: Result<Deal, RepoError>) -> Result<Attempt<Deal>, CrmError> {
    match saved {
        Err(RepoError::NotFound) => Err(CrmError::DealNotFound),
        saved => Attempt::of(saved),
    }
}
