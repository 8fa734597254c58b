//! Transfers (`TransferService`) over the in-memory store, and the stock alerts every path raises
//! once per crossing: refusals in their order, shipping all or nothing, a lost race decided again.

#![cfg(feature = "memory")]

mod common;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use common::{clock, code, event_names, usd, World, USER};
use shared_kernel::application::Clock;
use shared_kernel::{Page, PageRequest};
use uuid::Uuid;
use warehouse_domain::application::{PurchaseLineRequest, PurchaseOrderRequest, TransferService};
use warehouse_domain::purchasing::{ReceiveInput, ReceiveLine};
use warehouse_domain::transfers::{
    NewTransfer, NewTransferLine, TransferDraft, TransferFilter, TransferStatus, TransferStatusChange,
};
use warehouse_domain::{
    InventoryRepository, MovementFilter, MovementType, RepoError, StockMovementRepository, Transfer,
    TransferRepository, WarehouseError,
};

fn transfer(from: Uuid, to: Uuid, lines: &[(Uuid, i64)]) -> NewTransfer {
    NewTransfer {
        from_location_id: from,
        to_location_id: to,
        lines: lines.iter().map(|&(product_id, quantity)| NewTransferLine { product_id, quantity }).collect(),
        notes: None,
    }
}

fn not_found(entity: &'static str) -> RepoError {
    RepoError::Refused(WarehouseError::NotFound { entity })
}

#[tokio::test]
async fn creating_checks_input_then_source_then_destination_then_products() {
    let w = World::new();
    let (from, to, product) = (w.location("SRC").await, w.location("DST").await, w.product("A").await);
    let nil = Uuid::nil();
    let create = |t| w.transfers.create(t, USER);
    assert_eq!(create(transfer(from, from, &[(product, 1)])).await.map_err(code), Err("VALIDATION_ERROR"));
    assert_eq!(create(transfer(nil, to, &[(product, 0)])).await.map_err(code), Err("INVALID_QUANTITY"));
    assert_eq!(create(transfer(nil, nil, &[])).await.map_err(code), Err("VALIDATION_ERROR"));
    assert_eq!(create(transfer(Uuid::from_u128(9), to, &[(product, 1)])).await, Err(not_found("source location")));
    assert_eq!(
        create(transfer(from, Uuid::from_u128(9), &[(product, 1)])).await,
        Err(not_found("destination location"))
    );
    assert_eq!(create(transfer(from, to, &[(product, 1), (nil, 1)])).await, Err(not_found("product")));
    w.locations.deactivate(to).await.expect("deactivate");
    let inactive = create(transfer(from, to, &[(product, 1)])).await;
    assert_eq!(
        inactive.map_err(|e| if let RepoError::Refused(e) = e { e.field() } else { None }),
        Err(Some("to_location_id"))
    );
    w.locations.activate(to).await.expect("activate");
    let created = create(transfer(from, to, &[(product, 1)])).await.expect("created");
    assert_eq!(
        (created.transfer_number.to_string().as_str(), created.status),
        ("TR-2026-000001", TransferStatus::Draft)
    );
    assert_eq!(created.created_by, Some(USER));
    assert_eq!(w.transfers.get(nil).await, Err(not_found("transfer")));
}

#[tokio::test]
async fn shipping_is_all_or_nothing_and_receiving_makes_the_destination_record() {
    let w = World::new();
    let (from, to) = (w.location("SRC").await, w.location("DST").await);
    let (a, b, c) = (w.product("A").await, w.product("B").await, w.product("C").await);
    let (record_a, record_b) = (w.record(a, from, 5, None).await, w.record(b, from, 1, None).await);
    let short = w.transfers.create(transfer(from, to, &[(a, 3), (b, 2)]), USER).await.expect("draft");
    assert_eq!(w.transfers.ship(short.id, USER).await.map_err(code), Err("INSUFFICIENT_STOCK"));
    assert_eq!((w.stock_at(a, from).await, w.stock_at(b, from).await), ((5, 0), (1, 0)), "nothing taken");
    assert_eq!(w.transfers.get(short.id).await.map(|t| t.status), Ok(TransferStatus::Draft));
    let nowhere = w.transfers.create(transfer(from, to, &[(a, 1), (c, 1)]), USER).await.expect("draft");
    assert_eq!(w.transfers.ship(nowhere.id, USER).await.map_err(code), Err("INSUFFICIENT_STOCK"), "no record of C");
    // Reserved stock is not shippable either.
    w.stock.reserve(record_a, 3, Uuid::from_u128(77), USER).await.expect("reserve");
    w.stock.adjust(record_b, 1, "count", USER).await.expect("adjust");
    assert_eq!(w.transfers.ship(short.id, USER).await.map_err(code), Err("INSUFFICIENT_STOCK"), "2 of A available");
    w.stock.release(record_a, 3, Uuid::from_u128(77), USER).await.expect("release");

    let shipped = w.transfers.ship(short.id, USER).await.expect("shipped");
    assert_eq!((shipped.status, shipped.shipped_at.is_some()), (TransferStatus::InTransit, true));
    assert_eq!((w.stock_at(a, from).await, w.stock_at(b, from).await), ((2, 0), (0, 0)));
    assert_eq!(w.store.availability(a).await.map(|av| av.quantity_incoming), Ok(3), "in transit to DST");
    assert_eq!(w.transfers.ship(short.id, USER).await.map_err(code), Err("INVALID_STATUS_TRANSITION"));
    let received = w.transfers.receive(short.id, USER).await.expect("received");
    assert_eq!(received.status, TransferStatus::Received);
    assert_eq!((w.stock_at(a, to).await, w.stock_at(b, to).await), ((3, 0), (2, 0)), "records made");
    assert_eq!(w.store.availability(a).await.map(|av| av.quantity_incoming), Ok(0));
    assert_eq!(w.transfers.cancel(short.id, USER).await.map_err(code), Err("INVALID_STATUS_TRANSITION"));
    let filter = MovementFilter { reference_id: Some(short.id), ..MovementFilter::default() };
    let page = PageRequest::new(None, None).expect("page");
    let movements = StockMovementRepository::list(&*w.store, &filter, page).await.expect("list").items;
    assert_eq!(movements.len(), 4, "one at each end per line");
    assert!(movements.iter().all(|m| m.movement_type == MovementType::Transfer && m.created_by == Some(USER)));
    assert_eq!(event_names(&w.store), ["transfer.shipped", "transfer.received"]);

    assert_eq!(w.transfers.receive(nowhere.id, USER).await.map_err(code), Err("INVALID_STATUS_TRANSITION"));
    assert_eq!(w.transfers.cancel(nowhere.id, USER).await.map(|t| t.status), Ok(TransferStatus::Cancelled));
}

