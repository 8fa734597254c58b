//! Builds a purchase order's events (`event_contracts::purchasing`) from its state; `occurred_at` is
//! the operation's `now`, and the aggregate id is the purchase order's id.

use event_contracts::purchasing::{
    PurchaseOrderEventData, PurchaseOrderEventLine, PurchaseOrderReceived, ReceivedLine,
};
use event_contracts::Topic;
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;

use super::order::PurchaseOrderRecord;

/// `purchase_order.submitted`, `.cancelled` or `.closed` (`name`): the purchase order after the move.
pub(super) fn status_event(name: &'static str, po: &PurchaseOrderRecord, now: OffsetDateTime) -> EventEnvelope {
    let data = PurchaseOrderEventData {
        purchase_order_id: po.id,
        po_number: po.po_number.to_string(),
        supplier_id: po.supplier_id,
        location_id: po.location_id,
        currency: po.currency,
        status: po.status.as_str().to_owned(),
        subtotal: po.subtotal,
        lines: po
            .lines
            .iter()
            .map(|l| PurchaseOrderEventLine {
                line_id: l.id,
                product_id: l.product_id,
                quantity_ordered: l.quantity_ordered,
                quantity_received: l.quantity_received,
                unit_cost: l.unit_cost,
            })
            .collect(),
    };
    EventEnvelope::with_payload(name, po.id, now, &data)
}

/// `purchase_order.received`: what one receipt brought in (`received`), and the status it left.
pub(super) fn received_event(
    po: &PurchaseOrderRecord,
    received: Vec<ReceivedLine>,
    reason: Option<String>,
    now: OffsetDateTime,
) -> EventEnvelope {
    PurchaseOrderReceived {
        purchase_order_id: po.id,
        po_number: po.po_number.to_string(),
        supplier_id: po.supplier_id,
        location_id: po.location_id,
        currency: po.currency,
        status: po.status.as_str().to_owned(),
        received,
        reason,
    }
    .to_event(po.id, now)
}
