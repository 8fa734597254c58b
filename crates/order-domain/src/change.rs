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

#[derive(Debug, Clone, PartialEq)]
pub struct OrderChange {
    /// The state to write (its `version` is already `expected_version + 1`).
    pub order: Order,
    pub expected_version: i64,
    pub expected_status: OrderStatus,
    /// The one line row the operation touched, if any.
    pub line: Option<LineChange>,
    /// Events for the outbox, in order.
    pub events: Vec<EventEnvelope>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineChange {
    Added(OrderLine),
    Updated(OrderLine),
    Removed { line_id: Uuid },
}

/// A permitted delete: `UPDATE orders SET deleted_at = now WHERE id = $order_id AND
/// version = $expected_version AND status = $expected_status AND deleted_at IS NULL` (lines go with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderDeletion {
    pub order_id: Uuid,
    pub expected_version: i64,
    pub expected_status: OrderStatus,
}