/// Delegates to the store; before the first save, a rival ships the same transfer.
struct RacingTransfers {
    store: Arc<warehouse_domain::memory::InMemoryWarehouse>,
    raced: Mutex<bool>,
}

#[async_trait]
impl TransferRepository for RacingTransfers {
    async fn create(&self, draft: TransferDraft) -> Result<Transfer, RepoError> {
        TransferRepository::create(&*self.store, draft).await
    }
    async fn get(&self, id: Uuid) -> Result<Transfer, RepoError> {
        TransferRepository::get(&*self.store, id).await
    }
    async fn list(&self, filter: &TransferFilter, page: PageRequest) -> Result<Page<Transfer>, RepoError> {
        TransferRepository::list(&*self.store, filter, page).await
    }
    async fn save(&self, change: &TransferStatusChange, by: Option<Uuid>) -> Result<(), RepoError> {
        let first = !std::mem::replace(&mut *self.raced.lock().expect("not poisoned"), true);
        if first {
            let current = TransferRepository::get(&*self.store, change.transfer.id).await?;
            TransferRepository::save(&*self.store, &current.ship(clock().now()).expect("a draft"), None).await?;
        }
        TransferRepository::save(&*self.store, change, by).await
    }
}

#[tokio::test]
async fn a_cancel_that_lost_to_a_shipment_is_decided_again_and_puts_the_stock_back() {
    let w = World::new();
    let (from, to, product) = (w.location("SRC").await, w.location("DST").await, w.product("A").await);
    w.record(product, from, 5, None).await;
    let draft = w.transfers.create(transfer(from, to, &[(product, 4)]), USER).await.expect("draft");
    let racing = Arc::new(RacingTransfers { store: w.store.clone(), raced: Mutex::new(false) });
    let transfers = TransferService::new(w.store.clone(), w.store.clone(), racing, clock());
    let cancelled = transfers.cancel(draft.id, USER).await.expect("decided again on in_transit");
    assert_eq!(cancelled.status, TransferStatus::Cancelled);
    assert_eq!(w.stock_at(product, from).await, (5, 0), "shipped by the rival, put back by the cancel");
    assert_eq!(event_names(&w.store), ["transfer.shipped", "transfer.cancelled"]);
}

#[tokio::test]
async fn stock_alerts_are_raised_once_per_crossing_across_receipts_transfers_and_reservations() {
    let w = World::new();
    let (here, there, product) = (w.location("HERE").await, w.location("THERE").await, w.product("A").await);
    let record = w.record(product, here, 10, Some(5)).await;
    assert!(event_names(&w.store).is_empty(), "creating a record raises nothing");
    let order = Uuid::from_u128(77);
    w.stock.reserve(record, 6, order, USER).await.expect("available 4: low");
    w.stock.reserve(record, 1, order, USER).await.expect("available 3: still low");
    let supplier = w.supplier("Acme").await;
    let lines = vec![PurchaseLineRequest { product_id: product, quantity: 10, unit_cost: 1 }];
    let po = PurchaseOrderRequest {
        supplier_id: supplier,
        location_id: here,
        currency: usd(),
        expected_at: None,
        notes: None,
        lines,
    };
    let po = w.purchasing.create(po, USER).await.expect("draft");
    let po = w.purchasing.submit(po.id).await.expect("ordered");
    let receipt =
        |quantity| ReceiveInput { lines: vec![ReceiveLine { line_id: po.lines[0].id, quantity }], reason: None };
    w.purchasing.receive(po.id, receipt(1), USER).await.expect("available 4: still low");
    w.purchasing.receive(po.id, receipt(4), USER).await.expect("available 8: replenished");
    let moved = w.transfers.create(transfer(here, there, &[(product, 4)]), USER).await.expect("draft");
    w.transfers.ship(moved.id, USER).await.expect("available 4: low");
    w.transfers.cancel(moved.id, USER).await.expect("put back, available 8: replenished");
    w.stock.release(record, 7, order, USER).await.expect("available 15: stays high");
    let alerts: Vec<String> = event_names(&w.store).into_iter().filter(|n| n.starts_with("warehouse.stock_")).collect();
    assert_eq!(
        alerts,
        ["warehouse.stock_low", "warehouse.stock_replenished", "warehouse.stock_low", "warehouse.stock_replenished"]
    );
}
