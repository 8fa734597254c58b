//! [`CompanyRepository`], [`DealRepository`] and [`InteractionRepository`] in memory.

use std::cmp::Ordering;

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{page_of, stale_or_missing, InMemoryCrm, State};
use crate::company::Company;
use crate::deal::{Deal, DealCreated, StageTransition};
use crate::enums::DealStage;
use crate::interaction::Interaction;
use crate::ports::{
    CompanyFilter, CompanyRepository, DealFilter, DealRepository, FollowUpFilter, InteractionFilter,
    InteractionRepository, InteractionView, RepoError, WonTotals,
};

/// Soft-deletes the live record at `id` of `records`; `NotFound` when there is none.
fn soft_delete<T>(
    record: Option<&mut T>,
    deleted_at: impl FnOnce(&mut T) -> &mut Option<OffsetDateTime>,
    at: OffsetDateTime,
) -> Result<(), RepoError> {
    match record.map(deleted_at) {
        Some(slot) if slot.is_none() => {
            *slot = Some(at);
            Ok(())
        }
        _ => Err(RepoError::NotFound),
    }
}

#[async_trait]
impl CompanyRepository for InMemoryCrm {
    async fn create(&self, company: &Company) -> Result<Company, RepoError> {
        self.with(|state| {
            if state.companies.contains_key(&company.id) {
                return Err(RepoError::Conflict { field: "resource" });
            }
            state.companies.insert(company.id, company.clone());
            Ok(company.clone())
        })
    }

    async fn find_by_id(&self, id: Uuid) -> Result<Option<Company>, RepoError> {
        Ok(self.with(|state| state.companies.get(&id).filter(|c| c.deleted_at.is_none()).cloned()))
    }

    async fn list(&self, filter: &CompanyFilter, page: PageRequest) -> Result<Page<Company>, RepoError> {
        let search = filter.search.as_ref().map(|text| text.to_lowercase());
        let mut all: Vec<Company> = self.with(|state| {
            let live = state.companies.values().filter(|c| c.deleted_at.is_none());
            live.filter(|c| search.as_ref().is_none_or(|text| c.name.to_lowercase().contains(text))).cloned().collect()
        });
        all.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
        Ok(page_of(all, page))
    }

    async fn update(&self, company: &Company) -> Result<Company, RepoError> {
        self.with(|state| {
            let stored = state.companies.get_mut(&company.id).filter(|c| c.deleted_at.is_none());
            let stored = stored.ok_or(RepoError::NotFound)?;
            if stored.version != company.version {
                return Err(RepoError::Stale);
            }
            stored.name.clone_from(&company.name);
            stored.website.clone_from(&company.website);
            stored.industry.clone_from(&company.industry);
            stored.updated_at = company.updated_at;
            stored.version += 1;
            Ok(stored.clone())
        })
    }

    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError> {
        self.with(|state| soft_delete(state.companies.get_mut(&id), |c| &mut c.deleted_at, at))
    }
}

impl State {
    fn live_deal(&mut self, id: Uuid) -> Option<&mut Deal> {
        self.deals.get_mut(&id).filter(|d| d.deleted_at.is_none())
    }

    fn live_interaction(&mut self, id: Uuid) -> Option<&mut Interaction> {
        self.interactions.get_mut(&id).filter(|i| i.deleted_at.is_none())
    }

    fn viewed(&self, interaction: &Interaction) -> InteractionView {
        let customer_name = self.customers.get(&interaction.customer_id).map(|c| c.name.clone()).unwrap_or_default();
        let company_name = interaction.company_id.and_then(|id| self.companies.get(&id)).map(|c| c.name.clone());
        InteractionView { interaction: interaction.clone(), customer_name, company_name, created_by_name: None }
    }
}

