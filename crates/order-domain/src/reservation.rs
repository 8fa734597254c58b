//! Folding the warehouse's replies into the order (`docs/orders-and-warehouse.md`, "Order flow").
//!
//! Replies arrive at least once and in any order relative to each other and to user actions, so each
//! `mark_*` is a pure decision that either returns a change to save or `None` ("nothing to do"):
//!
//! * The reservation only moves forward: `none → pending → reserved | failed → released | committed`.
//!   A reply for a state already reached, or passed, is a duplicate or stale and changes nothing.
//! * A reply never changes the order's `status`: a late `reserved` cannot resurrect a cancelled order.
//! * `reserved` / `failed` apply only to a live confirmation: status confirmed or processing and
//!   reservation `pending`. The first answer wins; the warehouse answers each confirmation once.
//!   For a cancelled order they are ignored: the warehouse releases whatever the order holds on
//!   `order.cancelled` and its `released` reply settles the status.
//! * `released` applies only to a cancelled order whose reservation was ever requested (pending,
//!   reserved or failed). An order cancelled before confirmation keeps `none`: nothing was held.
//! * `committed` applies only to a fulfilled order whose reservation is `reserved`.
//!
//! No `mark_*` raises an event. A `Stale` on save means the order moved meanwhile: reload and
//! decide again (the bus retries a failing handler).

use event_contracts::warehouse::{ReservationFailed, WarehouseReply};
use time::OffsetDateTime;

use crate::change::OrderChange;
use crate::order::Order;
use crate::status::{OrderStatus, ReservationStatus};

/// Longest reservation error kept on the order; longer reasons are cut (never refused: a reply must land).
pub const MAX_RESERVATION_ERROR_CHARS: usize = 1000;

/// The failure reason kept on the order: the warehouse's reason, then each short line.
fn failure_reason(failed: &ReservationFailed) -> String {
    let reason = failed.reason.as_str();
    let short: Vec<String> = failed
        .short_lines
        .iter()
        .map(|s| format!("product {} requested {}, available {}", s.product_id, s.requested, s.available))
        .collect();
    if short.is_empty() {
        reason.to_owned()
    } else {
        format!("{reason}: {}", short.join("; "))
    }
}

impl Order {
    /// What the warehouse's `reply` changes on this order: the `mark_*` its kind names, with a
    /// failure's reason and short lines kept as the reservation error. `None`: nothing to save (a
    /// duplicate, stale or late reply).
    pub fn fold_reply(&self, reply: &WarehouseReply, now: OffsetDateTime) -> Option<OrderChange> {
        match reply {
            WarehouseReply::Reserved(_) => self.mark_reserved(now),
            WarehouseReply::Failed(failed) => self.mark_reservation_failed(&failure_reason(failed), now),
            WarehouseReply::Released(_) => self.mark_released(now),
            WarehouseReply::Committed(_) => self.mark_committed(now),
        }
    }

    fn awaiting_reply(&self) -> bool {
        matches!(self.status, OrderStatus::Confirmed | OrderStatus::Processing)
            && self.reservation_status == ReservationStatus::Pending
    }

    fn with_reservation(
        &self,
        status: ReservationStatus,
        error: Option<String>,
        now: OffsetDateTime,
    ) -> Option<OrderChange> {
        let mut next = self.next_record(now);
        next.reservation_status = status;
        next.reservation_error = error;
        // Totals are untouched, so recomputing them cannot fail; `ok()` keeps replies infallible.
        self.change(next, None, None).ok()
    }

    /// The warehouse reserved every line (`warehouse.stock_reserved`): reservation pending → reserved,
    /// for a confirmed or processing order; `None` (nothing to save) in any other state.
    pub fn mark_reserved(&self, now: OffsetDateTime) -> Option<OrderChange> {
        if !self.awaiting_reply() {
            return None;
        }
        self.with_reservation(ReservationStatus::Reserved, None, now)
    }

    /// The warehouse could not reserve (`warehouse.reservation_failed`): reservation pending → failed
    /// with `reason` (trimmed, cut to [`MAX_RESERVATION_ERROR_CHARS`], "reservation failed" when
    /// blank), for a confirmed or processing order; `None` in any other state. The order stays
    /// confirmed or processing and can be cancelled by the user.
    pub fn mark_reservation_failed(&self, reason: &str, now: OffsetDateTime) -> Option<OrderChange> {
        if !self.awaiting_reply() {
            return None;
        }
        let mut reason: String = reason.trim().chars().take(MAX_RESERVATION_ERROR_CHARS).collect();
        if reason.is_empty() {
            reason = "reservation failed".to_owned();
        }
        self.with_reservation(ReservationStatus::Failed, Some(reason), now)
    }

    /// The warehouse released what the order held after its cancellation (`warehouse.stock_released`):
    /// reservation pending, reserved or failed → released, for a cancelled order; `None` otherwise.
    /// The failure reason, if any, is kept.
    pub fn mark_released(&self, now: OffsetDateTime) -> Option<OrderChange> {
        let applies = self.status == OrderStatus::Cancelled
            && matches!(
                self.reservation_status,
                ReservationStatus::Pending | ReservationStatus::Reserved | ReservationStatus::Failed
            );
        if !applies {
            return None;
        }
        // Keep the failure reason for the record; it explains why nothing was held.
        self.with_reservation(ReservationStatus::Released, self.reservation_error.clone(), now)
    }

