//! The promises of [`SupplierRepository`], [`PurchaseOrderRepository`] and [`ReorderRepository`].
//!
//! [`SupplierRepository`]: crate::purchasing::SupplierRepository
//! [`PurchaseOrderRepository`]: crate::purchasing::PurchaseOrderRepository
//! [`ReorderRepository`]: crate::purchasing::ReorderRepository

use shared_kernel::{CurrencyCode, PageRequest, StorageError};
use uuid::Uuid;

use super::{at, new_location, new_product, record_at, stamp, unique, PurchasingPorts};
use crate::error::WarehouseError;
use crate::movement::{MovementType, ReferenceType};
use crate::purchasing::{
    NewPurchaseOrder, NewPurchaseOrderLine, NewSupplier, PurchaseOrder, PurchaseOrderDraft, PurchaseOrderStatus,
    ReceiveInput, ReceiveLine, SuggestionFilter, Supplier, SupplierChanges, SupplierFilter,
};
use crate::quantities::Thresholds;
use crate::repository::{MovementFilter, RepoError};

fn stale() -> Result<(), RepoError> {
    Err(RepoError::Storage(StorageError::Stale))
}

async fn new_supplier(ports: PurchasingPorts<'_>) -> Supplier {
    let input = NewSupplier { name: unique("Supplier"), ..NewSupplier::default() };
    let supplier = Supplier::create(input, at(0)).expect("valid");
    ports.suppliers.create(&supplier).await.expect("create supplier");
    supplier
}

fn draft(supplier_id: Uuid, location_id: Uuid, lines: &[(Uuid, i64)]) -> PurchaseOrderDraft {
    let lines = lines
        .iter()
        .map(|&(product_id, quantity)| NewPurchaseOrderLine {
            product_id,
            quantity,
            unit_cost: 125,
            sku: None,
            description: None,
        })
        .collect();
    let currency = CurrencyCode::parse("EUR").expect("valid");
    let input = NewPurchaseOrder { supplier_id, location_id, currency, expected_at: None, notes: None, lines };
    PurchaseOrderDraft::new(input, stamp(1)).expect("valid")
}

/// An `ordered` purchase order of a new supplier delivering `lines` to `location_id`.
async fn ordered(ports: PurchasingPorts<'_>, location_id: Uuid, lines: &[(Uuid, i64)]) -> PurchaseOrder {
    let supplier = new_supplier(ports).await;
    let po = ports.purchase_orders.create(draft(supplier.id, location_id, lines)).await.expect("create");
    let submit = po.submit(at(2)).expect("has lines");
    ports.purchase_orders.save(&submit, None).await.expect("as read");
    submit.purchase_order
}

/// Suppliers are read back, found by their name, saved over the version read only (`Stale`), and
/// deleted only while none of their purchase orders is open (`SUPPLIER_HAS_OPEN_ORDERS`); a deleted
/// supplier is `NotFound` and gets no new purchase order.
pub async fn suppliers_are_compare_and_set_and_kept_while_orders_are_open(ports: PurchasingPorts<'_>) {
    let supplier = new_supplier(ports).await;
    assert_eq!(ports.suppliers.get(supplier.id).await.as_ref(), Ok(&supplier));
    let filter = SupplierFilter { search: Some(supplier.name.to_uppercase()), is_active: Some(true) };
    let page = PageRequest::new(None, None).expect("page");
    let found = ports.suppliers.list(&filter, page).await.expect("list");
    assert_eq!((found.total, found.items.first().map(|s| s.id)), (1, Some(supplier.id)));
    let renamed = SupplierChanges { notes: Some(Some("net 30".into())), ..SupplierChanges::default() };
    let updated = supplier.update(renamed, at(3)).expect("valid");
    assert_eq!(ports.suppliers.update(&updated, supplier.version + 1).await, stale());
    ports.suppliers.update(&updated, supplier.version).await.expect("as read");
    assert_eq!(ports.suppliers.get(supplier.id).await.as_ref(), Ok(&updated));

    let location = new_location(ports.stock.locations).await;
    let po = ports.purchase_orders.create(draft(supplier.id, location.id, &[])).await.expect("create");
    let refused = ports.suppliers.delete(supplier.id, at(4)).await;
    assert_eq!(refused, Err(RepoError::Refused(WarehouseError::SupplierHasOpenOrders)));
    let cancel = po.cancel(at(5)).expect("a draft");
    ports.purchase_orders.save(&cancel, None).await.expect("as read");
    ports.suppliers.delete(supplier.id, at(6)).await.expect("nothing open");
    let gone = Err(RepoError::Storage(StorageError::NotFound));
    assert_eq!(ports.suppliers.get(supplier.id).await.map(|_| ()), gone);
    assert_eq!(ports.suppliers.delete(supplier.id, at(7)).await, gone);
    let late = ports.purchase_orders.create(draft(supplier.id, location.id, &[])).await.map(|_| ());
    assert_eq!(late, Err(RepoError::Refused(WarehouseError::NotFound { entity: "supplier" })));
}

