//! Adding, changing and removing a purchase order's lines: only in `draft`.
//!
//! Check order: the input first (`INVALID_QUANTITY`, `VALIDATION_ERROR` on `unit_cost`, `sku`,
//! `description`), then the state (`PO_NOT_EDITABLE`), then the line's existence (`NOT_FOUND`), then
//! the new subtotals (`VALIDATION_ERROR` on overflow). Line edits raise no event.

use time::OffsetDateTime;
use uuid::Uuid;

use super::change::{PurchaseLineChange, PurchaseOrderChange};
use super::order::{
    positive, too_many_lines, unit_cost, NewPurchaseOrderLine, PurchaseLineUpdate, PurchaseOrder, PurchaseOrderLine,
    MAX_PO_LINES,
};
use crate::error::WarehouseError;

impl PurchaseOrder {
    fn ensure_editable(&self) -> Result<(), WarehouseError> {
        if self.status.is_editable() {
            Ok(())
        } else {
            Err(WarehouseError::PoNotEditable { status: self.status.as_str() })
        }
    }

    fn line_index(&self, line_id: Uuid) -> Result<usize, WarehouseError> {
        self.lines
            .iter()
            .position(|l| l.id == line_id)
            .ok_or(WarehouseError::NotFound { entity: "purchase order line" })
    }

    /// Appends a line (several lines may name one product); raises no event.
    ///
    /// `INVALID_QUANTITY`, `VALIDATION_ERROR`, then `PO_NOT_EDITABLE` unless `draft`, then
    /// `VALIDATION_ERROR` on `lines` when it holds [`MAX_PO_LINES`] already.
    pub fn add_line(
        &self,
        line: NewPurchaseOrderLine,
        now: OffsetDateTime,
    ) -> Result<PurchaseOrderChange, WarehouseError> {
        let line = PurchaseOrderLine::build(self.id, line, now)?;
        self.ensure_editable()?;
        if self.lines.len() >= MAX_PO_LINES {
            return Err(too_many_lines());
        }
        let mut next = self.next_record(now);
        next.lines.push(line.clone());
        self.change(next, Some(PurchaseLineChange::Added(line)), Vec::new(), Vec::new())
    }

    /// Changes a line's quantity and/or unit cost (absent fields stay); raises no event.
    ///
    /// `INVALID_QUANTITY`, `VALIDATION_ERROR` on `unit_cost`, `PO_NOT_EDITABLE` unless `draft`, then
    /// `NOT_FOUND` for a line the purchase order does not have.
    pub fn change_line(
        &self,
        line_id: Uuid,
        update: PurchaseLineUpdate,
        now: OffsetDateTime,
    ) -> Result<PurchaseOrderChange, WarehouseError> {
        let quantity = update.quantity.map(positive).transpose()?;
        let cost = update.unit_cost.map(unit_cost).transpose()?;
        self.ensure_editable()?;
        let index = self.line_index(line_id)?;
        let current = &self.lines[index];
        let line =
            current.with(quantity.unwrap_or(current.quantity_ordered), cost.unwrap_or(current.unit_cost), now)?;
        let mut next = self.next_record(now);
        next.lines[index] = line.clone();
        self.change(next, Some(PurchaseLineChange::Updated(line)), Vec::new(), Vec::new())
    }

