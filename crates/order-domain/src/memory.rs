//! An in-memory [`OrderRepository`] (feature `memory`): the order context without a database, for
//! examples, tests of callers and other services that reuse the domain.
//!
//! It keeps every promise of the port as the PostgreSQL adapter
//! (`crates/order-postgres/src/repository.rs`) keeps it, and the contract suite
//! ([`crate::contract`], feature `contract`) checks both the same way:
//!
//! - numbers come from one counter per year (`ORD-<year>-<6 digits>`), each used once;
//! - every method runs under one lock, so it is one "transaction": a save or a delete is a
//!   compare-and-set on the stored `version` and `status`, answered `Stale` when the order moved and
//!   `NotFound` when it is gone (missing or soft-deleted);
//! - a save writes the header of `change.order` and applies its one [`LineChange`], as the SQL does;
//! - lines are read by `created_at`, then `id`; lists are newest first (`created_at` desc, then `id`
//!   desc), with an exact `total`;
//! - the events a create or a save carried are kept in order, in place of the outbox
//!   ([`InMemoryOrderRepository::events`]);
//! - as the [`ReplyInbox`], each delivery is taken once, and its reply folded under the same lock.
//!
//! It does not check references (customer, company, currency, products exist): those are foreign
//! keys in PostgreSQL, questions of other contexts here, which the use cases ask through their ports;
//! [`InMemoryCustomerDirectory`], [`InMemoryProductCatalog`] and [`InMemoryCurrencyRegister`] answer
//! them from what a test or an example put in.

mod references;

