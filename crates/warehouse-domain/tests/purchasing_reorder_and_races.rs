//! Reorder suggestions and the drafts made from them, and receipts racing on one purchase order,
//! over the in-memory store.

#![cfg(feature = "memory")]

mod common;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use common::{clock, code, usd, World, USER};
use shared_kernel::application::Clock;
use shared_kernel::{Page, PageRequest};
use time::Duration;
use uuid::Uuid;
use warehouse_domain::alerts::NO_SUPPLIER;
use warehouse_domain::application::reorder::{PRODUCT_NOT_ORDERABLE, SUPPLIER_NOT_ACTIVE};
use warehouse_domain::application::{PurchaseLineRequest, PurchaseOrderRequest, PurchasingService};
use warehouse_domain::numbers::PurchaseOrderNumber;
use warehouse_domain::purchasing::{
    PurchaseOrderDraft, PurchaseOrderFilter, ReceiveInput, ReceiveLine, SuggestionFilter, SupplierChanges,
};
use warehouse_domain::{PurchaseOrder, PurchaseOrderChange, PurchaseOrderRepository, PurchaseOrderStatus, RepoError};

fn receive(line_id: Uuid, quantity: i64) -> ReceiveInput {
    ReceiveInput { lines: vec![ReceiveLine { line_id, quantity }], reason: None }
}

#[tokio::test]
async fn suggestions_become_one_draft_per_supplier_and_the_rest_is_skipped() {
    let w = World::new();
    let location = w.location("L1").await;
    let (s1, s2) = (w.supplier("First").await, w.supplier("Second").await);
    let [a, b, c, d, e, f] = [
        w.product("A").await,
        w.product("B").await,
        w.product("C").await,
        w.product("D").await,
        w.product("E").await,
        w.product("F").await,
    ];
    for (product, supplier) in [(a, s1), (b, s1), (c, s2), (e, s1), (f, s1)] {
        w.store.set_preferred_supplier(product, Some(supplier));
    }
    w.record(a, location, 2, Some(5)).await; // target 10: 8, less 3 incoming below
    let b_record = w.record(b, location, 0, Some(3)).await;
    let max = warehouse_domain::Thresholds { reorder_point: Some(3), max_stock: Some(20), ..Default::default() };
    w.inventory.set_thresholds(b_record, max).await.expect("max stock"); // 20
    w.record(c, location, 1, Some(4)).await; // 7
    w.record(d, location, 0, Some(2)).await; // 4, no supplier
    w.record(e, location, 10, Some(5)).await; // not low
    w.record(f, location, 0, Some(1)).await; // 2, discontinued
    w.products.discontinue(f).await.expect("discontinue");
    let lines = vec![PurchaseLineRequest { product_id: a, quantity: 3, unit_cost: 100 }];
    let incoming = PurchaseOrderRequest {
        supplier_id: s1,
        location_id: location,
        currency: usd(),
        expected_at: None,
        notes: None,
        lines,
    };
    let incoming = w.purchasing.create(incoming, USER).await.expect("draft");
    w.purchasing.submit(incoming.id).await.expect("ordered: 3 of A incoming");

    let filter = SuggestionFilter { location_id: Some(location), supplier_id: None };
    let all = PageRequest::new(None, None).expect("valid");
    let suggestions = w.purchasing.reorder_suggestions(filter, all).await.expect("suggestions");
    let got: Vec<(Uuid, i64, i64)> =
        suggestions.items.iter().map(|s| (s.product_id, s.quantity_incoming, s.suggested_quantity)).collect();
    assert_eq!(got, [(a, 3, 5), (b, 0, 20), (c, 0, 7), (d, 0, 4), (f, 0, 2)], "by SKU, E not low");
    let second = PageRequest::new(Some(2), Some(2)).expect("valid");
    let page = w.purchasing.reorder_suggestions(filter, second).await.expect("a page");
    let ids: Vec<Uuid> = page.items.iter().map(|s| s.product_id).collect();
    assert_eq!((ids, page.total), (vec![c, d], 5), "a page of what needs ordering, counted whole");
    let only_s2 = SuggestionFilter { supplier_id: Some(s2), ..filter };
    assert_eq!(w.purchasing.reorder_suggestions(only_s2, all).await.map(|s| s.items.len()), Ok(1));

    let drafted = w.purchasing.draft_from_suggestions(location, None, USER).await.expect("drafted");
    let skipped: Vec<(Uuid, &str)> = drafted.skipped.iter().map(|s| (s.product_id, s.reason)).collect();
    assert_eq!(skipped, [(d, NO_SUPPLIER), (f, PRODUCT_NOT_ORDERABLE)]);
    let mut orders: Vec<(Uuid, Vec<(Uuid, i64)>)> = drafted
        .purchase_orders
        .iter()
        .map(|po| (po.supplier_id, po.lines.iter().map(|l| (l.product_id, l.quantity_ordered)).collect()))
        .collect();
    orders.sort();
    let mut expected = vec![(s1, vec![(a, 5), (b, 20)]), (s2, vec![(c, 7)])];
    expected.sort();
    assert_eq!(orders, expected);
    let po = &drafted.purchase_orders[0];
    assert_eq!(
        (po.status, po.currency, po.lines[0].unit_cost, po.created_by),
        (PurchaseOrderStatus::Draft, usd(), 0, Some(USER))
    );
    assert_eq!(po.expected_at, Some(clock().now() + Duration::days(7)), "after the supplier's lead time");

    let idle = SupplierChanges { is_active: Some(false), ..SupplierChanges::default() };
    w.suppliers.update(s2, idle).await.expect("deactivate");
    let again = w.purchasing.draft_from_suggestions(location, Some(s2), USER).await.expect("drafted");
    assert!(again.purchase_orders.is_empty());
    assert_eq!(again.skipped.iter().map(|s| (s.product_id, s.reason)).collect::<Vec<_>>(), [(c, SUPPLIER_NOT_ACTIVE)]);
    assert_eq!(w.purchasing.draft_from_suggestions(Uuid::nil(), None, USER).await.map_err(code), Err("NOT_FOUND"));
    assert_eq!(
        w.purchasing.draft_from_suggestions(location, Some(Uuid::nil()), USER).await.map_err(code),
        Err("NOT_FOUND")
    );
}

