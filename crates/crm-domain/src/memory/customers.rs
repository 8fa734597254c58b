//! [`CustomerRepository`] in memory.

use std::cmp::Ordering;

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{page_of, InMemoryCrm, State};
use crate::customer::{Customer, CustomerCreated, StatusTransition, TierChange};
use crate::email::Email;
use crate::enums::{CustomerStatus, CustomerType};
use crate::ports::{CustomerRepository, EmailScope, RepoError};
use crate::query::{CustomerFilter, CustomerSortField, SortDirection};

impl State {
    fn live_customer(&self, id: Uuid) -> Option<&Customer> {
        self.customers.get(&id).filter(|c| c.deleted_at.is_none())
    }

    /// The uniqueness rules of a customer row, checked against every other live customer.
    pub(super) fn check_customer_keys(&self, customer: &Customer) -> Result<(), RepoError> {
        let others = self.customers.values().filter(|c| c.deleted_at.is_none() && c.id != customer.id);
        for other in others {
            if other.email == customer.email && other.company_id == customer.company_id {
                return Err(RepoError::Conflict { field: "email" });
            }
            if customer.user_id.is_some() && other.user_id == customer.user_id {
                return Err(RepoError::Conflict { field: "user_id" });
            }
        }
        match customer.company_id {
            Some(company) if !self.companies.contains_key(&company) => {
                Err(RepoError::MissingReference { field: "company_id" })
            }
            _ => Ok(()),
        }
    }

    pub(super) fn insert_customer(&mut self, created: &CustomerCreated) -> Result<Customer, RepoError> {
        if self.customers.contains_key(&created.customer.id) {
            return Err(RepoError::Conflict { field: "resource" });
        }
        self.check_customer_keys(&created.customer)?;
        self.customers.insert(created.customer.id, created.customer.clone());
        self.events.extend(created.events.iter().cloned());
        Ok(created.customer.clone())
    }

    /// Replaces the live customer `next.id` when `matches` holds for the stored one; bumps the version.
    fn replace_customer(
        &mut self,
        next: &Customer,
        matches: impl FnOnce(&Customer) -> bool,
        apply: impl FnOnce(&Customer) -> Customer,
    ) -> Result<Customer, RepoError> {
        let stored = self.live_customer(next.id).ok_or(RepoError::NotFound)?;
        if !matches(stored) {
            return Err(RepoError::Stale);
        }
        let mut saved = apply(stored);
        saved.version = stored.version + 1;
        self.check_customer_keys(&saved)?;
        self.customers.insert(saved.id, saved.clone());
        Ok(saved)
    }
}

fn status_rank(status: CustomerStatus) -> usize {
    CustomerStatus::ALL.iter().position(|s| *s == status).unwrap_or(usize::MAX)
}

fn selected(customer: &Customer, filter: &CustomerFilter) -> bool {
    let searched = filter.search.as_ref().is_none_or(|text| {
        let text = text.to_lowercase();
        customer.name.to_lowercase().contains(&text)
            || customer.email.as_str().contains(&text)
            || customer.phone.as_deref().is_some_and(|phone| phone.contains(&text))
    });
    let typed = filter.customer_type.is_none_or(|kind| match kind {
        CustomerType::Company => customer.company_id.is_some(),
        _ => customer.company_id.is_none(),
    });
    customer.deleted_at.is_none()
        && filter.status.is_none_or(|s| customer.status == s)
        && filter.tier.is_none_or(|t| customer.tier == t)
        && filter.assigned_to.is_none_or(|rep| customer.assigned_to == Some(rep))
        && filter.tags.iter().all(|tag| customer.tags.contains(tag))
        && typed
        && searched
}

