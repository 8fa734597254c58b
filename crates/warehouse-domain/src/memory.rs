//! In-memory adapters of every warehouse port (feature `memory`): one store, [`InMemoryWarehouse`],
//! that implements [`ProductRepository`], [`LocationRepository`], [`InventoryRepository`],
//! [`StockMovementRepository`], [`OrderStockRepository`], [`SupplierRepository`],
//! [`PurchaseOrderRepository`], [`ReorderRepository`] and [`TransferRepository`] (and the reference
//! data's [`Currencies`] and [`Countries`], a few of each, see [`InMemoryWarehouse::set_currency`]),
//! because the ports share their tables (a location's stock, an order's movements, a receipt's records). Pass
//! `Arc<InMemoryWarehouse>` wherever a port is wanted.
//!
//! It behaves as the PostgreSQL adapters (`warehouse_postgres`), each method one atomic step
//! under one lock: SKUs and location codes unique case-insensitively among live rows (`Conflict`);
//! soft-deleted rows invisible (`NotFound`); saves compare-and-set on the version (products,
//! locations) or on the quantities read (inventory), `Stale` when they moved; movements appended with
//! their change and never changed; lists newest first with their filters and pages. Purchase orders
//! and transfers are numbered from a counter per kind and year; a receipt or a transfer's move
//! writes the document, its records (made when missing), their movements and its events in one step,
//! all or nothing; a supplier is deleted only without open purchase orders, and a purchase order is
//! created only for a live supplier, under the same lock. Every quantity write raises the stock
//! alerts it causes ([`crate::alerts`]). In place of the outbox it keeps the events written
//! ([`InMemoryWarehouse::events`]): the order flow's replies, the purchase orders' and transfers'
//! events and the stock alerts. It checks no other references (a record's product and location need
//! not exist) and has no inbox (it never answers `AlreadyHandled` for a redelivery). A product's
//! preferred supplier, which the [`crate::Product`] aggregate does not carry yet, is kept beside it
//! ([`InMemoryWarehouse::set_preferred_supplier`]).
//!
//! [`ProductRepository`]: crate::ProductRepository
//! [`LocationRepository`]: crate::LocationRepository
//! [`InventoryRepository`]: crate::InventoryRepository
//! [`StockMovementRepository`]: crate::StockMovementRepository
//! [`OrderStockRepository`]: crate::OrderStockRepository
//! [`SupplierRepository`]: crate::SupplierRepository
//! [`PurchaseOrderRepository`]: crate::PurchaseOrderRepository
//! [`ReorderRepository`]: crate::purchasing::ReorderRepository
//! [`TransferRepository`]: crate::TransferRepository
//! [`Currencies`]: crate::Currencies
//! [`Countries`]: crate::Countries

mod batch;
mod catalogue;
mod order_stock;
mod purchasing;
mod reference;
mod stock;
mod suppliers;
mod transfers;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

use shared_kernel::{EventEnvelope, Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::inventory::InventoryRecord;
use crate::location::LocationRecord;
use crate::movement::StockMovement;
use crate::order_hold::HoldStatus;
use crate::product::ProductRecord;
use crate::purchasing::{PurchaseOrder, SupplierRecord};
use crate::transfers::Transfer;

/// A row and when it was soft-deleted.
#[derive(Debug, Clone)]
struct Stored<T> {
    record: T,
    deleted_at: Option<OffsetDateTime>,
}

impl<T> Stored<T> {
    fn new(record: T) -> Self {
        Self { record, deleted_at: None }
    }

    fn live(&self) -> Option<&T> {
        self.deleted_at.is_none().then_some(&self.record)
    }
}

#[derive(Debug, Default)]
struct State {
    products: BTreeMap<Uuid, Stored<ProductRecord>>,
    locations: BTreeMap<Uuid, Stored<LocationRecord>>,
    inventory: BTreeMap<Uuid, Stored<InventoryRecord>>,
    movements: Vec<StockMovement>,
    holds: HashMap<Uuid, HoldStatus>,
    events: Vec<EventEnvelope>,
    suppliers: BTreeMap<Uuid, Stored<SupplierRecord>>,
    /// A product's preferred supplier (the products' `supplier_id` column).
    preferred_suppliers: HashMap<Uuid, Uuid>,
    purchase_orders: BTreeMap<Uuid, PurchaseOrder>,
    transfers: BTreeMap<Uuid, Transfer>,
    /// The last number given per kind (`PO`, `TR`) and year.
    counters: HashMap<(&'static str, i32), u32>,
    /// The reference data's currencies and countries.
    reference: reference::ReferenceData,
}

/// Every warehouse port in memory; see the module docs for what it promises.
#[derive(Debug, Default)]
pub struct InMemoryWarehouse {
    state: Mutex<State>,
}

impl InMemoryWarehouse {
    /// An empty warehouse.
    pub fn new() -> Self {
        Self::default()
    }

    /// The events written so far, in order (the order flow's replies, purchase order and transfer
    /// events, stock alerts): what the PostgreSQL adapter puts in the outbox.
    pub fn events(&self) -> Vec<EventEnvelope> {
        self.lock().events.clone()
    }

    /// Removes and returns the replies written so far, as a relay would take them from the outbox.
    pub fn take_events(&self) -> Vec<EventEnvelope> {
        std::mem::take(&mut self.lock().events)
    }

    /// Names `supplier_id` the preferred supplier of `product_id` (`None`: no preferred supplier),
    /// which the reorder suggestions read: the products' `supplier_id` column of a real store.
    pub fn set_preferred_supplier(&self, product_id: Uuid, supplier_id: Option<Uuid>) {
        let mut state = self.lock();
        match supplier_id {
            Some(supplier_id) => state.preferred_suppliers.insert(product_id, supplier_id),
            None => state.preferred_suppliers.remove(&product_id),
        };
    }

    /// The lock; every change is applied only after all its checks, so a lock poisoned by a
    /// panicking holder still guards a consistent state and is taken over.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// One page of `items` (already filtered and sorted), with the exact total.
fn page_of<T>(items: Vec<T>, page: PageRequest) -> Page<T> {
    let total = i64::try_from(items.len()).unwrap_or(i64::MAX);
    let skip = usize::try_from(page.offset()).unwrap_or(usize::MAX);
    let take = usize::try_from(page.limit()).unwrap_or(usize::MAX);
    Page::new(items.into_iter().skip(skip).take(take).collect(), total, page)
}

/// `search`, trimmed and lowercased, found in any of `texts` (lowercased); no search matches all.
fn contains(search: Option<&str>, texts: &[&str]) -> bool {
    match search.map(str::trim).filter(|s| !s.is_empty()) {
        None => true,
        Some(search) => {
            let search = search.to_lowercase();
            texts.iter().any(|t| t.to_lowercase().contains(&search))
        }
    }
}

/// Equal ignoring case, the way the unique indexes compare SKUs and codes.
fn same_text(a: &str, b: &str) -> bool {
    a.to_lowercase() == b.trim().to_lowercase()
}