/// Every purchase order gets its own number, later ones higher; `create_all` numbers in the order
/// given and creates all or none; purchase orders are read back by id and number.
pub async fn purchase_orders_are_numbered_and_created_all_or_none(ports: PurchasingPorts<'_>) {
    let supplier = new_supplier(ports).await;
    let location = new_location(ports.stock.locations).await;
    let mut numbers = Vec::new();
    for _ in 0..3 {
        let po = ports.purchase_orders.create(draft(supplier.id, location.id, &[])).await.expect("create");
        assert_eq!((po.version, po.status), (1, PurchaseOrderStatus::Draft));
        assert_eq!(ports.purchase_orders.get_by_number(&po.po_number).await.as_ref(), Ok(&po));
        numbers.push(po.po_number);
    }
    let drafts = vec![draft(supplier.id, location.id, &[]), draft(supplier.id, location.id, &[])];
    let both = ports.purchase_orders.create_all(drafts).await.expect("create all");
    numbers.extend(both.iter().map(|po| po.po_number));
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "unique and rising: {numbers:?}");
    assert_eq!(ports.purchase_orders.get(both[1].id).await.as_ref(), Ok(&both[1]));

    let drafts = vec![draft(supplier.id, location.id, &[]), draft(Uuid::nil(), location.id, &[])];
    let first = drafts[0].id();
    assert!(ports.purchase_orders.create_all(drafts).await.is_err(), "a missing supplier");
    let none = ports.purchase_orders.get(first).await.map(|_| ());
    assert_eq!(none, Err(RepoError::Storage(StorageError::NotFound)), "all or none");
}

