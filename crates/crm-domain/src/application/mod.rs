//! The use cases of customer management: every write (and every read with a rule) as one `async fn`
//! of a service, written against the ports and a [`Clock`], callable without HTTP or a database.
//!
//! A service loads through a port, lets the aggregate decide, and saves conditionally on what it
//! loaded; a save that lost a race ([`crate::RepoError::Stale`]) is decided again on a fresh read
//! (`shared_kernel::application::until_settled`), so the caller gets the precise refusal
//! (`INVALID_STATUS_TRANSITION`, `MOVE_STAGE_FAILED`, …) rather than a conflict. References to users
//! go through [`UserDirectory`], which another context implements; nothing here reads its storage.
//! Every use case answers [`CrmError`].
//!
//! ```
//! # #[cfg(feature = "memory")] {
//! use std::sync::Arc;
//! use crm_domain::application::{CrmPorts, CustomerService};
//! use crm_domain::memory::{InMemoryCrm, InMemoryUsers};
//! use crm_domain::{CustomerStatus, NewCustomer};
//! use shared_kernel::application::{block_on, FixedClock};
//! use time::macros::datetime;
//!
//! let store = InMemoryCrm::new();
//! let ports = CrmPorts::in_memory(&store, Arc::new(InMemoryUsers::new()), Arc::new(FixedClock(datetime!(2026-03-01 10:00 UTC))));
//! let customers = CustomerService::new(&ports);
//! let ada = NewCustomer { name: "Ada".into(), email: "ada@example.com".into(), ..NewCustomer::default() };
//! let created = block_on(customers.create(ada)).expect("created");
//! let qualified = block_on(customers.qualify(created.id)).expect("qualified");
//! assert_eq!(qualified.status, CustomerStatus::Prospect);
//! # }
//! ```

mod companies;
mod customer_lifecycle;
mod customers;
mod deals;
mod error;
mod interactions;
mod registrations;

use std::sync::Arc;

pub use companies::CompanyService;
pub use customers::CustomerService;
pub use deals::DealService;
pub use error::CrmError;
pub use interactions::InteractionService;
pub use registrations::{CustomerFromUserService, RegisteredUser};
pub use shared_kernel::application::{Clock, FixedClock, SystemClock};
use uuid::Uuid;

use crate::ports::{
    CompanyRepository, Currencies, CustomerRepository, DealRepository, InteractionRepository, PhoneNumbers,
    UserDirectory, UserStanding,
};

/// The ports the request use cases need, handed to each service's `new`.
#[derive(Clone)]
pub struct CrmPorts {
    /// Customers in storage.
    pub customers: Arc<dyn CustomerRepository>,
    /// Companies in storage.
    pub companies: Arc<dyn CompanyRepository>,
    /// Deals in storage.
    pub deals: Arc<dyn DealRepository>,
    /// Interactions in storage.
    pub interactions: Arc<dyn InteractionRepository>,
    /// The users of identity that records name.
    pub users: Arc<dyn UserDirectory>,
    /// The reference data's currencies (a deal's currency is an active one).
    pub currencies: Arc<dyn Currencies>,
    /// The phone rule customers' numbers are stored by (E.164).
    pub phones: Arc<dyn PhoneNumbers>,
    /// Where every use case reads the time.
    pub clock: Arc<dyn Clock>,
}

#[cfg(feature = "memory")]
impl CrmPorts {
    /// Every repository port on one in-memory store, which also answers the currencies; phones by
    /// [`crate::memory::DigitPhoneNumbers`].
    pub fn in_memory(store: &crate::memory::InMemoryCrm, users: Arc<dyn UserDirectory>, clock: Arc<dyn Clock>) -> Self {
        Self {
            customers: Arc::new(store.clone()),
            companies: Arc::new(store.clone()),
            deals: Arc::new(store.clone()),
            interactions: Arc::new(store.clone()),
            users,
            currencies: Arc::new(store.clone()),
            phones: Arc::new(crate::memory::DigitPhoneNumbers),
            clock,
        }
    }
}

/// `id` names an active user (a sales rep), else `UserNotFound` naming `field`.
async fn active_user(users: &dyn UserDirectory, id: Uuid, field: &'static str) -> Result<(), CrmError> {
    match users.standing(id).await? {
        Some(UserStanding::Active) => Ok(()),
        _ => Err(CrmError::UserNotFound { field }),
    }
}

/// `code` when the reference data lists it as active; `InactiveCurrency` otherwise.
async fn active_currency(
    currencies: &dyn Currencies,
    code: shared_kernel::CurrencyCode,
) -> Result<shared_kernel::CurrencyCode, CrmError> {
    match currencies.is_active(code).await? {
        true => Ok(code),
        false => Err(CrmError::InactiveCurrency),
    }
}

/// `id` names a user of any standing, else `UserNotFound` naming `field`.
async fn any_user(users: &dyn UserDirectory, id: Uuid, field: &'static str) -> Result<(), CrmError> {
    users.standing(id).await?.map(|_| ()).ok_or(CrmError::UserNotFound { field })
}

#[cfg(all(test, feature = "memory"))]
mod tests;
