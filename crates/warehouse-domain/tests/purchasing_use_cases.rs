//! Suppliers and purchase orders (`SupplierService`, `PurchasingService`) over the in-memory store:
//! each rule, each refusal in its order, receipts all or nothing, a lost race decided again.

#![cfg(feature = "memory")]

mod common;

use common::{code, event_names, usd, World, USER};
use shared_kernel::PageRequest;
use uuid::Uuid;
use warehouse_domain::application::{PurchaseLineRequest, PurchaseOrderRequest};
use warehouse_domain::purchasing::{PurchaseLineUpdate, ReceiveInput, ReceiveLine, SupplierChanges};
use warehouse_domain::{
    InventoryRepository, MovementFilter, MovementType, PurchaseOrderStatus, ReferenceType, RepoError,
    StockMovementRepository, WarehouseError,
};

fn not_found(entity: &'static str) -> RepoError {
    RepoError::Refused(WarehouseError::NotFound { entity })
}

fn line(product_id: Uuid, quantity: i64, unit_cost: i64) -> PurchaseLineRequest {
    PurchaseLineRequest { product_id, quantity, unit_cost }
}

fn request(supplier_id: Uuid, location_id: Uuid, lines: Vec<PurchaseLineRequest>) -> PurchaseOrderRequest {
    PurchaseOrderRequest { supplier_id, location_id, currency: usd(), expected_at: None, notes: None, lines }
}

fn receive(lines: &[(Uuid, i64)]) -> ReceiveInput {
    ReceiveInput {
        lines: lines.iter().map(|&(line_id, quantity)| ReceiveLine { line_id, quantity }).collect(),
        reason: Some("delivery".into()),
    }
}

#[tokio::test]
async fn suppliers_are_deleted_only_without_open_purchase_orders() {
    let w = World::new();
    let blank = warehouse_domain::purchasing::NewSupplier { name: " ".into(), ..Default::default() };
    assert_eq!(w.suppliers.create(blank).await.map_err(code), Err("VALIDATION_ERROR"));
    let bad_email = warehouse_domain::purchasing::NewSupplier {
        name: "Acme".into(),
        email: Some("nope".into()),
        ..Default::default()
    };
    assert_eq!(w.suppliers.create(bad_email).await.map_err(code), Err("INVALID_EMAIL"));
    let supplier = w.supplier("Acme").await;
    let renamed = SupplierChanges { name: Some("Acme GmbH".into()), ..SupplierChanges::default() };
    let blank = SupplierChanges { name: Some("".into()), ..SupplierChanges::default() };
    assert_eq!(w.suppliers.update(supplier, blank).await.map_err(field), Err(Some("name")));
    let slow = SupplierChanges { lead_time_days: Some(Some(366)), ..SupplierChanges::default() };
    assert_eq!(w.suppliers.update(supplier, slow).await.map_err(field), Err(Some("lead_time_days")));
    let updated = w.suppliers.update(supplier, renamed).await.expect("update");
    assert_eq!((updated.name.as_str(), updated.version, updated.currency), ("Acme GmbH", 2, Some(usd())));

    let location = w.location("L1").await;
    let po = w.purchasing.create(request(supplier, location, vec![]), USER).await.expect("draft");
    assert_eq!(w.suppliers.delete(supplier).await.map_err(code), Err("SUPPLIER_HAS_OPEN_ORDERS"));
    w.purchasing.cancel(po.id).await.expect("cancel the draft");
    w.suppliers.delete(supplier).await.expect("no open purchase order left");
    assert_eq!(w.suppliers.get(supplier).await, Err(not_found("supplier")));
    assert_eq!(w.suppliers.delete(supplier).await, Err(not_found("supplier")));
    assert_eq!(w.suppliers.update(supplier, SupplierChanges::default()).await, Err(not_found("supplier")));
    let late = w.purchasing.create(request(supplier, location, vec![]), USER).await;
    assert_eq!(late, Err(not_found("supplier")));
}