fn ordered(a: &Customer, b: &Customer, filter: &CustomerFilter) -> Ordering {
    for (field, direction) in filter.sort.keys() {
        let order = match field {
            CustomerSortField::CreatedAt => a.created_at.cmp(&b.created_at),
            CustomerSortField::UpdatedAt => a.updated_at.cmp(&b.updated_at),
            CustomerSortField::Name => a.name.cmp(&b.name),
            CustomerSortField::Email => a.email.as_str().cmp(b.email.as_str()),
            CustomerSortField::Status => status_rank(a.status).cmp(&status_rank(b.status)),
            CustomerSortField::Tier => a.tier.cmp(&b.tier),
        };
        let order = if *direction == SortDirection::Desc { order.reverse() } else { order };
        if order != Ordering::Equal {
            return order;
        }
    }
    b.id.cmp(&a.id)
}

#[async_trait]
impl CustomerRepository for InMemoryCrm {
    async fn create(&self, created: &CustomerCreated) -> Result<Customer, RepoError> {
        self.with(|state| state.insert_customer(created))
    }

    async fn find_by_id(&self, id: Uuid) -> Result<Option<Customer>, RepoError> {
        Ok(self.with(|state| state.live_customer(id).cloned()))
    }

    async fn find_by_email(&self, email: &Email, scope: EmailScope) -> Result<Option<Customer>, RepoError> {
        Ok(self.with(|state| {
            let mut found: Vec<&Customer> = state
                .customers
                .values()
                .filter(|c| c.deleted_at.is_none() && &c.email == email)
                .filter(|c| match scope {
                    EmailScope::Newest => true,
                    EmailScope::Company(company) => c.company_id == Some(company),
                    EmailScope::NoCompany => c.company_id.is_none(),
                })
                .collect();
            found.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
            found.first().map(|c| (*c).clone())
        }))
    }

    async fn find_by_user_id(&self, user_id: Uuid) -> Result<Option<Customer>, RepoError> {
        Ok(self.with(|state| {
            state.customers.values().find(|c| c.deleted_at.is_none() && c.user_id == Some(user_id)).cloned()
        }))
    }

    async fn list(&self, filter: &CustomerFilter, page: PageRequest) -> Result<Page<Customer>, RepoError> {
        let mut all: Vec<Customer> =
            self.with(|state| state.customers.values().filter(|c| selected(c, filter)).cloned().collect());
        all.sort_by(|a, b| ordered(a, b, filter));
        Ok(page_of(all, page))
    }

    async fn update(&self, customer: &Customer) -> Result<Customer, RepoError> {
        self.with(|state| {
            state.replace_customer(
                customer,
                |stored| stored.version == customer.version,
                |stored| Customer {
                    user_id: customer.user_id,
                    name: customer.name.clone(),
                    phone: customer.phone.clone(),
                    source: customer.source.clone(),
                    assigned_to: customer.assigned_to,
                    tags: customer.tags.clone(),
                    updated_at: customer.updated_at,
                    ..stored.clone()
                },
            )
        })
    }

    async fn save_transition(&self, transition: &StatusTransition) -> Result<Customer, RepoError> {
        let next = &transition.customer;
        self.with(|state| {
            let saved = state.replace_customer(
                next,
                |stored| stored.status == transition.from,
                |stored| Customer {
                    status: next.status,
                    churned_at: next.churned_at,
                    updated_at: next.updated_at,
                    ..stored.clone()
                },
            )?;
            state.events.extend(transition.events.iter().cloned());
            Ok(saved)
        })
    }

    async fn save_tier_change(&self, change: &TierChange) -> Result<Customer, RepoError> {
        let next = &change.customer;
        self.with(|state| {
            let saved = state.replace_customer(
                next,
                |stored| stored.tier == change.from,
                |stored| Customer { tier: next.tier, updated_at: next.updated_at, ..stored.clone() },
            )?;
            state.events.extend(change.events.iter().cloned());
            Ok(saved)
        })
    }

    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError> {
        self.with(|state| match state.customers.get_mut(&id) {
            Some(customer) if customer.deleted_at.is_none() => {
                customer.deleted_at = Some(at);
                Ok(())
            }
            _ => Err(RepoError::NotFound),
        })
    }
}
