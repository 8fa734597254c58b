//! Status moves of a purchase order. The whole table, every status against every
//! trigger, is in [`crate::purchasing`] and pinned by `every_status_against_every_trigger` below.
//!
//! | trigger | allowed from | to | sets | event | else |
//! |---|---|---|---|---|---|
//! | submit | draft with ≥ 1 line | ordered | `submitted_at` | `purchase_order.submitted` | no lines: `PO_EMPTY`; other status: `INVALID_STATUS_TRANSITION` |
//! | receive | ordered, partially_received | partially_received, or received when every line is complete | `received_at` (when complete) | `purchase_order.received` | `INVALID_STATUS_TRANSITION`; see [`PurchaseOrder::receive`] |
//! | cancel | draft; ordered with nothing received | cancelled | `cancelled_at` | `purchase_order.cancelled` | `INVALID_STATUS_TRANSITION` |
//! | close | partially_received | closed | `closed_at` | `purchase_order.closed` | `INVALID_STATUS_TRANSITION` |

use std::collections::HashSet;

use event_contracts::purchasing::{
    ReceivedLine, PURCHASE_ORDER_CANCELLED, PURCHASE_ORDER_CLOSED, PURCHASE_ORDER_SUBMITTED,
};
use shared_kernel::Money;
use time::OffsetDateTime;
use uuid::Uuid;

use super::change::{PurchaseOrderChange, ReceiptInstruction};
use super::events::{received_event, status_event};
use super::order::{positive, PurchaseOrder, PurchaseOrderRecord};
use super::status::PurchaseOrderStatus;
use crate::error::WarehouseError;
use crate::operations::MAX_REASON_CHARS;
use crate::text;

/// One line of a receipt: `{line_id, quantity}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReceiveLine {
    /// The purchase order line received.
    pub line_id: Uuid,
    /// Units that arrived, > 0.
    pub quantity: i64,
}

/// `POST /purchase-orders/{id}/receive`: `{lines: [{line_id, quantity}], reason?}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiveInput {
    /// At least one line, each named once.
    pub lines: Vec<ReceiveLine>,
    /// Kept on every movement of the receipt and in the event; up to
    /// [`MAX_REASON_CHARS`] characters, blank is `None`.
    pub reason: Option<String>,
}

impl PurchaseOrder {
    fn refuse(&self, action: &'static str) -> WarehouseError {
        WarehouseError::InvalidTransition { entity: "purchase order", from: self.status.as_str(), action }
    }

    fn moved(&self, next: PurchaseOrderRecord, event: &'static str) -> Result<PurchaseOrderChange, WarehouseError> {
        let events = vec![status_event(event, &next, next.updated_at)];
        self.change(next, None, Vec::new(), events)
    }

    /// draft (with lines) → ordered; sets `submitted_at`, raises `purchase_order.submitted`. From
    /// then on its lines count as incoming stock at its location.
    ///
    /// `INVALID_STATUS_TRANSITION` unless draft; `PO_EMPTY` for a draft without lines.
    pub fn submit(&self, now: OffsetDateTime) -> Result<PurchaseOrderChange, WarehouseError> {
        if self.status != PurchaseOrderStatus::Draft {
            return Err(self.refuse("submit"));
        }
        if self.lines.is_empty() {
            return Err(WarehouseError::PoEmpty);
        }
        let mut next = self.next_record(now);
        next.status = PurchaseOrderStatus::Ordered;
        next.submitted_at = Some(now);
        self.moved(next, PURCHASE_ORDER_SUBMITTED)
    }

