//! Purchasing: suppliers, and purchase orders that bring stock in.
//!
//! A [`Supplier`] is who a [`PurchaseOrder`] is placed with. A purchase order is numbered
//! `PO-<year>-<6 digits>` ([`crate::numbers::PurchaseOrderNumber`]), delivers to one location in one
//! currency, and moves through this state machine (every status against every trigger, pinned by
//! `lifecycle::tests::every_status_against_every_trigger`):
//!
//! | status \ trigger | add / change / remove line | submit | receive | cancel | close |
//! |---|---|---|---|---|---|
//! | `draft` | ✓ | → `ordered` (no lines: `PO_EMPTY`) | ✗ | → `cancelled` | ✗ |
//! | `ordered` | `PO_NOT_EDITABLE` | ✗ | → `partially_received` / `received` | → `cancelled` (nothing received) | ✗ |
//! | `partially_received` | `PO_NOT_EDITABLE` | ✗ | → `partially_received` / `received` | ✗ | → `closed` |
//! | `received`, `cancelled`, `closed` | `PO_NOT_EDITABLE` | ✗ | ✗ | ✗ | ✗ |
//!
//! ✗ is `INVALID_STATUS_TRANSITION` (409). A receipt asking more of a line than it still expects is
//! `OVER_RECEIPT` (409) and receives nothing; a line the purchase order does not have is `NOT_FOUND`
//! (404, like a line in the path of `PUT …/lines/{line_id}`); a line named twice in one receipt is
//! `VALIDATION_ERROR` on `lines`. Each operation returns a [`PurchaseOrderChange`]: the new state, the
//! version and status it was computed from (a compare-and-set), the line row touched, the stock to
//! receive ([`ReceiptInstruction`], one `Receipt` movement each) and the events
//! (`purchase_order.submitted`, `.received`, `.cancelled`, `.closed`). Creating and editing lines raise
//! no event. While `ordered` or `partially_received`, what a purchase order still expects counts as
//! incoming stock at its location ([`PurchaseOrder::incoming`]). Ports: [`SupplierRepository`],
//! [`PurchaseOrderRepository`], [`ReorderRepository`].
//!
//! ```
//! use shared_kernel::CurrencyCode;
//! use time::macros::datetime;
//! use uuid::Uuid;
//! use warehouse_domain::numbers::PurchaseOrderNumber;
//! use warehouse_domain::purchasing::{
//!     NewPurchaseOrder, NewPurchaseOrderLine, PurchaseOrderDraft, PurchaseOrderStatus, ReceiveInput, ReceiveLine,
//! };
//! use warehouse_domain::{ReferenceType, Stamp, WarehouseError};
//!
//! let stamp = Stamp { at: datetime!(2026-03-01 10:00 UTC), by: Some(Uuid::from_u128(9)) };
//! let widget = |quantity| NewPurchaseOrderLine {
//!     product_id: Uuid::from_u128(1),
//!     quantity,
//!     unit_cost: 250,
//!     sku: Some("W-1".into()),
//!     description: Some("Widget".into()),
//! };
//! let input = NewPurchaseOrder {
//!     supplier_id: Uuid::from_u128(2),
//!     location_id: Uuid::from_u128(3),
//!     currency: CurrencyCode::parse("EUR").expect("valid"),
//!     expected_at: None,
//!     notes: None,
//!     lines: vec![widget(10)],
//! };
//! // The adapter numbers the draft inside its create transaction.
//! let draft = PurchaseOrderDraft::new(input, stamp).expect("valid");
//! let po = draft.into_purchase_order(PurchaseOrderNumber::new(2026, 1).expect("valid")).expect("same year");
//! assert_eq!((po.status, po.subtotal), (PurchaseOrderStatus::Draft, 2_500));
//!
//! // Submit: the change carries the compare-and-set condition and the event.
//! let change = po.submit(stamp.at).expect("a draft with a line");
//! assert_eq!((change.expected_version, change.expected_status), (1, PurchaseOrderStatus::Draft));
//! assert_eq!(change.events[0].name, "purchase_order.submitted");
//! let po = change.purchase_order; // after `PurchaseOrderRepository::save(&change)` succeeded
//!
//! // Receive 4 of 10: partially received, one Receipt to write with its cost and reference.
//! let line_id = po.lines[0].id;
//! let receive = |quantity| ReceiveInput { lines: vec![ReceiveLine { line_id, quantity }], reason: None };
//! let change = po.receive(receive(4), stamp.at).expect("4 are outstanding");
//! assert_eq!(change.purchase_order.status, PurchaseOrderStatus::PartiallyReceived);
//! let receipt = change.receipts[0].receipt(); // for `Inventory::receive` at the order's location
//! assert_eq!((receipt.quantity, receipt.reference_type), (4, Some(ReferenceType::PurchaseOrder)));
//! assert_eq!(change.events[0].name, "purchase_order.received");
//! let po = change.purchase_order;
//!
//! // 7 more would pass what was ordered: refused, nothing received.
//! assert_eq!(
//!     po.receive(receive(7), stamp.at).map(|_| ()),
//!     Err(WarehouseError::OverReceipt { line_id, requested: 7, outstanding: 6 })
//! );
//!
//! // Close short: the 6 still outstanding are no longer expected.
//! let closed = po.close(stamp.at).expect("partially received").purchase_order;
//! assert_eq!((closed.status, closed.incoming(Uuid::from_u128(1))), (PurchaseOrderStatus::Closed, 0));
//! ```

pub mod change;
mod events;
pub mod lifecycle;
pub mod lines;
pub mod order;
pub mod repository;
pub mod status;
pub mod supplier;

pub use change::{PurchaseLineChange, PurchaseOrderChange, ReceiptInstruction};
pub use lifecycle::{ReceiveInput, ReceiveLine};
pub use order::{
    NewPurchaseOrder, NewPurchaseOrderLine, PurchaseLineUpdate, PurchaseOrder, PurchaseOrderDraft, PurchaseOrderLine,
    PurchaseOrderLineRecord, PurchaseOrderRecord, MAX_LINE_DESCRIPTION_CHARS, MAX_LINE_SKU_CHARS, MAX_PO_NOTES_CHARS,
};
pub use repository::{
    PurchaseOrderFilter, PurchaseOrderRepository, ReorderRepository, SuggestionFilter, SupplierFilter,
    SupplierRepository,
};
pub use status::PurchaseOrderStatus;
pub use supplier::{
    NewSupplier, Supplier, SupplierChanges, SupplierRecord, MAX_LEAD_TIME_DAYS, MAX_PHONE_CHARS,
    MAX_SUPPLIER_NAME_CHARS, MAX_SUPPLIER_NOTES_CHARS,
};