    /// Removes a line (the last one too: submitting is then `PO_EMPTY`); raises no event.
    ///
    /// `PO_NOT_EDITABLE` unless `draft`, then `NOT_FOUND`.
    pub fn remove_line(&self, line_id: Uuid, now: OffsetDateTime) -> Result<PurchaseOrderChange, WarehouseError> {
        self.ensure_editable()?;
        let index = self.line_index(line_id)?;
        let mut next = self.next_record(now);
        next.lines.remove(index);
        self.change(next, Some(PurchaseLineChange::Removed { line_id }), Vec::new(), Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::purchasing::order::tests::{at, draft_with, new_line, two_line_draft};
    use crate::purchasing::status::PurchaseOrderStatus;

    #[test]
    fn a_purchase_order_holds_at_most_its_lines_bound() {
        let full = draft_with((0..MAX_PO_LINES as u128).map(|i| new_line(i + 1, 1, 1)).collect());
        let refused = full.add_line(new_line(999, 1, 1), at(1)).map(|_| ());
        assert_eq!(refused, Err(too_many_lines()));
        let one_less = draft_with((1..MAX_PO_LINES as u128).map(|i| new_line(i, 1, 1)).collect());
        assert_eq!(
            one_less.add_line(new_line(999, 1, 1), at(1)).map(|c| c.purchase_order.lines.len()),
            Ok(MAX_PO_LINES)
        );
    }

    #[test]
    fn add_change_and_remove_in_draft() {
        let po = draft_with(vec![]);
        let added = po.add_line(new_line(1, 3, 200), at(1)).expect("draft");
        let line = added.purchase_order.lines[0].clone();
        assert_eq!(added.line, Some(PurchaseLineChange::Added(line.clone())));
        assert_eq!((added.purchase_order.subtotal, added.purchase_order.version), (600, 2));
        assert_eq!((added.expected_version, added.expected_status), (1, PurchaseOrderStatus::Draft));
        assert!(added.events.is_empty() && added.receipts.is_empty());
        let po = added.purchase_order;

        let changed =
            po.change_line(line.id, PurchaseLineUpdate { quantity: Some(5), unit_cost: None }, at(2)).expect("ok");
        let updated = &changed.purchase_order.lines[0];
        assert_eq!((updated.quantity_ordered, updated.unit_cost, updated.subtotal), (5, 200, 1_000));
        assert_eq!(changed.purchase_order.subtotal, 1_000);
        let po = changed.purchase_order;
        let changed =
            po.change_line(line.id, PurchaseLineUpdate { quantity: None, unit_cost: Some(0) }, at(3)).expect("ok");
        assert_eq!((changed.purchase_order.lines[0].quantity_ordered, changed.purchase_order.subtotal), (5, 0));
        assert!(matches!(changed.line, Some(PurchaseLineChange::Updated(_))));

        let removed = changed.purchase_order.remove_line(line.id, at(4)).expect("ok");
        assert_eq!(removed.line, Some(PurchaseLineChange::Removed { line_id: line.id }));
        assert!(removed.purchase_order.lines.is_empty());
        assert_eq!((removed.purchase_order.subtotal, removed.purchase_order.version), (0, 5));
    }

    #[test]
    fn input_is_checked_before_state_and_state_before_the_line() {
        let po = two_line_draft();
        let line = po.lines[0].id;
        let bad_quantity = PurchaseLineUpdate { quantity: Some(0), unit_cost: None };
        assert_eq!(po.change_line(line, bad_quantity, at(1)), Err(WarehouseError::InvalidQuantity));
        let bad_cost = PurchaseLineUpdate { quantity: None, unit_cost: Some(-1) };
        assert_eq!(po.change_line(line, bad_cost, at(1)).map_err(|e| e.field()), Err(Some("unit_cost")));
        let missing = WarehouseError::NotFound { entity: "purchase order line" };
        assert_eq!(po.change_line(uuid::Uuid::nil(), PurchaseLineUpdate::default(), at(1)), Err(missing.clone()));
        assert_eq!(po.remove_line(uuid::Uuid::nil(), at(1)), Err(missing));
        let overflow = PurchaseLineUpdate { quantity: Some(i64::MAX), unit_cost: Some(2) };
        assert_eq!(po.change_line(line, overflow, at(1)).map_err(|e| e.field()), Err(Some("subtotal")));

        let ordered = po.submit(at(2)).expect("has lines").purchase_order;
        let not_editable = WarehouseError::PoNotEditable { status: "ordered" };
        assert_eq!(ordered.add_line(new_line(3, 0, 1), at(3)), Err(WarehouseError::InvalidQuantity), "input first");
        assert_eq!(ordered.add_line(new_line(3, 1, 1), at(3)), Err(not_editable.clone()));
        assert_eq!(
            ordered.change_line(uuid::Uuid::nil(), PurchaseLineUpdate::default(), at(3)),
            Err(not_editable.clone()),
            "state before the line"
        );
        assert_eq!(ordered.remove_line(line, at(3)), Err(not_editable));
    }
}