#[async_trait]
impl DealRepository for InMemoryCrm {
    async fn create(&self, created: &DealCreated) -> Result<Deal, RepoError> {
        self.with(|state| {
            if state.deals.contains_key(&created.deal.id) {
                return Err(RepoError::Conflict { field: "resource" });
            }
            if !state.customers.contains_key(&created.deal.customer_id) {
                return Err(RepoError::MissingReference { field: "customer_id" });
            }
            state.deals.insert(created.deal.id, created.deal.clone());
            state.events.extend(created.events.iter().cloned());
            Ok(created.deal.clone())
        })
    }

    async fn find_by_id(&self, id: Uuid) -> Result<Option<Deal>, RepoError> {
        Ok(self.with(|state| state.live_deal(id).map(|d| d.clone())))
    }

    async fn list(&self, filter: &DealFilter, page: PageRequest) -> Result<Page<Deal>, RepoError> {
        let mut all: Vec<Deal> = self.with(|state| {
            let live = state.deals.values().filter(|d| d.deleted_at.is_none());
            live.filter(|d| filter.stage.is_none_or(|s| d.stage == s))
                .filter(|d| filter.customer_id.is_none_or(|c| d.customer_id == c))
                .filter(|d| filter.assigned_to.is_none_or(|rep| d.assigned_to == rep))
                .cloned()
                .collect()
        });
        all.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
        Ok(page_of(all, page))
    }

    async fn update_open(&self, deal: &Deal) -> Result<Deal, RepoError> {
        self.with(|state| {
            let stored = state.live_deal(deal.id).ok_or(RepoError::NotFound)?;
            if stored.version != deal.version || stored.stage.is_closed() {
                return Err(RepoError::Stale);
            }
            stored.name.clone_from(&deal.name);
            stored.expected_close_date = deal.expected_close_date;
            stored.value = deal.value;
            stored.currency = deal.currency;
            stored.tags.clone_from(&deal.tags);
            stored.updated_at = deal.updated_at;
            stored.version += 1;
            Ok(stored.clone())
        })
    }

    async fn save_stage_change(&self, transition: &StageTransition) -> Result<Deal, RepoError> {
        let next = &transition.deal;
        self.with(|state| {
            let stored = state.live_deal(next.id).ok_or(RepoError::NotFound)?;
            if stored.stage != transition.from {
                return Err(RepoError::Stale);
            }
            stored.stage = next.stage;
            stored.probability = next.probability;
            stored.actual_close_date = next.actual_close_date;
            stored.loss_reason.clone_from(&next.loss_reason);
            stored.updated_at = next.updated_at;
            stored.version += 1;
            let saved = stored.clone();
            state.events.extend(transition.events.iter().cloned());
            Ok(saved)
        })
    }

    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError> {
        self.with(|state| soft_delete(state.deals.get_mut(&id), |d| &mut d.deleted_at, at))
    }

    async fn pipeline_counts(&self) -> Result<Vec<(DealStage, i64)>, RepoError> {
        Ok(self.with(|state| {
            let live: Vec<&Deal> = state.deals.values().filter(|d| d.deleted_at.is_none()).collect();
            let count = |stage| i64::try_from(live.iter().filter(|d| d.stage == stage).count()).unwrap_or(i64::MAX);
            DealStage::ALL.iter().map(|stage| (*stage, count(*stage))).collect()
        }))
    }

    async fn won_totals(&self) -> Result<WonTotals, RepoError> {
        Ok(self.with(|state| {
            let customer_live = |id| state.customers.get(&id).is_some_and(|c| c.deleted_at.is_none());
            let won = state
                .deals
                .values()
                .filter(|d| d.deleted_at.is_none() && d.stage == DealStage::ClosedWon && customer_live(d.customer_id));
            let mut totals = WonTotals::default();
            for deal in won {
                totals.count += 1;
                let sum = totals.by_currency.entry(deal.currency).or_insert(0);
                *sum = sum.saturating_add(deal.value);
            }
            totals
        }))
    }
}