    /// Receives stock against the purchase order, all of the receipt or none of it.
    ///
    /// Checks, in this order (nothing is received when one fails):
    /// 1. the input: at least one line (`VALIDATION_ERROR` on `lines`), every quantity > 0
    ///    (`INVALID_QUANTITY`), no line named twice (`VALIDATION_ERROR` on `lines`), the reason
    ///    (`VALIDATION_ERROR` on `reason`);
    /// 2. the status: `ordered` or `partially_received`, else `INVALID_STATUS_TRANSITION`;
    /// 3. every line is the purchase order's, else `NOT_FOUND` (entity `purchase order line`);
    /// 4. no line gets more than it still expects (ordered − received), else `OVER_RECEIPT` naming
    ///    the first such line.
    ///
    /// Then each line's `quantity_received` grows, the status becomes `received` (with
    /// `received_at`) when every line is complete and `partially_received` otherwise, and the change
    /// carries one [`ReceiptInstruction`] per line (in the order asked) and `purchase_order.received`
    /// with what arrived. Receiving again later adds to what arrived before.
    pub fn receive(&self, input: ReceiveInput, now: OffsetDateTime) -> Result<PurchaseOrderChange, WarehouseError> {
        if input.lines.is_empty() {
            return Err(WarehouseError::Validation { field: "lines", message: "must name at least one line" });
        }
        for line in &input.lines {
            positive(line.quantity)?;
        }
        let mut seen = HashSet::with_capacity(input.lines.len());
        if !input.lines.iter().all(|l| seen.insert(l.line_id)) {
            return Err(WarehouseError::Validation { field: "lines", message: "must not name a line twice" });
        }
        let reason = text::optional(input.reason.as_deref(), "reason", MAX_REASON_CHARS)?;
        if !self.status.expects_stock() {
            return Err(self.refuse("receive"));
        }
        let mut indexes = Vec::with_capacity(input.lines.len());
        for asked in &input.lines {
            let index = self
                .lines
                .iter()
                .position(|l| l.id == asked.line_id)
                .ok_or(WarehouseError::NotFound { entity: "purchase order line" })?;
            indexes.push(index);
        }
        for (asked, &index) in input.lines.iter().zip(&indexes) {
            let outstanding = self.lines[index].outstanding();
            if asked.quantity > outstanding {
                return Err(WarehouseError::OverReceipt {
                    line_id: asked.line_id,
                    requested: asked.quantity,
                    outstanding,
                });
            }
        }

        let mut next = self.next_record(now);
        let mut receipts = Vec::with_capacity(indexes.len());
        let mut received = Vec::with_capacity(indexes.len());
        for (asked, &index) in input.lines.iter().zip(&indexes) {
            let before = &self.lines[index];
            let after = before.received(asked.quantity, now);
            receipts.push(ReceiptInstruction {
                purchase_order_id: self.id,
                line_id: before.id,
                product_id: before.product_id,
                location_id: self.location_id,
                quantity: asked.quantity,
                received_before: before.quantity_received,
                unit_cost: Money::new(before.unit_cost, self.currency),
                reason: reason.clone(),
            });
            received.push(ReceivedLine {
                line_id: before.id,
                product_id: before.product_id,
                quantity: asked.quantity,
                quantity_received: after.quantity_received,
                quantity_ordered: after.quantity_ordered,
                unit_cost: after.unit_cost,
            });
            next.lines[index] = after;
        }
        if next.lines.iter().all(|l| l.is_complete()) {
            next.status = PurchaseOrderStatus::Received;
            next.received_at = Some(now);
        } else {
            next.status = PurchaseOrderStatus::PartiallyReceived;
        }
        let events = vec![received_event(&next, received, reason, now)];
        self.change(next, None, receipts, events)
    }

    /// draft, or ordered with nothing received → cancelled; sets `cancelled_at`, raises
    /// `purchase_order.cancelled` (its lines stop counting as incoming).
    ///
    /// `INVALID_STATUS_TRANSITION` from anything else (a partially received order is closed, not
    /// cancelled).
    pub fn cancel(&self, now: OffsetDateTime) -> Result<PurchaseOrderChange, WarehouseError> {
        let nothing_received = self.lines.iter().all(|l| l.quantity_received == 0);
        match self.status {
            PurchaseOrderStatus::Draft => {}
            PurchaseOrderStatus::Ordered if nothing_received => {}
            _ => return Err(self.refuse("cancel")),
        }
        let mut next = self.next_record(now);
        next.status = PurchaseOrderStatus::Cancelled;
        next.cancelled_at = Some(now);
        self.moved(next, PURCHASE_ORDER_CANCELLED)
    }

