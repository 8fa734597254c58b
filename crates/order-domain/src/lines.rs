//! Adding, re-quantifying and removing lines: allowed only while the order is pending.
//!
//! Check order: the input first (`INVALID_QUANTITY`, `INVALID_PRICE`, `CURRENCY_MISMATCH`,
//! `VALIDATION_ERROR`), then the state (`ORDER_NOT_EDITABLE`), then the line's existence
//! (`LINE_NOT_FOUND`), then the new totals (`VALIDATION_ERROR` on overflow). Line edits raise no event.

use time::OffsetDateTime;
use uuid::Uuid;

use crate::change::{LineChange, OrderChange};
use crate::error::OrderError;
use crate::line::{check_quantity, NewLine, OrderLine};
use crate::order::Order;

impl Order {
    fn ensure_editable(&self) -> Result<(), OrderError> {
        if self.status.is_editable() {
            Ok(())
        } else {
            Err(OrderError::NotEditable { status: self.status })
        }
    }

    fn line_index(&self, line_id: Uuid) -> Result<usize, OrderError> {
        self.lines.iter().position(|l| l.id == line_id).ok_or(OrderError::LineNotFound)
    }

    /// Appends a line priced in the order's currency and recomputes the totals; raises no event.
    ///
    /// Errors, in this order: `INVALID_QUANTITY`, `INVALID_PRICE`, `CURRENCY_MISMATCH`,
    /// `VALIDATION_ERROR` (text too long, subtotal out of range), `ORDER_NOT_EDITABLE` when not pending,
    /// then `VALIDATION_ERROR` when the new order total is out of range.
    pub fn add_line(&self, line: NewLine, now: OffsetDateTime) -> Result<OrderChange, OrderError> {
        let line = OrderLine::build(self.id, self.currency, line, now)?;
        self.ensure_editable()?;
        let mut next = self.next_record(now);
        next.lines.push(line.clone());
        self.change(next, Some(LineChange::Added(line)), None)
    }

    /// Sets a line's quantity (`PUT …/lines/:line_id {quantity}`) and recomputes the totals.
    ///
    /// `INVALID_QUANTITY` unless > 0, `ORDER_NOT_EDITABLE` when not pending, `LINE_NOT_FOUND`, and
    /// `VALIDATION_ERROR` when a subtotal or total is out of range.
    pub fn change_line_quantity(
        &self,
        line_id: Uuid,
        quantity: i64,
        now: OffsetDateTime,
    ) -> Result<OrderChange, OrderError> {
        check_quantity(quantity)?;
        self.ensure_editable()?;
        let index = self.line_index(line_id)?;
        let line = self.lines[index].with_quantity(quantity, now)?;
        let mut next = self.next_record(now);
        next.lines[index] = line.clone();
        self.change(next, Some(LineChange::Updated(line)), None)
    }

