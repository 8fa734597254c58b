//! Status transitions of an order (`docs/orders-and-warehouse.md`).
//!
//! | trigger | allowed from | else | sets | event |
//! |---|---|---|---|---|
//! | confirm | pending with ≥ 1 line | not pending: `INVALID_STATUS_TRANSITION`; no lines: `ORDER_EMPTY` | `confirmed_at`, reservation `pending` | `order.confirmed` |
//! | process | confirmed | `INVALID_STATUS_TRANSITION` | | none |
//! | fulfill | processing with reservation `reserved` | wrong status: `INVALID_STATUS_TRANSITION`; else `STOCK_NOT_RESERVED` | `fulfilled_at` | `order.fulfilled` |
//! | cancel | pending, confirmed, processing | cancelled: `ORDER_ALREADY_CANCELLED`; fulfilled: `INVALID_STATUS_TRANSITION` | `cancelled_at` | `order.cancelled` |
//! | delete | pending, cancelled | `INVALID_STATUS_TRANSITION` (no separate code is needed: it is a disallowed move) | | none |
//!
//! Fulfilling leaves the reservation at `reserved`: the order context only moves it to `committed` when
//! the warehouse reports that it committed the stock ([`Order::mark_committed`]). Cancelling leaves it
//! as it is until the warehouse reports the release ([`Order::mark_released`]).

use time::OffsetDateTime;

use crate::change::{OrderChange, OrderDeletion};
use crate::error::OrderError;
use crate::events::{ORDER_CANCELLED, ORDER_CONFIRMED, ORDER_FULFILLED};
use crate::order::Order;
use crate::status::{OrderStatus, ReservationStatus};

impl Order {
    fn require(&self, from: OrderStatus, action: &'static str) -> Result<(), OrderError> {
        if self.status == from {
            Ok(())
        } else {
            Err(OrderError::InvalidTransition { from: self.status, action })
        }
    }

    /// pending (with lines) → confirmed; sets `confirmed_at`, reservation `pending`, and raises
    /// `order.confirmed`, on which the warehouse reserves.
    ///
    /// `INVALID_STATUS_TRANSITION` when not pending; `ORDER_EMPTY` when pending without lines.
    pub fn confirm(&self, now: OffsetDateTime) -> Result<OrderChange, OrderError> {
        self.require(OrderStatus::Pending, "confirm")?;
        if self.lines.is_empty() {
            return Err(OrderError::OrderEmpty);
        }
        let mut next = self.next_record(now);
        next.status = OrderStatus::Confirmed;
        next.confirmed_at = Some(now);
        next.reservation_status = ReservationStatus::Pending;
        next.reservation_error = None;
        self.change(next, None, Some(ORDER_CONFIRMED))
    }

    /// confirmed → processing; raises no event. Needs no reservation yet; fulfilling does.
    ///
    /// `INVALID_STATUS_TRANSITION` from any other status.
    pub fn process(&self, now: OffsetDateTime) -> Result<OrderChange, OrderError> {
        self.require(OrderStatus::Confirmed, "process")?;
        let mut next = self.next_record(now);
        next.status = OrderStatus::Processing;
        self.change(next, None, None)
    }

    /// processing with stock reserved → fulfilled; sets `fulfilled_at` and raises `order.fulfilled`,
    /// on which the warehouse commits the stock.
    ///
    /// `INVALID_STATUS_TRANSITION` when not processing; `STOCK_NOT_RESERVED` when the reservation is
    /// not `reserved`.
    pub fn fulfill(&self, now: OffsetDateTime) -> Result<OrderChange, OrderError> {
        self.require(OrderStatus::Processing, "fulfill")?;
        if self.reservation_status != ReservationStatus::Reserved {
            return Err(OrderError::StockNotReserved { reservation: self.reservation_status });
        }
        let mut next = self.next_record(now);
        next.status = OrderStatus::Fulfilled;
        next.fulfilled_at = Some(now);
        self.change(next, None, Some(ORDER_FULFILLED))
    }

    /// pending | confirmed | processing → cancelled; sets `cancelled_at` and raises `order.cancelled`,
    /// on which the warehouse releases what it holds.
    ///
    /// `ORDER_ALREADY_CANCELLED` when cancelled; `INVALID_STATUS_TRANSITION` when fulfilled.
    pub fn cancel(&self, now: OffsetDateTime) -> Result<OrderChange, OrderError> {
        match self.status {
            OrderStatus::Cancelled => return Err(OrderError::AlreadyCancelled),
            OrderStatus::Fulfilled => {
                return Err(OrderError::InvalidTransition { from: OrderStatus::Fulfilled, action: "cancel" })
            }
            OrderStatus::Pending | OrderStatus::Confirmed | OrderStatus::Processing => {}
        }
        let mut next = self.next_record(now);
        next.status = OrderStatus::Cancelled;
        next.cancelled_at = Some(now);
        self.change(next, None, Some(ORDER_CANCELLED))
    }

