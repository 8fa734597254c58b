//! What an operation hands to the repository: the new state plus what it was computed from.
//!
//! The adapter writes an [`OrderChange`] in one transaction:
//! 1. `UPDATE orders SET <header fields of change.order>, version = version + 1
//!    WHERE id = $id AND version = change.expected_version AND status = change.expected_status
//!    AND deleted_at IS NULL` — zero rows means someone else wrote first: `RepoError::Stale`
//!    (or `NotFound` if the order is gone);
//! 2. the [`LineChange`], if any (insert / update / delete of that one line row);
//! 3. every event of `change.events` into the outbox.
//!
//! On `Stale` the caller reloads and re-runs the domain operation, so the second of two racing
//! requests gets the precise domain error (e.g. `ORDER_ALREADY_CANCELLED`) rather than a generic one.

use shared_kernel::EventEnvelope;
use uuid::Uuid;

use crate::line::OrderLine;
use crate::order::Order;
use crate::status::OrderStatus;

/// One decided change of one order, to be written by [`crate::OrderRepository::save`] in one
/// transaction: the new state, the compare-and-set condition, the line row touched and the events.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderChange {
    /// The state to write (its `version` is already `expected_version + 1`).
    pub order: Order,
    /// The `version` the change was computed from; the write matches no row (`Stale`) if the stored
    /// order has another.
    pub expected_version: i64,
    /// The status the change was computed from, checked together with `expected_version`.
    pub expected_status: OrderStatus,
    /// The one line row the operation touched, if any.
    pub line: Option<LineChange>,
    /// Events for the outbox, in order.
    pub events: Vec<EventEnvelope>,
}

/// The one line row an [`OrderChange`] inserts, updates or deletes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineChange {
    /// A new line to insert (from [`Order::add_line`]).
    Added(OrderLine),
    /// A line whose quantity, subtotal and `updated_at` changed (from [`Order::change_line_quantity`]).
    Updated(OrderLine),
    /// The line to delete (from [`Order::remove_line`]).
    Removed {
        /// The id of the removed line.
        line_id: Uuid,
    },
}

/// A permitted delete: `UPDATE orders SET deleted_at = now WHERE id = $order_id AND
/// version = $expected_version AND status = $expected_status AND deleted_at IS NULL` (lines go with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderDeletion {
    /// The order to soft-delete.
    pub order_id: Uuid,
    /// The `version` the permission was given for; another stored version makes the delete `Stale`.
    pub expected_version: i64,
    /// The status the permission was given for (pending or cancelled).
    pub expected_status: OrderStatus,
}