#[tokio::test]
async fn creating_checks_input_then_supplier_then_location_then_products() {
    let w = World::new();
    let (supplier, location, product) = (w.supplier("Acme").await, w.location("L1").await, w.product("A-1").await);
    let create = |s, l, lines| w.purchasing.create(request(s, l, lines), USER);
    let nil = Uuid::nil();
    assert_eq!(create(nil, nil, vec![line(nil, 0, 1)]).await.map_err(code), Err("INVALID_QUANTITY"));
    assert_eq!(create(nil, nil, vec![line(nil, 1, -1)]).await.map_err(code), Err("VALIDATION_ERROR"));
    assert_eq!(create(nil, nil, vec![line(nil, 1, 1)]).await, Err(not_found("supplier")));
    assert_eq!(create(supplier, nil, vec![line(nil, 1, 1)]).await, Err(not_found("location")));
    assert_eq!(create(supplier, location, vec![line(nil, 1, 1)]).await, Err(not_found("product")));

    let retired = w.product("A-2").await;
    w.products.discontinue(retired).await.expect("discontinue");
    let refused = create(supplier, location, vec![line(product, 1, 1), line(retired, 1, 1)]).await;
    assert_eq!(refused.map_err(|e| (code(e.clone()), field(e))), Err(("VALIDATION_ERROR", Some("product_id"))));
    w.locations.deactivate(location).await.expect("deactivate");
    let refused = create(supplier, location, vec![]).await;
    assert_eq!(refused.map_err(field), Err(Some("location_id")));
    let idle = SupplierChanges { is_active: Some(false), ..SupplierChanges::default() };
    w.suppliers.update(supplier, idle).await.expect("deactivate");
    assert_eq!(create(supplier, location, vec![]).await.map_err(field), Err(Some("supplier_id")));

    let (supplier, location) = (w.supplier("Beta").await, w.location("L2").await);
    let po = create(supplier, location, vec![line(product, 3, 250)]).await.expect("created");
    assert_eq!(
        (po.po_number.to_string().as_str(), po.status, po.subtotal),
        ("PO-2026-000001", PurchaseOrderStatus::Draft, 750)
    );
    assert_eq!((po.lines[0].sku.as_deref(), po.lines[0].description.as_deref()), (Some("A-1"), Some("Product A-1")));
    assert_eq!(po.created_by, Some(USER));
    let next = create(supplier, location, vec![]).await.expect("created");
    assert_eq!(next.po_number.to_string(), "PO-2026-000002");
    assert_eq!(w.purchasing.get(Uuid::nil()).await, Err(not_found("purchase order")));
    assert!(event_names(&w.store).is_empty(), "creating raises no event");
}

fn field(error: RepoError) -> Option<&'static str> {
    match error {
        RepoError::Refused(e) => e.field(),
        RepoError::Storage(_) => None,
    }
}

#[tokio::test]
async fn lines_change_only_in_draft_and_an_empty_order_is_not_submitted() {
    let w = World::new();
    let (supplier, location, product) = (w.supplier("Acme").await, w.location("L1").await, w.product("A-1").await);
    let po = w.purchasing.create(request(supplier, location, vec![]), USER).await.expect("draft");
    assert_eq!(w.purchasing.submit(po.id).await.map_err(code), Err("PO_EMPTY"));
    let nil = Uuid::nil();
    assert_eq!(w.purchasing.add_line(po.id, line(nil, 1, 1)).await, Err(not_found("product")));
    assert_eq!(w.purchasing.add_line(nil, line(product, 1, 1)).await, Err(not_found("purchase order")));
    assert_eq!(w.purchasing.add_line(po.id, line(product, 0, 100)).await.map_err(code), Err("INVALID_QUANTITY"));
    let retired = w.product("R-1").await;
    w.products.discontinue(retired).await.expect("discontinue");
    assert_eq!(w.purchasing.add_line(po.id, line(retired, 1, 1)).await.map_err(field), Err(Some("product_id")));
    let po = w.purchasing.add_line(po.id, line(product, 2, 100)).await.expect("added");
    let line_id = po.lines[0].id;
    assert_eq!(po.lines[0].sku.as_deref(), Some("A-1"));
    let update = PurchaseLineUpdate { quantity: Some(5), unit_cost: None };
    let po = w.purchasing.change_line(po.id, line_id, update).await.expect("changed");
    assert_eq!((po.lines[0].quantity_ordered, po.subtotal), (5, 500));
    assert_eq!(w.purchasing.change_line(po.id, nil, update).await, Err(not_found("purchase order line")));
    let po = w.purchasing.remove_line(po.id, line_id).await.expect("removed");
    assert!(po.lines.is_empty());
    let po = w.purchasing.add_line(po.id, line(product, 2, 100)).await.expect("added");
    let ordered = w.purchasing.submit(po.id).await.expect("submitted");
    assert_eq!((ordered.status, ordered.submitted_at.is_some()), (PurchaseOrderStatus::Ordered, true));
    assert_eq!(w.purchasing.add_line(po.id, line(product, 1, 1)).await.map_err(code), Err("PO_NOT_EDITABLE"));
    assert_eq!(
        w.purchasing.change_line(po.id, ordered.lines[0].id, update).await.map_err(code),
        Err("PO_NOT_EDITABLE")
    );
    assert_eq!(w.purchasing.remove_line(po.id, ordered.lines[0].id).await.map_err(code), Err("PO_NOT_EDITABLE"));
    assert_eq!(w.purchasing.submit(po.id).await.map_err(code), Err("INVALID_STATUS_TRANSITION"));
    assert_eq!(w.purchasing.close(po.id).await.map_err(code), Err("INVALID_STATUS_TRANSITION"));
    assert_eq!(w.purchasing.cancel(po.id).await.map(|p| p.status), Ok(PurchaseOrderStatus::Cancelled));
    assert_eq!(event_names(&w.store), ["purchase_order.submitted", "purchase_order.cancelled"]);
}