pub use references::{InMemoryCurrencyRegister, InMemoryCustomerDirectory, InMemoryProductCatalog};

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use shared_kernel::{EventEnvelope, Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::change::{LineChange, OrderChange, OrderDeletion};
use crate::number::OrderNumber;
use crate::order::{Order, OrderDraft, OrderRecord};
use crate::repository::{FoldReply, OrderFilter, OrderRepository, ReplyInbox, RepoError};
use event_contracts::warehouse::WarehouseReply;

/// One stored order: its record (lines included) and, once soft-deleted, when.
#[derive(Debug, Clone)]
struct Stored {
    record: OrderRecord,
    deleted_at: Option<OffsetDateTime>,
}

impl Stored {
    fn live(&self) -> Option<&OrderRecord> {
        self.deleted_at.is_none().then_some(&self.record)
    }
}

/// Everything the repository holds, behind one lock.
#[derive(Debug, Default)]
struct State {
    orders: HashMap<Uuid, Stored>,
    /// The last sequence used per year (the `order_counters` table).
    counters: HashMap<i32, u32>,
    /// Every event written, in write order (the outbox).
    events: Vec<EventEnvelope>,
    /// The deliveries [`ReplyInbox::settle_reply`] took (the inbox).
    deliveries: HashSet<Uuid>,
}

/// [`OrderRepository`] in process memory, behind a [`Mutex`]; cheap to create, one per test.
///
/// ```
/// use order_domain::memory::InMemoryOrderRepository;
/// use order_domain::{NewOrder, OrderDraft, OrderRepository};
/// use shared_kernel::CurrencyCode;
/// use time::macros::datetime;
/// use uuid::Uuid;
///
/// # async fn run() {
/// let repo = InMemoryOrderRepository::new();
/// let usd = CurrencyCode::parse("USD").expect("an ISO 4217 code");
/// let input = NewOrder { customer_id: Uuid::from_u128(7), company_id: None, currency: usd, tax: 0, discount: 0, notes: None };
/// let draft = OrderDraft::new(input, datetime!(2026-03-01 10:00 UTC)).expect("valid");
/// let order = repo.create(draft).await.expect("stored");
/// assert_eq!(order.order_number, "ORD-2026-000001");
/// assert_eq!(repo.events()[0].name, "order.created");
/// # }
/// # tokio::runtime::Builder::new_current_thread().build().expect("a runtime").block_on(run());
/// ```
#[derive(Debug, Default)]
pub struct InMemoryOrderRepository {
    state: Mutex<State>,
}

impl InMemoryOrderRepository {
    /// An empty repository: no orders, every year's counter at 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every event written so far (by `create` and `save`), in the order they were written: what the
    /// PostgreSQL adapter puts in the outbox.
    pub fn events(&self) -> Vec<EventEnvelope> {
        self.lock().events.clone()
    }

    /// Removes and returns the events written so far, as a relay would take them from the outbox.
    pub fn take_events(&self) -> Vec<EventEnvelope> {
        std::mem::take(&mut self.lock().events)
    }

    /// The lock; a panic of another holder leaves the state as consistent as it was (every change is
    /// applied only after all its checks), so a poisoned lock is taken over.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The order as read back: lines by `created_at`, then `id`.
fn read(record: &OrderRecord) -> Order {
    let mut record = record.clone();
    record.lines.sort_by_key(|line| (line.created_at, line.id));
    Order::restore(record)
}

/// `Stale` when the order exists and is live (it moved), else `NotFound`.
fn missed(state: &State, id: Uuid) -> RepoError {
    match state.orders.get(&id).and_then(Stored::live) {
        Some(_) => RepoError::Stale,
        None => RepoError::NotFound,
    }
}

/// Start of the UTC day.
fn day_start(date: time::Date) -> OffsetDateTime {
    date.midnight().assume_utc()
}

fn matches(filter: &OrderFilter, order: &OrderRecord) -> bool {
    filter.status.is_none_or(|status| order.status == status)
        && filter.customer_id.is_none_or(|customer| order.customer_id == customer)
        && filter.date_from.is_none_or(|from| order.created_at >= day_start(from))
        // Inclusive: everything before the start of the next day.
        && filter.date_to.and_then(time::Date::next_day).is_none_or(|next| order.created_at < day_start(next))
}

/// A save as one compare-and-set on `state` (see [`OrderRepository::save`]).
fn write(state: &mut State, change: &OrderChange) -> Result<(), RepoError> {
    let new = change.order.record();
    let Some(stored) = state.orders.get_mut(&new.id).filter(|stored| stored.deleted_at.is_none()) else {
        return Err(RepoError::NotFound);
    };
    if stored.record.version != change.expected_version || stored.record.status != change.expected_status {
        return Err(RepoError::Stale);
    }
    // The header columns `OrderHeaderChange` writes; id, number, customer, company, currency and
    // `created_at` never change.
    let record = &mut stored.record;
    record.status = new.status;
    record.subtotal = new.subtotal;
    record.tax = new.tax;
    record.discount = new.discount;
    record.total = new.total;
    record.notes.clone_from(&new.notes);
    record.reservation_status = new.reservation_status;
    record.reservation_error.clone_from(&new.reservation_error);
    record.confirmed_at = new.confirmed_at;
    record.fulfilled_at = new.fulfilled_at;
    record.cancelled_at = new.cancelled_at;
    record.version = new.version;
    record.updated_at = new.updated_at;
    // The one line row, as `write_line` in crates/order-postgres/src/store.rs writes it.
    match &change.line {
        None => {}
        Some(LineChange::Added(line)) => record.lines.push(line.clone()),
        Some(LineChange::Updated(line)) => {
            if let Some(stored_line) = record.lines.iter_mut().find(|l| l.id == line.id) {
                let mut updated = stored_line.record().clone();
                updated.quantity = line.quantity;
                updated.subtotal = line.subtotal;
                updated.updated_at = line.updated_at;
                *stored_line = crate::line::OrderLine::restore(updated);
            }
        }
        Some(LineChange::Removed { line_id }) => record.lines.retain(|l| l.id != *line_id),
    }
    state.events.extend(change.events.iter().cloned());
    Ok(())
}

#[async_trait]
impl OrderRepository for InMemoryOrderRepository {
    async fn create(&self, draft: OrderDraft) -> Result<Order, RepoError> {
        let mut state = self.lock();
        let year = draft.year();
        let sequence = state.counters.get(&year).copied().unwrap_or(0).saturating_add(1);
        let number = OrderNumber::new(year, sequence).map_err(|e| RepoError::Unknown(format!("order number: {e}")))?;
        let (order, events) = draft.into_order(number).map_err(|e| RepoError::Unknown(format!("order: {e}")))?;
        // The same draft twice: the primary key refuses it (no field of the request names the id).
        if state.orders.contains_key(&order.id) {
            return Err(RepoError::Conflict { field: "resource" });
        }
        if state.orders.values().any(|stored| stored.record.order_number == order.order_number) {
            return Err(RepoError::Conflict { field: "order_number" });
        }
        // Everything checked: the counter, the order and its events together.
        state.counters.insert(year, sequence);
        state.orders.insert(order.id, Stored { record: order.record().clone(), deleted_at: None });
        state.events.extend(events);
        Ok(read(order.record()))
    }

    async fn get(&self, id: Uuid) -> Result<Order, RepoError> {
        let state = self.lock();
        state.orders.get(&id).and_then(Stored::live).map(read).ok_or(RepoError::NotFound)
    }

    async fn get_by_number(&self, number: &OrderNumber) -> Result<Order, RepoError> {
        let text = number.to_string();
        let state = self.lock();
        state
            .orders
            .values()
            .filter_map(Stored::live)
            .find(|record| record.order_number == text)
            .map(read)
            .ok_or(RepoError::NotFound)
    }

    async fn list(&self, filter: &OrderFilter, page: PageRequest) -> Result<Page<Order>, RepoError> {
        let state = self.lock();
        let mut found: Vec<&OrderRecord> =
            state.orders.values().filter_map(Stored::live).filter(|record| matches(filter, record)).collect();
        found.sort_by_key(|record| std::cmp::Reverse((record.created_at, record.id)));
        let total = i64::try_from(found.len()).unwrap_or(i64::MAX);
        let skip = usize::try_from(page.offset()).unwrap_or(usize::MAX);
        let take = usize::try_from(page.limit()).unwrap_or(usize::MAX);
        let items = found.into_iter().skip(skip).take(take).map(read).collect();
        Ok(Page::new(items, total, page))
    }

    async fn save(&self, change: &OrderChange) -> Result<(), RepoError> {
        write(&mut self.lock(), change)
    }

    async fn delete(&self, deletion: &OrderDeletion, now: OffsetDateTime) -> Result<(), RepoError> {
        let mut state = self.lock();
        let moved = match state.orders.get_mut(&deletion.order_id) {
            Some(stored)
                if stored.deleted_at.is_none()
                    && stored.record.version == deletion.expected_version
                    && stored.record.status == deletion.expected_status =>
            {
                stored.deleted_at = Some(now);
                stored.record.updated_at = now;
                stored.record.version = stored.record.version.saturating_add(1);
                false
            }
            _ => true,
        };
        if moved {
            return Err(missed(&state, deletion.order_id));
        }
        Ok(())
    }
}

#[async_trait]
impl ReplyInbox for InMemoryOrderRepository {
    async fn settle_reply(
        &self,
        delivery: Uuid,
        reply: WarehouseReply,
        now: OffsetDateTime,
        fold: FoldReply,
    ) -> Result<Option<Order>, RepoError> {
        let mut state = self.lock();
        if !state.deliveries.insert(delivery) {
            return Ok(None);
        }
        let Some(order) = state.orders.get(&reply.order_id()).and_then(Stored::live).map(read) else {
            return Ok(None);
        };
        let Some(change) = fold(&order, &reply, now) else {
            return Ok(None);
        };
        // Under the lock nobody moved the order: the compare-and-set holds. Should it not, the
        // delivery is given back, as the PostgreSQL inbox rolls its claim back.
        if let Err(error) = write(&mut state, &change) {
            state.deliveries.remove(&delivery);
            return Err(error);
        }
        Ok(Some(read(change.order.record())))
    }
}
