//! [`UserCustomers`] in memory: the inbox is a set of handled deliveries.

use async_trait::async_trait;
use uuid::Uuid;

use super::InMemoryCrm;
use crate::customer::Customer;
use crate::email::Email;
use crate::ports::{DecideUserCustomer, RepoError, UserCustomerMatch, UserCustomerPlan, UserCustomers};

#[async_trait]
impl UserCustomers for InMemoryCrm {
    async fn settle_registration(
        &self,
        delivery: Uuid,
        user_id: Uuid,
        email: &Email,
        decide: DecideUserCustomer<'_>,
    ) -> Result<Option<UserCustomerPlan>, RepoError> {
        self.with(|state| {
            if state.deliveries.contains(&delivery) {
                return Ok(None);
            }
            let live = || state.customers.values().filter(|c| c.deleted_at.is_none());
            let found = if live().any(|c| c.user_id == Some(user_id)) {
                UserCustomerMatch::Linked
            } else if let Some(same) = live().find(|c| &c.email == email && c.company_id.is_none()) {
                UserCustomerMatch::SameEmail { customer_id: same.id }
            } else {
                UserCustomerMatch::Neither
            };
            let plan = decide(found);
            match &plan {
                UserCustomerPlan::Nothing => {}
                UserCustomerPlan::Link { customer_id, user_id, at } => {
                    let stored = state.customers.get(customer_id);
                    let stored = stored.filter(|c| c.deleted_at.is_none() && c.company_id.is_none());
                    let stored = stored.ok_or(RepoError::Stale)?;
                    let linked = Customer {
                        user_id: Some(*user_id),
                        updated_at: *at,
                        version: stored.version + 1,
                        ..stored.clone()
                    };
                    state.check_customer_keys(&linked)?;
                    state.customers.insert(linked.id, linked);
                }
                UserCustomerPlan::Create(created) => {
                    state.insert_customer(created)?;
                }
            }
            state.deliveries.insert(delivery);
            Ok(Some(plan))
        })
    }
}
