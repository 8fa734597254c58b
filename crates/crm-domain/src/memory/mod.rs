//! In-memory adapters of every customer-management port (feature `memory`): for examples, unit tests
//! of the use cases, and services that want the rules without a database.
//!
//! [`InMemoryCrm`] is one store behind every repository port ([`CustomerRepository`],
//! [`CompanyRepository`], [`DealRepository`], [`InteractionRepository`], [`UserCustomers`]); clones
//! share it, so `Arc::new(store.clone())` serves each port. It keeps the promises of [`crate::ports`]
//! as the PostgreSQL adapters do: soft-deleted records are never read; plain edits are saved only over
//! the version read and state moves only from the state they started at (`Stale` otherwise,
//! `NotFound` for a missing record); every update bumps `version`; an email is unique among live
//! customers of a company (or of none), a user has at most one customer (`Conflict`); a customer's
//! company, a deal's and an interaction's customer, an interaction's company must exist
//! (`MissingReference`). Users are another context's: it checks none of them, and answers no
//! `created_by_name`. In place of the outbox it keeps the events each write carried ([`InMemoryCrm::events`]).
//!
//! [`InMemoryUsers`] is a [`UserDirectory`] of users added by hand. The store also answers the
//! reference data's [`crate::ports::Currencies`] (a few, see [`InMemoryCrm::set_currency`]);
//! [`DigitPhoneNumbers`] is a [`crate::ports::PhoneNumbers`] without a phone library.

mod customers;
mod records;
mod reference;
mod registrations;

pub use reference::DigitPhoneNumbers;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use shared_kernel::{EventEnvelope, Page, PageRequest};
use uuid::Uuid;

use crate::company::Company;
use crate::customer::Customer;
use crate::deal::Deal;
use crate::interaction::Interaction;
#[cfg(doc)]
use crate::ports::{CompanyRepository, CustomerRepository, DealRepository, InteractionRepository, UserCustomers};
use crate::ports::{RepoError, UserDirectory, UserStanding};

/// Every record the store holds, deleted ones included (as rows with `deleted_at`).
#[derive(Debug, Default)]
struct State {
    customers: BTreeMap<Uuid, Customer>,
    companies: BTreeMap<Uuid, Company>,
    deals: BTreeMap<Uuid, Deal>,
    interactions: BTreeMap<Uuid, Interaction>,
    /// Deliveries of `identity.user.registered` already handled (the inbox).
    deliveries: HashSet<Uuid>,
    events: Vec<EventEnvelope>,
    /// The reference data's currencies.
    currencies: reference::KnownCurrencies,
}

/// One in-memory store serving every customer-management repository port; clones share it.
#[derive(Debug, Clone, Default)]
pub struct InMemoryCrm {
    state: Arc<Mutex<State>>,
}

impl InMemoryCrm {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The events the writes so far carried, oldest first (what the outbox would hold).
    pub fn events(&self) -> Vec<EventEnvelope> {
        self.with(|state| state.events.clone())
    }

    /// The events so far, leaving none.
    pub fn take_events(&self) -> Vec<EventEnvelope> {
        self.with(|state| std::mem::take(&mut state.events))
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The page `request` asks for of `all`, already filtered and in order.
fn page_of<T>(all: Vec<T>, request: PageRequest) -> Page<T> {
    let total = i64::try_from(all.len()).unwrap_or(i64::MAX);
    let skip = usize::try_from(request.offset()).unwrap_or(usize::MAX);
    let take = usize::try_from(request.limit()).unwrap_or(usize::MAX);
    Page::new(all.into_iter().skip(skip).take(take).collect(), total, request)
}

/// A compare-and-set that matched nothing: `Stale` when the record is still live, else `NotFound`.
fn stale_or_missing(live: bool) -> RepoError {
    if live {
        RepoError::Stale
    } else {
        RepoError::NotFound
    }
}

/// Users added by hand, as [`UserDirectory`] answers them; clones share them. A user added without
/// a name is named "User".
#[derive(Debug, Clone, Default)]
pub struct InMemoryUsers {
    users: Arc<Mutex<HashMap<Uuid, (UserStanding, String)>>>,
}

impl InMemoryUsers {
    /// No users.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or changes) user `id` with its standing; returns `id`.
    pub fn add(&self, id: Uuid, standing: UserStanding) -> Uuid {
        self.add_named(id, standing, "User")
    }

    /// Adds (or changes) user `id` with its standing and name; returns `id`.
    pub fn add_named(&self, id: Uuid, standing: UserStanding, name: &str) -> Uuid {
        self.users.lock().unwrap_or_else(PoisonError::into_inner).insert(id, (standing, name.to_owned()));
        id
    }
}

#[async_trait]
impl UserDirectory for InMemoryUsers {
    async fn standing(&self, id: Uuid) -> Result<Option<UserStanding>, RepoError> {
        Ok(self.users.lock().unwrap_or_else(PoisonError::into_inner).get(&id).map(|(standing, _)| *standing))
    }

    async fn names(&self, ids: &[Uuid]) -> Result<HashMap<Uuid, String>, RepoError> {
        let users = self.users.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(ids.iter().filter_map(|id| users.get(id).map(|(_, name)| (*id, name.clone()))).collect())
    }
}