    /// partially_received → closed (short): what arrived stays, the rest is no longer expected; sets
    /// `closed_at`, raises `purchase_order.closed`.
    ///
    /// `INVALID_STATUS_TRANSITION` from any other status.
    pub fn close(&self, now: OffsetDateTime) -> Result<PurchaseOrderChange, WarehouseError> {
        if self.status != PurchaseOrderStatus::PartiallyReceived {
            return Err(self.refuse("close"));
        }
        let mut next = self.next_record(now);
        next.status = PurchaseOrderStatus::Closed;
        next.closed_at = Some(now);
        self.moved(next, PURCHASE_ORDER_CLOSED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movement::ReferenceType;
    use crate::purchasing::order::tests::{at, draft_with, new_line, two_line_draft};
    use crate::purchasing::order::PurchaseLineUpdate;
    use event_contracts::purchasing::{PurchaseOrderEventData, PurchaseOrderReceived, PURCHASE_ORDER_RECEIVED};
    use shared_kernel::error::Classified;
    use PurchaseOrderStatus::*;

    /// Every trigger a purchase order answers.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Trigger {
        AddLine,
        ChangeLine,
        RemoveLine,
        Submit,
        Receive,
        Cancel,
        Close,
    }

    const TRIGGERS: [Trigger; 7] = [
        Trigger::AddLine,
        Trigger::ChangeLine,
        Trigger::RemoveLine,
        Trigger::Submit,
        Trigger::Receive,
        Trigger::Cancel,
        Trigger::Close,
    ];

    /// What a trigger did: the status it left and the events it raised, or the refusal's code.
    type Outcome = Result<(PurchaseOrderStatus, Vec<String>), &'static str>;

    /// The two-line draft forced into `status`, as if read from storage, with received quantities
    /// that fit the status: nothing before partially received, the first line complete from then on
    /// (all complete for received).
    fn in_state(status: PurchaseOrderStatus) -> PurchaseOrder {
        let mut record = two_line_draft().into_record();
        record.status = status;
        match status {
            Draft | Ordered | Cancelled => {}
            PartiallyReceived | Closed => {
                let first = record.lines[0].record().clone();
                record.lines[0] =
                    crate::purchasing::PurchaseOrderLine::restore(crate::purchasing::PurchaseOrderLineRecord {
                        quantity_received: first.quantity_ordered,
                        ..first
                    });
            }
            Received => {
                for line in record.lines.iter_mut() {
                    let r = line.record().clone();
                    *line = crate::purchasing::PurchaseOrderLine::restore(crate::purchasing::PurchaseOrderLineRecord {
                        quantity_received: r.quantity_ordered,
                        ..r
                    });
                }
            }
        }
        PurchaseOrder::restore(record)
    }

    fn run(po: &PurchaseOrder, trigger: Trigger) -> Outcome {
        let second = po.lines[1].id;
        let result = match trigger {
            Trigger::AddLine => po.add_line(new_line(3, 1, 100), at(50)),
            Trigger::ChangeLine => {
                po.change_line(second, PurchaseLineUpdate { quantity: Some(2), unit_cost: None }, at(50))
            }
            Trigger::RemoveLine => po.remove_line(second, at(50)),
            Trigger::Submit => po.submit(at(50)),
            // One unit of the second line: never over what it expects unless it is complete.
            Trigger::Receive => po.receive(
                ReceiveInput { lines: vec![ReceiveLine { line_id: second, quantity: 1 }], reason: None },
                at(50),
            ),
            Trigger::Cancel => po.cancel(at(50)),
            Trigger::Close => po.close(at(50)),
        };
        result
            .map(|change| (change.purchase_order.status, change.events.into_iter().map(|e| e.name).collect()))
            .map_err(|e| e.code())
    }

    /// Every status against every trigger, with the exact outcome.
    #[test]
    fn every_status_against_every_trigger() {
        const NOT_EDITABLE: &str = "PO_NOT_EDITABLE";
        const INVALID: &str = "INVALID_STATUS_TRANSITION";
        let expected = |status: PurchaseOrderStatus, trigger: Trigger| -> Outcome {
            use Trigger::*;
            let to = |status, events: &[&str]| Ok((status, events.iter().map(|e| e.to_string()).collect()));
            match (status, trigger) {
                (Draft, AddLine | ChangeLine | RemoveLine) => to(Draft, &[]),
                (Draft, Submit) => to(Ordered, &[PURCHASE_ORDER_SUBMITTED]),
                (Draft, Receive) => Err(INVALID),
                (Draft, Cancel) => to(Cancelled, &[PURCHASE_ORDER_CANCELLED]),
                (Draft, Close) => Err(INVALID),

                (Ordered, AddLine | ChangeLine | RemoveLine) => Err(NOT_EDITABLE),
                (Ordered, Submit) => Err(INVALID),
                (Ordered, Receive) => to(PartiallyReceived, &[PURCHASE_ORDER_RECEIVED]),
                (Ordered, Cancel) => to(Cancelled, &[PURCHASE_ORDER_CANCELLED]),
                (Ordered, Close) => Err(INVALID),

                (PartiallyReceived, AddLine | ChangeLine | RemoveLine) => Err(NOT_EDITABLE),
                (PartiallyReceived, Submit) => Err(INVALID),
                (PartiallyReceived, Receive) => to(PartiallyReceived, &[PURCHASE_ORDER_RECEIVED]),
                (PartiallyReceived, Cancel) => Err(INVALID),
                (PartiallyReceived, Close) => to(Closed, &[PURCHASE_ORDER_CLOSED]),

                (Received | Cancelled | Closed, AddLine | ChangeLine | RemoveLine) => Err(NOT_EDITABLE),
                (Received | Cancelled | Closed, Submit | Receive | Cancel | Close) => Err(INVALID),
            }
        };
        let mut cases = 0;
        for status in PurchaseOrderStatus::ALL {
            let po = in_state(status);
            for trigger in TRIGGERS {
                assert_eq!(run(&po, trigger), expected(status, trigger), "{status} × {trigger:?}");
                cases += 1;
            }
        }
        assert_eq!(cases, 42);
    }

    #[test]
    fn every_refused_move_names_its_status_and_action() {
        let refused = in_state(Closed).close(at(1)).expect_err("final");
        assert_eq!(
            refused,
            WarehouseError::InvalidTransition { entity: "purchase order", from: "closed", action: "close" }
        );
        assert_eq!(refused.to_string(), "cannot close a purchase order that is closed");
        assert_eq!(
            in_state(Received).add_line(new_line(3, 1, 1), at(1)),
            Err(WarehouseError::PoNotEditable { status: "received" })
        );
    }

    #[test]
    fn submit_needs_a_line_and_sets_its_time() {
        assert_eq!(draft_with(vec![]).submit(at(1)), Err(WarehouseError::PoEmpty));
        // A non-draft without lines is a refused move, not an empty order.
        let mut record = draft_with(vec![]).into_record();
        record.status = Ordered;
        assert_eq!(
            PurchaseOrder::restore(record).submit(at(1)).map_err(|e| e.code()),
            Err("INVALID_STATUS_TRANSITION")
        );

        let change = two_line_draft().submit(at(7)).expect("ok");
        assert_eq!((change.expected_version, change.expected_status), (1, Draft));
        let po = &change.purchase_order;
        assert_eq!((po.status, po.submitted_at, po.updated_at, po.version), (Ordered, Some(at(7)), at(7), 2));
        let event = &change.events[0];
        assert_eq!(
            (event.name.as_str(), event.aggregate_id, event.occurred_at),
            (PURCHASE_ORDER_SUBMITTED, po.id, at(7))
        );
        let data: PurchaseOrderEventData = event.payload().expect("its shape");
        assert_eq!((data.status.as_str(), data.subtotal, data.lines.len()), ("ordered", 6_500, 2));
        assert_eq!(data.po_number, po.po_number.to_string());
    }

    fn ordered() -> PurchaseOrder {
        two_line_draft().submit(at(1)).expect("ok").purchase_order
    }

    fn receive(po: &PurchaseOrder, lines: &[(usize, i64)], now: i64) -> Result<PurchaseOrderChange, WarehouseError> {
        let lines = lines.iter().map(|&(i, quantity)| ReceiveLine { line_id: po.lines[i].id, quantity }).collect();
        po.receive(ReceiveInput { lines, reason: Some(" dock 3 ".into()) }, at(now))
    }

    #[test]
    fn a_partial_receipt_then_the_rest() {
        let po = ordered();
        let change = receive(&po, &[(0, 4)], 10).expect("4 of 10");
        assert_eq!((change.expected_status, change.expected_version), (Ordered, 2));
        let after = &change.purchase_order;
        assert_eq!((after.status, after.received_at), (PartiallyReceived, None));
        assert_eq!((after.lines[0].quantity_received, after.lines[1].quantity_received), (4, 0));
        assert_eq!(after.subtotal, po.subtotal, "the subtotal follows what was ordered");
        assert_eq!(after.incoming(po.lines[0].product_id), 6);
        let [instruction] = change.receipts.as_slice() else { panic!("one line received") };
        assert_eq!(
            instruction,
            &ReceiptInstruction {
                purchase_order_id: po.id,
                line_id: po.lines[0].id,
                product_id: po.lines[0].product_id,
                location_id: po.location_id,
                quantity: 4,
                received_before: 0,
                unit_cost: Money::new(250, po.currency),
                reason: Some("dock 3".into()),
            }
        );
        assert_eq!(instruction.received_after(), 4);
        let receipt = instruction.receipt();
        assert_eq!(
            (receipt.quantity, receipt.reference_type, receipt.reference_id),
            (4, Some(ReferenceType::PurchaseOrder), Some(po.id))
        );
        assert_eq!(receipt.unit_cost, Some(Money::new(250, po.currency)));
        let event: PurchaseOrderReceived = change.events[0].payload().expect("its shape");
        assert_eq!(
            (event.status.as_str(), event.received.len(), event.reason.as_deref()),
            ("partially_received", 1, Some("dock 3"))
        );
        assert_eq!(
            (event.received[0].quantity, event.received[0].quantity_received, event.received[0].quantity_ordered),
            (4, 4, 10)
        );

        // The rest of both lines in one receipt, in the order asked.
        let po = change.purchase_order;
        let change = receive(&po, &[(1, 4), (0, 6)], 11).expect("exactly what is outstanding");
        let after = &change.purchase_order;
        assert_eq!((after.status, after.received_at), (Received, Some(at(11))));
        assert!(after.lines.iter().all(|l| l.is_complete()));
        assert_eq!(
            change.receipts.iter().map(|r| (r.line_id, r.quantity, r.received_before)).collect::<Vec<_>>(),
            [(po.lines[1].id, 4, 0), (po.lines[0].id, 6, 4)]
        );
        assert_eq!(after.incoming(po.lines[0].product_id), 0);
        let event: PurchaseOrderReceived = change.events[0].payload().expect("its shape");
        assert_eq!(event.status, "received");
        assert_eq!(receive(after, &[(0, 1)], 12).map_err(|e| e.code()), Err("INVALID_STATUS_TRANSITION"));
    }

    #[test]
    fn a_complete_receipt_at_once() {
        let change = receive(&ordered(), &[(0, 10), (1, 4)], 10).expect("everything");
        assert_eq!(change.purchase_order.status, Received);
        assert_eq!(change.receipts.len(), 2);
    }

    #[test]
    fn repeated_receipts_add_up_and_never_pass_what_was_ordered() {
        let mut po = ordered();
        for (round, expected) in [(1, 3), (2, 6), (3, 9)] {
            let change = receive(&po, &[(0, 3)], 10 + round).expect("still outstanding");
            assert_eq!(change.receipts[0].received_before, expected - 3);
            po = change.purchase_order;
            assert_eq!((po.lines[0].quantity_received, po.status), (expected, PartiallyReceived));
        }
        let refused = receive(&po, &[(0, 2)], 20);
        assert_eq!(refused, Err(WarehouseError::OverReceipt { line_id: po.lines[0].id, requested: 2, outstanding: 1 }));
        let last = receive(&po, &[(0, 1)], 21).expect("the last one").purchase_order;
        assert_eq!((last.lines[0].quantity_received, last.status), (10, PartiallyReceived), "line 2 still expects 4");
    }

    #[test]
    fn an_over_receipt_receives_nothing() {
        let po = ordered();
        // Line 1 fits, line 2 asks 5 of 4: the whole receipt is refused, no instruction, no event.
        let refused = receive(&po, &[(0, 2), (1, 5)], 10);
        assert_eq!(refused, Err(WarehouseError::OverReceipt { line_id: po.lines[1].id, requested: 5, outstanding: 4 }));
        assert_eq!(
            refused.map_err(|e| (e.code(), e.kind())),
            Err(("OVER_RECEIPT", shared_kernel::ErrorKind::Conflict))
        );
        assert_eq!(po.lines[0].quantity_received, 0, "nothing changed in place");
    }

    #[test]
    fn a_receipt_checks_its_input_then_the_status_then_the_lines() {
        let po = ordered();
        let asked = |lines: Vec<ReceiveLine>| ReceiveInput { lines, reason: None };
        let line = |i: usize, quantity| ReceiveLine { line_id: po.lines[i].id, quantity };
        assert_eq!(po.receive(asked(vec![]), at(1)).map_err(|e| e.field()), Err(Some("lines")));
        assert_eq!(po.receive(asked(vec![line(0, 0)]), at(1)), Err(WarehouseError::InvalidQuantity));
        assert_eq!(po.receive(asked(vec![line(0, -1)]), at(1)), Err(WarehouseError::InvalidQuantity));
        assert_eq!(po.receive(asked(vec![line(0, 1), line(0, 1)]), at(1)).map_err(|e| e.field()), Err(Some("lines")));
        let long = ReceiveInput { lines: vec![line(0, 1)], reason: Some("r".repeat(MAX_REASON_CHARS + 1)) };
        assert_eq!(po.receive(long, at(1)).map_err(|e| e.field()), Err(Some("reason")));
        let unknown = ReceiveLine { line_id: Uuid::nil(), quantity: 1 };
        assert_eq!(
            po.receive(asked(vec![line(0, 1), unknown]), at(1)),
            Err(WarehouseError::NotFound { entity: "purchase order line" })
        );
        // An unknown line is found missing before any line is found over: no partial answer.
        assert_eq!(po.receive(asked(vec![line(1, 99), unknown]), at(1)).map_err(|e| e.code()), Err("NOT_FOUND"));
        // A draft refuses the move before looking at the lines.
        let draft = two_line_draft();
        assert_eq!(draft.receive(asked(vec![unknown]), at(1)).map_err(|e| e.code()), Err("INVALID_STATUS_TRANSITION"));
        assert_eq!(
            draft.receive(asked(vec![ReceiveLine { line_id: Uuid::nil(), quantity: 0 }]), at(1)),
            Err(WarehouseError::InvalidQuantity)
        );
    }

    #[test]
    fn cancel_and_close() {
        let change = two_line_draft().cancel(at(5)).expect("a draft");
        assert_eq!((change.purchase_order.status, change.purchase_order.cancelled_at), (Cancelled, Some(at(5))));
        assert_eq!(change.events[0].name, PURCHASE_ORDER_CANCELLED);
        let change = ordered().cancel(at(6)).expect("nothing received");
        assert_eq!((change.expected_status, change.purchase_order.status), (Ordered, Cancelled));
        assert_eq!(change.purchase_order.incoming(Uuid::from_u128(1)), 0);
        // An ordered purchase order with something received (not reachable through receive, which
        // moves it on) is refused all the same.
        let mut record = in_state(PartiallyReceived).into_record();
        record.status = Ordered;
        assert_eq!(
            PurchaseOrder::restore(record).cancel(at(7)).map_err(|e| e.code()),
            Err("INVALID_STATUS_TRANSITION")
        );

        let partial = receive(&ordered(), &[(0, 4)], 8).expect("ok").purchase_order;
        let change = partial.close(at(9)).expect("partially received");
        let closed = &change.purchase_order;
        assert_eq!((closed.status, closed.closed_at, closed.received_at), (Closed, Some(at(9)), None));
        assert_eq!(closed.lines[0].quantity_received, 4, "what arrived stays");
        assert_eq!(closed.incoming(Uuid::from_u128(1)), 0, "the rest is no longer expected");
        let data: PurchaseOrderEventData = change.events[0].payload().expect("its shape");
        assert_eq!((data.status.as_str(), data.lines[0].quantity_received), ("closed", 4));
    }
}