/// A change is written over the version and status it was computed from only (`Stale`); a receipt
/// raises the line, makes the location's record when missing and writes one `Receipt` movement per
/// line with its cost and reference, in one step; open purchase orders count as incoming stock.
pub async fn receipts_move_stock_with_their_movements_as_one_change(ports: PurchasingPorts<'_>) {
    let location = new_location(ports.stock.locations).await;
    let (fresh, stocked) = (new_product(ports.stock.products).await, new_product(ports.stock.products).await);
    record_at(ports.stock, stocked.id, location.id, 1).await;
    let po = ordered(ports, location.id, &[(fresh.id, 10), (stocked.id, 4)]).await;
    let incoming = ports.stock.inventory.availability(fresh.id).await.expect("availability");
    assert_eq!(incoming.quantity_incoming, 10);
    let (first, second) = (po.lines[0].id, po.lines[1].id);
    let lines = vec![ReceiveLine { line_id: first, quantity: 6 }, ReceiveLine { line_id: second, quantity: 4 }];
    let receipt = po.receive(ReceiveInput { lines, reason: None }, at(3)).expect("outstanding");
    ports.purchase_orders.save(&receipt, None).await.expect("as read");
    assert_eq!(ports.purchase_orders.save(&receipt, None).await, stale(), "computed from an older version");

    let stored = ports.purchase_orders.get(po.id).await.expect("read");
    assert_eq!(stored.status, PurchaseOrderStatus::PartiallyReceived);
    assert_eq!(stored.lines.iter().map(|l| l.quantity_received).collect::<Vec<_>>(), [6, 4]);
    let made = ports.stock.inventory.find(fresh.id, location.id).await.expect("read").expect("made");
    assert_eq!(made.quantity_on_hand, 6);
    let topped = ports.stock.inventory.find(stocked.id, location.id).await.expect("read").expect("live");
    assert_eq!(topped.quantity_on_hand, 5);
    let filter = MovementFilter { reference_id: Some(po.id), ..MovementFilter::default() };
    let page = PageRequest::new(None, None).expect("page");
    let movements = ports.stock.movements.list(&filter, page).await.expect("list").items;
    assert_eq!(movements.len(), 2);
    assert!(movements.iter().all(|m| m.movement_type == MovementType::Receipt
        && m.reference_type == ReferenceType::PurchaseOrder
        && m.unit_cost == Some(125)));
    let incoming = ports.stock.inventory.availability(fresh.id).await.expect("availability");
    assert_eq!(incoming.quantity_incoming, 4);
}

/// The candidates are the live low records (of the filter's location), each with its SKU and what
/// open purchase orders still bring there.
pub async fn reorder_candidates_are_the_low_records_with_their_incoming(ports: PurchasingPorts<'_>) {
    let location = new_location(ports.stock.locations).await;
    let (low, high) = (new_product(ports.stock.products).await, new_product(ports.stock.products).await);
    for (product, on_hand) in [(low.id, 2), (high.id, 9)] {
        let record = record_at(ports.stock, product, location.id, on_hand).await;
        let thresholds = Thresholds { reorder_point: Some(5), ..Thresholds::default() };
        let record = record.set_thresholds(thresholds, at(2)).expect("valid");
        ports.stock.inventory.update_thresholds(&record).await.expect("thresholds");
    }
    ordered(ports, location.id, &[(low.id, 3)]).await;
    let filter = SuggestionFilter { location_id: Some(location.id), supplier_id: None };
    let candidates = ports.reorder.candidates(&filter).await.expect("candidates");
    assert_eq!(candidates.len(), 1, "only the low record: {candidates:?}");
    let candidate = &candidates[0];
    assert_eq!((candidate.product_id, candidate.sku.as_str()), (low.id, low.sku.as_str()));
    assert_eq!((candidate.quantity_available, candidate.quantity_incoming, candidate.reorder_point), (2, 3, Some(5)));
    assert_eq!(candidate.supplier_id, None, "the product names no supplier");
    // The suggestions are the candidates with something to order, a page at a time.
    let page = ports.reorder.suggestions(&filter, PageRequest::new(None, None).expect("valid")).await.expect("page");
    assert_eq!((page.items.as_slice(), page.total), (std::slice::from_ref(candidate), 1));
    // The writes of a record answer its incoming stock, read in their transaction.
    let record = ports.stock.inventory.get(candidate.inventory_id).await.expect("live");
    let receipt = record.receive(crate::operations::Receipt::of(1), stamp(3)).expect("valid");
    assert_eq!(ports.stock.inventory.apply(&receipt).await, Ok(3));
    let thresholds = Thresholds { reorder_point: Some(6), ..Thresholds::default() };
    let lowered = receipt.inventory.set_thresholds(thresholds, at(4)).expect("valid");
    let updated = ports.stock.inventory.update_thresholds(&lowered).await.expect("thresholds");
    assert_eq!((updated.quantity_on_hand, updated.reorder_point, updated.incoming), (3, Some(6), 3));
}