#[tokio::test]
async fn a_partial_receipt_moves_stock_an_over_receipt_moves_nothing_and_close_ends_it_short() {
    let w = World::new();
    let (supplier, location) = (w.supplier("Acme").await, w.location("L1").await);
    let (a, b) = (w.product("A-1").await, w.product("B-1").await);
    w.record(b, location, 1, None).await;
    let po = w.purchasing.create(request(supplier, location, vec![line(a, 10, 250), line(b, 4, 1_000)]), USER).await;
    let po = w.purchasing.submit(po.expect("draft").id).await.expect("ordered");
    let (line_a, line_b) = (po.lines[0].id, po.lines[1].id);
    assert_eq!(w.store.availability(a).await.map(|av| av.quantity_incoming), Ok(10));
    assert_eq!(w.purchasing.receive(po.id, receive(&[(line_a, 0)]), USER).await.map_err(code), Err("INVALID_QUANTITY"));
    assert_eq!(
        w.purchasing.receive(po.id, receive(&[(Uuid::nil(), 1)]), USER).await,
        Err(not_found("purchase order line"))
    );

    let po = w.purchasing.receive(po.id, receive(&[(line_a, 4)]), USER).await.expect("4 of 10");
    assert_eq!((po.status, po.lines[0].quantity_received), (PurchaseOrderStatus::PartiallyReceived, 4));
    assert_eq!(w.stock_at(a, location).await, (4, 0), "the record was made");
    assert_eq!(w.store.availability(a).await.map(|av| av.quantity_incoming), Ok(6));
    let filter = MovementFilter { reference_id: Some(po.id), ..MovementFilter::default() };
    let page = PageRequest::new(None, None).expect("page");
    let movements = StockMovementRepository::list(&*w.store, &filter, page).await.expect("list").items;
    let receipt = &movements[0];
    assert_eq!(
        (receipt.movement_type, receipt.reference_type, receipt.quantity),
        (MovementType::Receipt, ReferenceType::PurchaseOrder, 4)
    );
    assert_eq!((receipt.unit_cost, receipt.total_cost, receipt.currency), (Some(250), Some(1_000), Some(usd())));
    assert_eq!((receipt.created_by, receipt.reason.as_deref()), (Some(USER), Some("delivery")));

    let over = w.purchasing.receive(po.id, receive(&[(line_b, 1), (line_a, 7)]), USER).await;
    assert_eq!(over.map_err(code), Err("OVER_RECEIPT"));
    assert_eq!((w.stock_at(a, location).await, w.stock_at(b, location).await), ((4, 0), (1, 0)), "nothing received");
    assert_eq!(w.purchasing.get(po.id).await.map(|p| p.version), Ok(po.version));
    assert_eq!(w.purchasing.cancel(po.id).await.map_err(code), Err("INVALID_STATUS_TRANSITION"));

    let closed = w.purchasing.close(po.id).await.expect("closed short");
    assert_eq!((closed.status, closed.closed_at.is_some()), (PurchaseOrderStatus::Closed, true));
    assert_eq!(w.store.availability(a).await.map(|av| av.quantity_incoming), Ok(0), "no longer expected");
    assert_eq!(
        w.purchasing.receive(po.id, receive(&[(line_a, 1)]), USER).await.map_err(code),
        Err("INVALID_STATUS_TRANSITION")
    );
    assert_eq!(event_names(&w.store), ["purchase_order.submitted", "purchase_order.received", "purchase_order.closed"]);

    let po = w.purchasing.create(request(supplier, location, vec![line(b, 2, 5)]), USER).await.expect("draft");
    let po = w.purchasing.submit(po.id).await.expect("ordered");
    let done = w.purchasing.receive(po.id, receive(&[(po.lines[0].id, 2)]), USER).await.expect("all of it");
    assert_eq!((done.status, done.received_at.is_some()), (PurchaseOrderStatus::Received, true));
    assert_eq!(w.stock_at(b, location).await, (3, 0));
    let record = w.store.find(b, location).await.expect("read").expect("a record");
    assert_eq!(record.quantity_on_hand, 3);
}