fn interaction_selected(i: &Interaction, filter: &InteractionFilter) -> bool {
    i.deleted_at.is_none()
        && filter.customer_id.is_none_or(|c| i.customer_id == c)
        && filter.company_id.is_none_or(|c| i.company_id == Some(c))
        && filter.interaction_type.is_none_or(|t| i.interaction_type == t)
        && filter.created_by.is_none_or(|u| i.created_by == u)
}

/// `follow_up_date ASC NULLS LAST`, then `id`.
fn follow_up_order(a: &Interaction, b: &Interaction) -> Ordering {
    let date = match (a.follow_up_date, b.follow_up_date) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    date.then(a.id.cmp(&b.id))
}

#[async_trait]
impl InteractionRepository for InMemoryCrm {
    async fn create(&self, interaction: &Interaction) -> Result<Interaction, RepoError> {
        self.with(|state| {
            if state.interactions.contains_key(&interaction.id) {
                return Err(RepoError::Conflict { field: "resource" });
            }
            if !state.customers.contains_key(&interaction.customer_id) {
                return Err(RepoError::MissingReference { field: "customer_id" });
            }
            if interaction.company_id.is_some_and(|id| !state.companies.contains_key(&id)) {
                return Err(RepoError::MissingReference { field: "company_id" });
            }
            state.interactions.insert(interaction.id, interaction.clone());
            Ok(interaction.clone())
        })
    }

    async fn find_by_id(&self, id: Uuid) -> Result<Option<Interaction>, RepoError> {
        Ok(self.with(|state| state.live_interaction(id).map(|i| i.clone())))
    }

    async fn list(&self, filter: &InteractionFilter, page: PageRequest) -> Result<Page<InteractionView>, RepoError> {
        let all = self.with(|state| {
            let mut found: Vec<&Interaction> =
                state.interactions.values().filter(|i| interaction_selected(i, filter)).collect();
            found.sort_by(|a, b| b.started_at.cmp(&a.started_at).then(b.id.cmp(&a.id)));
            found.into_iter().map(|i| state.viewed(i)).collect()
        });
        Ok(page_of(all, page))
    }

    async fn follow_ups(&self, filter: &FollowUpFilter, page: PageRequest) -> Result<Page<InteractionView>, RepoError> {
        let all = self.with(|state| {
            let mut found: Vec<&Interaction> = state
                .interactions
                .values()
                .filter(|i| i.deleted_at.is_none() && i.follow_up_required)
                .filter(|i| filter.due_before.is_none_or(|due| i.follow_up_date.is_some_and(|d| d < due)))
                .filter(|i| filter.created_by.is_none_or(|u| i.created_by == u))
                .collect();
            found.sort_by(|a, b| follow_up_order(a, b));
            found.into_iter().map(|i| state.viewed(i)).collect()
        });
        Ok(page_of(all, page))
    }

    async fn update(&self, interaction: &Interaction) -> Result<Interaction, RepoError> {
        self.with(|state| {
            let stored = state.live_interaction(interaction.id).ok_or(RepoError::NotFound)?;
            if stored.version != interaction.version {
                return Err(RepoError::Stale);
            }
            let saved = Interaction {
                ended_at: stored.ended_at,
                duration_sec: stored.duration_sec,
                version: stored.version + 1,
                ..interaction.clone()
            };
            *stored = saved.clone();
            Ok(saved)
        })
    }

    async fn save_end(&self, interaction: &Interaction) -> Result<Interaction, RepoError> {
        self.with(|state| {
            let live = state.live_interaction(interaction.id).is_some();
            match state.live_interaction(interaction.id).filter(|i| i.ended_at.is_none()) {
                Some(stored) => {
                    stored.ended_at = interaction.ended_at;
                    stored.duration_sec = interaction.duration_sec;
                    stored.updated_at = interaction.updated_at;
                    stored.version += 1;
                    Ok(stored.clone())
                }
                None => Err(stale_or_missing(live)),
            }
        })
    }

    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError> {
        self.with(|state| soft_delete(state.interactions.get_mut(&id), |i| &mut i.deleted_at, at))
    }
}