    /// Permission to delete (soft): only pending and cancelled orders, else
    /// `INVALID_STATUS_TRANSITION`. The returned [`OrderDeletion`] is the condition the repository
    /// deletes under; no event is raised.
    pub fn delete(&self) -> Result<OrderDeletion, OrderError> {
        if !self.status.is_deletable() {
            return Err(OrderError::InvalidTransition { from: self.status, action: "delete" });
        }
        Ok(OrderDeletion { order_id: self.id, expected_version: self.version, expected_status: self.status })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::tests::{at, in_state, pending_order};
    use OrderStatus::{Cancelled, Confirmed, Fulfilled, Pending, Processing};

    fn transition(from: OrderStatus, action: &'static str) -> OrderError {
        OrderError::InvalidTransition { from, action }
    }

    #[test]
    fn confirm_matrix() {
        let order = in_state(Pending, ReservationStatus::None);
        let change = order.confirm(at(10)).expect("pending with a line");
        assert_eq!(change.order.status, Confirmed);
        assert_eq!(change.order.confirmed_at, Some(at(10)));
        assert_eq!(change.order.reservation_status, ReservationStatus::Pending);
        assert_eq!(change.expected_status, Pending);
        assert_eq!(change.events.len(), 1);
        assert_eq!(change.events[0].name, "order.confirmed");
        assert_eq!(change.events[0].data["lines"][0]["quantity"], 2);
        assert_eq!(pending_order().confirm(at(10)), Err(OrderError::OrderEmpty));
        for from in [Confirmed, Processing, Fulfilled, Cancelled] {
            let order = in_state(from, ReservationStatus::Pending);
            assert_eq!(order.confirm(at(10)), Err(transition(from, "confirm")), "{from}");
        }
        // A non-pending empty order is an invalid transition, not an empty order.
        let mut record = pending_order().into_record();
        record.status = Cancelled;
        assert_eq!(Order::restore(record).confirm(at(10)), Err(transition(Cancelled, "confirm")));
    }

    #[test]
    fn process_matrix() {
        let change = in_state(Confirmed, ReservationStatus::Pending).process(at(11)).expect("confirmed");
        assert_eq!(change.order.status, Processing);
        assert_eq!(change.order.reservation_status, ReservationStatus::Pending);
        assert!(change.events.is_empty());
        for from in [Pending, Processing, Fulfilled, Cancelled] {
            let order = in_state(from, ReservationStatus::Reserved);
            assert_eq!(order.process(at(11)), Err(transition(from, "process")), "{from}");
        }
    }

    #[test]
    fn fulfill_matrix() {
        let change = in_state(Processing, ReservationStatus::Reserved).fulfill(at(12)).expect("reserved");
        assert_eq!(change.order.status, Fulfilled);
        assert_eq!(change.order.fulfilled_at, Some(at(12)));
        assert_eq!(change.order.reservation_status, ReservationStatus::Reserved, "committed only on reply");
        assert_eq!(change.events[0].name, "order.fulfilled");
        for reservation in ReservationStatus::ALL.into_iter().filter(|r| *r != ReservationStatus::Reserved) {
            let order = in_state(Processing, reservation);
            assert_eq!(order.fulfill(at(12)), Err(OrderError::StockNotReserved { reservation }), "{reservation}");
        }
        for from in [Pending, Confirmed, Fulfilled, Cancelled] {
            let order = in_state(from, ReservationStatus::Reserved);
            assert_eq!(order.fulfill(at(12)), Err(transition(from, "fulfill")), "{from}");
        }
    }

    #[test]
    fn cancel_matrix() {
        for from in [Pending, Confirmed, Processing] {
            let order = in_state(from, ReservationStatus::Reserved);
            let change = order.cancel(at(13)).expect("cancellable");
            assert_eq!(change.order.status, Cancelled);
            assert_eq!(change.order.cancelled_at, Some(at(13)));
            assert_eq!(change.order.reservation_status, ReservationStatus::Reserved, "released only on reply");
            assert_eq!(change.expected_status, from);
            assert_eq!(change.events[0].name, "order.cancelled");
        }
        assert_eq!(in_state(Cancelled, ReservationStatus::None).cancel(at(13)), Err(OrderError::AlreadyCancelled));
        assert_eq!(
            in_state(Fulfilled, ReservationStatus::Reserved).cancel(at(13)),
            Err(transition(Fulfilled, "cancel"))
        );
    }

    #[test]
    fn delete_matrix() {
        for from in [Pending, Cancelled] {
            let order = in_state(from, ReservationStatus::None);
            let deletion = order.delete().expect("deletable");
            assert_eq!(
                deletion,
                OrderDeletion { order_id: order.id, expected_version: order.version, expected_status: from }
            );
        }
        for from in [Confirmed, Processing, Fulfilled] {
            let error = in_state(from, ReservationStatus::Reserved).delete().expect_err("not deletable");
            assert_eq!(error, transition(from, "delete"));
            assert_eq!(shared_kernel::error::Classified::code(&error), "INVALID_STATUS_TRANSITION");
        }
    }

    #[test]
    fn timestamps_and_versions_follow_the_lifecycle() {
        let confirmed = in_state(Pending, ReservationStatus::None).confirm(at(1)).expect("ok").order;
        let processing = confirmed.process(at(2)).expect("ok").order;
        let mut record = processing.into_record();
        record.reservation_status = ReservationStatus::Reserved;
        let fulfilled = Order::restore(record).fulfill(at(3)).expect("ok").order;
        assert_eq!(fulfilled.confirmed_at, Some(at(1)));
        assert_eq!(fulfilled.fulfilled_at, Some(at(3)));
        assert_eq!(fulfilled.cancelled_at, None);
        assert_eq!(fulfilled.updated_at, at(3));
        assert_eq!(fulfilled.version, 5, "created 1, line 2, confirm 3, process 4, fulfil 5");
    }
}
