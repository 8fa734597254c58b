//! The asynchronous use case: every registered user becomes a customer (docs/customer-management.md,
//! "Registration subscriber"). The event consumer parses `identity.user.registered` and calls
//! [`CustomerFromUserService::customer_from_user`]; the rule is here.

use std::sync::Arc;

use shared_kernel::application::Clock;
use uuid::Uuid;

use super::CrmError;
use crate::customer::{Customer, NewCustomer};
use crate::email::Email;
use crate::enums::{CustomerStatus, Tier};
use crate::ports::{UserCustomerMatch, UserCustomerPlan, UserCustomers};

/// Where a customer made from a registration says it came from.
pub const REGISTRATION_SOURCE: &str = "website";

/// A user account as identity announced its registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredUser {
    /// The new account.
    pub user_id: Uuid,
    /// Its display name.
    pub name: String,
    /// Its address, under the one email rule identity applied at registration.
    pub email: Email,
}

/// The registration use case.
#[derive(Clone)]
pub struct CustomerFromUserService {
    store: Arc<dyn UserCustomers>,
    clock: Arc<dyn Clock>,
}

impl CustomerFromUserService {
    /// The service over its port and clock.
    pub fn new(store: Arc<dyn UserCustomers>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    /// Makes `user` a customer, once per `delivery` (the event's id): nothing when a customer already
    /// belongs to the user; else the live customer without a company that has the user's email is
    /// linked to it; else a new customer is created (`lead`, `free`, source `website`) with its history
    /// row and `customer.created`. Answers what was done (`None` for a delivery already handled), so
    /// a re-delivery, or the same registration under another event id, changes nothing.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, event_id = %delivery))]
    pub async fn customer_from_user(
        &self,
        delivery: Uuid,
        user: RegisteredUser,
    ) -> Result<Option<UserCustomerPlan>, CrmError> {
        let now = self.clock.now();
        let input = NewCustomer {
            user_id: Some(user.user_id),
            name: user.name,
            email: user.email.as_str().to_owned(),
            status: Some(CustomerStatus::Lead),
            tier: Some(Tier::Free),
            source: Some(REGISTRATION_SOURCE.to_owned()),
            ..NewCustomer::default()
        };
        // Decided before storage is asked, so a name the customer rules refuse fails the delivery
        // without marking it handled.
        let candidate = Customer::new(input, now)?;
        let decide = |found: UserCustomerMatch| match found {
            UserCustomerMatch::Linked => UserCustomerPlan::Nothing,
            UserCustomerMatch::SameEmail { customer_id } => {
                UserCustomerPlan::Link { customer_id, user_id: user.user_id, at: now }
            }
            UserCustomerMatch::Neither => UserCustomerPlan::Create(Box::new(candidate.clone())),
        };
        Ok(self.store.settle_registration(delivery, user.user_id, &user.email, &decide).await?)
    }
}