    /// Removes a line and recomputes the totals (removing the last line is allowed).
    ///
    /// `ORDER_NOT_EDITABLE` when not pending, then `LINE_NOT_FOUND`.
    pub fn remove_line(&self, line_id: Uuid, now: OffsetDateTime) -> Result<OrderChange, OrderError> {
        self.ensure_editable()?;
        let index = self.line_index(line_id)?;
        let mut next = self.next_record(now);
        next.lines.remove(index);
        self.change(next, Some(LineChange::Removed { line_id }), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::tests::{at, in_state, new_line, new_order, order_with_line, pending_order, usd};
    use crate::order::OrderDraft;
    use crate::status::{OrderStatus, ReservationStatus};
    use crate::{NewLine, OrderNumber, Totals};
    use shared_kernel::CurrencyCode;

    #[test]
    fn add_recomputes_totals_and_reports_the_line() {
        let order = pending_order();
        let change = order.add_line(new_line(3, 250), at(5)).expect("editable");
        assert_eq!(change.order.totals(), Totals { subtotal: 750, tax: 0, discount: 0, total: 750 });
        assert_eq!(change.order.lines.len(), 1);
        assert_eq!((change.expected_version, change.order.version), (1, 2));
        assert_eq!(change.expected_status, OrderStatus::Pending);
        assert_eq!(change.order.updated_at, at(5));
        assert!(change.events.is_empty());
        let Some(LineChange::Added(line)) = &change.line else { panic!("expected an added line") };
        assert_eq!(line, &change.order.lines[0]);
        assert_eq!(line.order_id, order.id);
        let second = change.order.add_line(new_line(1, 50), at(6)).expect("editable");
        assert_eq!(second.order.subtotal, 800);
        assert_eq!(second.order.lines.len(), 2);
    }

    #[test]
    fn add_applies_tax_and_discount_and_never_goes_negative() {
        let draft = OrderDraft::new(new_order(100, 900), at(0)).expect("valid");
        let number = OrderNumber::new(draft.year(), 1).expect("valid");
        let (order, _) = draft.into_order(number).expect("same year");
        let change = order.add_line(new_line(1, 500), at(1)).expect("editable");
        assert_eq!(change.order.totals(), Totals { subtotal: 500, tax: 100, discount: 900, total: 0 });
        let change = change.order.add_line(new_line(1, 1000), at(2)).expect("editable");
        assert_eq!(change.order.totals(), Totals { subtotal: 1500, tax: 100, discount: 900, total: 700 });
    }

    #[test]
    fn add_rejects_bad_input() {
        let order = pending_order();
        assert_eq!(order.add_line(new_line(0, 1), at(1)), Err(OrderError::InvalidQuantity));
        assert_eq!(order.add_line(new_line(1, -1), at(1)), Err(OrderError::InvalidPrice));
        let eur = CurrencyCode::parse("EUR").expect("valid");
        assert_eq!(
            order.add_line(NewLine { currency: eur, ..new_line(1, 1) }, at(1)),
            Err(OrderError::CurrencyMismatch { order: usd(), line: eur })
        );
    }

    #[test]
    fn order_total_overflow_is_an_error_not_a_wrap() {
        let order = pending_order().add_line(new_line(1, i64::MAX), at(1)).expect("one line fits").order;
        assert_eq!(order.add_line(new_line(1, 1), at(2)), Err(OrderError::out_of_range("subtotal")));
        let line_id = order.lines[0].id;
        assert_eq!(order.change_line_quantity(line_id, 2, at(2)), Err(OrderError::out_of_range("quantity")));
    }

    #[test]
    fn change_quantity_recomputes() {
        let order = order_with_line();
        let line_id = order.lines[0].id;
        let change = order.change_line_quantity(line_id, 5, at(7)).expect("editable");
        assert_eq!(change.order.subtotal, 2500);
        assert_eq!(change.order.total, 2500);
        let Some(LineChange::Updated(line)) = &change.line else { panic!("expected an updated line") };
        assert_eq!((line.id, line.quantity, line.subtotal, line.updated_at), (line_id, 5, 2500, at(7)));
        assert_eq!(line.created_at, order.lines[0].created_at);
        assert_eq!(order.change_line_quantity(line_id, 0, at(7)), Err(OrderError::InvalidQuantity));
        assert_eq!(order.change_line_quantity(Uuid::nil(), 1, at(7)), Err(OrderError::LineNotFound));
    }

    #[test]
    fn remove_recomputes_and_allows_emptying() {
        let order = order_with_line();
        let line_id = order.lines[0].id;
        let change = order.remove_line(line_id, at(8)).expect("editable");
        assert!(change.order.lines.is_empty());
        assert_eq!(change.order.totals(), Totals { subtotal: 0, tax: 0, discount: 0, total: 0 });
        assert_eq!(change.line, Some(LineChange::Removed { line_id }));
        assert_eq!(order.remove_line(Uuid::nil(), at(8)), Err(OrderError::LineNotFound));
    }

    #[test]
    fn every_non_pending_status_refuses_line_edits() {
        for status in OrderStatus::ALL.into_iter().filter(|s| *s != OrderStatus::Pending) {
            let order = in_state(status, ReservationStatus::Pending);
            let line_id = order.lines[0].id;
            let refused = Err(OrderError::NotEditable { status });
            assert_eq!(order.add_line(new_line(1, 1), at(9)), refused, "add in {status}");
            assert_eq!(order.change_line_quantity(line_id, 3, at(9)), refused, "change in {status}");
            assert_eq!(order.remove_line(line_id, at(9)), refused, "remove in {status}");
            // Input errors are reported before the state.
            assert_eq!(order.add_line(new_line(0, 1), at(9)), Err(OrderError::InvalidQuantity));
            assert_eq!(order.change_line_quantity(line_id, 0, at(9)), Err(OrderError::InvalidQuantity));
            // The state is reported before a missing line.
            assert_eq!(order.remove_line(Uuid::nil(), at(9)), refused);
        }
    }
}