    /// The warehouse committed the reserved stock after fulfilment (`warehouse.stock_committed`):
    /// reservation reserved → committed, for a fulfilled order; `None` otherwise.
    pub fn mark_committed(&self, now: OffsetDateTime) -> Option<OrderChange> {
        if self.status != OrderStatus::Fulfilled || self.reservation_status != ReservationStatus::Reserved {
            return None;
        }
        self.with_reservation(ReservationStatus::Committed, None, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::tests::{at, in_state};
    use ReservationStatus as R;

    type Reply = fn(&Order) -> Option<OrderChange>;

    fn reserved(order: &Order) -> Option<OrderChange> {
        order.mark_reserved(at(20))
    }
    fn failed(order: &Order) -> Option<OrderChange> {
        order.mark_reservation_failed("insufficient stock", at(20))
    }
    fn released(order: &Order) -> Option<OrderChange> {
        order.mark_released(at(20))
    }
    fn committed(order: &Order) -> Option<OrderChange> {
        order.mark_committed(at(20))
    }

    /// The reservation status after a reply, or `None` when the reply is ignored.
    fn outcome(reply: Reply, status: OrderStatus, reservation: ReservationStatus) -> Option<ReservationStatus> {
        let order = in_state(status, reservation);
        reply(&order).map(|change| {
            assert_eq!(change.order.status, status, "a reply never changes the order status");
            assert!(change.events.is_empty());
            assert_eq!(change.expected_version, order.version);
            assert_eq!(change.order.updated_at, at(20));
            change.order.reservation_status
        })
    }

    #[test]
    fn every_reply_in_every_state() {
        let replies: [(&str, Reply); 4] =
            [("reserved", reserved), ("failed", failed), ("released", released), ("committed", committed)];
        for status in OrderStatus::ALL {
            for reservation in R::ALL {
                for (name, reply) in replies {
                    let expected = match (name, status, reservation) {
                        ("reserved", OrderStatus::Confirmed | OrderStatus::Processing, R::Pending) => Some(R::Reserved),
                        ("failed", OrderStatus::Confirmed | OrderStatus::Processing, R::Pending) => Some(R::Failed),
                        ("released", OrderStatus::Cancelled, R::Pending | R::Reserved | R::Failed) => Some(R::Released),
                        ("committed", OrderStatus::Fulfilled, R::Reserved) => Some(R::Committed),
                        _ => None,
                    };
                    assert_eq!(outcome(reply, status, reservation), expected, "{name} in {status}/{reservation}");
                }
            }
        }
    }

    #[test]
    fn replies_are_idempotent() {
        let order = in_state(OrderStatus::Confirmed, R::Pending);
        let once = order.mark_reserved(at(1)).expect("applies").order;
        assert!(once.mark_reserved(at(2)).is_none());
        assert!(once.mark_reservation_failed("late", at(2)).is_none(), "first answer wins");
        let cancelled = once.cancel(at(3)).expect("cancellable").order;
        let released = cancelled.mark_released(at(4)).expect("applies").order;
        assert!(released.mark_released(at(5)).is_none());
        assert!(released.mark_reserved(at(5)).is_none(), "late reserved does not resurrect");
    }

    #[test]
    fn late_reserved_after_cancel_is_ignored() {
        let order = in_state(OrderStatus::Confirmed, R::Pending);
        let cancelled = order.cancel(at(1)).expect("cancellable").order;
        assert!(cancelled.mark_reserved(at(2)).is_none());
        assert_eq!(cancelled.mark_released(at(3)).expect("applies").order.reservation_status, R::Released);
    }

    #[test]
    fn failure_keeps_a_reason() {
        let order = in_state(OrderStatus::Confirmed, R::Pending);
        let failed = order.mark_reservation_failed("  short on W-1 ", at(1)).expect("applies").order;
        assert_eq!(failed.reservation_error.as_deref(), Some("short on W-1"));
        let blank = order.mark_reservation_failed("  ", at(1)).expect("applies").order;
        assert_eq!(blank.reservation_error.as_deref(), Some("reservation failed"));
        let long = order.mark_reservation_failed(&"x".repeat(5000), at(1)).expect("applies").order;
        assert_eq!(long.reservation_error.as_ref().map(|e| e.chars().count()), Some(MAX_RESERVATION_ERROR_CHARS));
        let released = failed.cancel(at(2)).expect("ok").order.mark_released(at(3)).expect("applies").order;
        assert_eq!(released.reservation_error.as_deref(), Some("short on W-1"));
    }

    #[test]
    fn a_reply_is_folded_by_its_kind() {
        use event_contracts::warehouse::{ShortLine, StockCommitted, StockReleased, StockReserved};
        let order = in_state(OrderStatus::Confirmed, R::Pending);
        let reserved = WarehouseReply::Reserved(StockReserved { order_id: order.id, allocations: Vec::new() });
        assert_eq!(order.fold_reply(&reserved, at(1)).map(|c| c.order.reservation_status), Some(R::Reserved));
        let short = ShortLine {
            line_id: uuid::Uuid::from_u128(1),
            product_id: uuid::Uuid::from_u128(2),
            requested: 5,
            available: 2,
        };
        let failed = WarehouseReply::Failed(ReservationFailed {
            order_id: order.id,
            reason: "insufficient stock".into(),
            short_lines: vec![short],
        });
        let folded = order.fold_reply(&failed, at(1)).expect("applies").order;
        assert_eq!(
            folded.reservation_error.as_deref(),
            Some("insufficient stock: product 00000000-0000-0000-0000-000000000002 requested 5, available 2")
        );
        let released = WarehouseReply::Released(StockReleased { order_id: order.id, inventories: Vec::new() });
        assert!(order.fold_reply(&released, at(1)).is_none(), "not cancelled");
        let committed = WarehouseReply::Committed(StockCommitted { order_id: order.id, inventories: Vec::new() });
        assert!(order.fold_reply(&committed, at(1)).is_none(), "not fulfilled");
    }
}