/// Delegates to the store; before the first save, a rival receipt lands on the same purchase order.
struct RacingOrders {
    store: Arc<warehouse_domain::memory::InMemoryWarehouse>,
    rival: Mutex<Option<ReceiveInput>>,
}

#[async_trait]
impl PurchaseOrderRepository for RacingOrders {
    async fn create(&self, draft: PurchaseOrderDraft) -> Result<PurchaseOrder, RepoError> {
        self.store.create(draft).await
    }
    async fn create_all(&self, drafts: Vec<PurchaseOrderDraft>) -> Result<Vec<PurchaseOrder>, RepoError> {
        self.store.create_all(drafts).await
    }
    async fn get(&self, id: Uuid) -> Result<PurchaseOrder, RepoError> {
        PurchaseOrderRepository::get(&*self.store, id).await
    }
    async fn get_by_number(&self, number: &PurchaseOrderNumber) -> Result<PurchaseOrder, RepoError> {
        self.store.get_by_number(number).await
    }
    async fn list(&self, filter: &PurchaseOrderFilter, page: PageRequest) -> Result<Page<PurchaseOrder>, RepoError> {
        PurchaseOrderRepository::list(&*self.store, filter, page).await
    }
    async fn save(&self, change: &PurchaseOrderChange, by: Option<Uuid>) -> Result<(), RepoError> {
        let rival = self.rival.lock().expect("not poisoned").take();
        if let Some(rival) = rival {
            let current = PurchaseOrderRepository::get(&*self.store, change.purchase_order.id).await?;
            let won = current.receive(rival, clock().now()).expect("the rival fits");
            PurchaseOrderRepository::save(&*self.store, &won, None).await?;
        }
        PurchaseOrderRepository::save(&*self.store, change, by).await
    }
}

#[tokio::test]
async fn receipts_that_lost_a_race_are_decided_again_and_never_pass_what_was_ordered() {
    let w = World::new();
    let (supplier, location, product) = (w.supplier("Acme").await, w.location("L1").await, w.product("A").await);
    let lines = vec![PurchaseLineRequest { product_id: product, quantity: 10, unit_cost: 1 }];
    let po = PurchaseOrderRequest {
        supplier_id: supplier,
        location_id: location,
        currency: usd(),
        expected_at: None,
        notes: None,
        lines,
    };
    let po = w.purchasing.create(po, USER).await.expect("draft");
    let po = w.purchasing.submit(po.id).await.expect("ordered");
    let line_id = po.lines[0].id;
    let racing = |rival| {
        let orders = Arc::new(RacingOrders { store: w.store.clone(), rival: Mutex::new(Some(rival)) });
        let s = &w.store;
        PurchasingService::new(s.clone(), s.clone(), s.clone(), orders, s.clone(), clock(), usd())
    };

    // The rival takes 2 first: ours (3) is decided again on the fresh purchase order and fits.
    let po = racing(receive(line_id, 2)).receive(po.id, receive(line_id, 3), USER).await.expect("decided again");
    assert_eq!((po.lines[0].quantity_received, po.version), (5, 4), "over the rival's version 3");
    // The rival takes 4 of the 5 left: ours (4) no longer fits and receives nothing.
    let lost = racing(receive(line_id, 4)).receive(po.id, receive(line_id, 4), USER).await;
    assert_eq!(lost.map_err(code), Err("OVER_RECEIPT"));
    assert_eq!(w.stock_at(product, location).await, (9, 0), "2 + 3 + 4, never more than ordered");
    assert_eq!(w.purchasing.get(po.id).await.map(|p| p.lines[0].quantity_received), Ok(9));
}
