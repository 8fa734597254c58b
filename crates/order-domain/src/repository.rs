//! The storage port of the order context.
//!
//! Contract for adapters: every write is one transaction, and concurrency is settled in SQL by
//! conditional statements (`… WHERE version = $expected AND status = $expected`), never by reading in
//! Rust and writing unconditionally. Events handed over with a write go to the outbox in the same
//! transaction. Soft-deleted orders are invisible to every method (`NotFound`).

use async_trait::async_trait;
use event_contracts::warehouse::WarehouseReply;

use shared_kernel::{Page, PageRequest};
use time::Date;
use uuid::Uuid;

use crate::change::{OrderChange, OrderDeletion};
use crate::error::OrderError;
use crate::number::OrderNumber;
use crate::order::{Order, OrderDraft};
use crate::status::OrderStatus;

/// The shared storage error (`shared_kernel::StorageError`); a missing order
/// is answered `ORDER_NOT_FOUND` by the HTTP layer.
pub use shared_kernel::StorageError as RepoError;

/// `GET /order-mgmt/orders` filters; dates are the creation date (UTC), both ends inclusive.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderFilter {
    /// Only orders in this status.
    pub status: Option<OrderStatus>,
    /// Only this customer's orders.
    pub customer_id: Option<Uuid>,
    /// Only orders created on or after this day (UTC).
    pub date_from: Option<Date>,
    /// Only orders created on or before this day (UTC).
    pub date_to: Option<Date>,
}

impl OrderFilter {
    /// `date_from` after `date_to` is a `VALIDATION_ERROR` on `date_from`.
    pub fn validate(&self) -> Result<(), OrderError> {
        match (self.date_from, self.date_to) {
            (Some(from), Some(to)) if from > to => {
                Err(OrderError::Validation { field: "date_from", message: "must not be after date_to" })
            }
            _ => Ok(()),
        }
    }
}

/// Where orders are kept. Every method is one transaction; every write is conditional, so a writer
/// that lost a race gets `Stale` and never overwrites the winner. Deleted orders answer `NotFound`.
#[async_trait]
pub trait OrderRepository: Send + Sync {
    /// In one transaction: allocate the next sequence of `draft.year()` (counter row or database
    /// sequence, never `max()+1`), build the order with [`OrderDraft::into_order`], insert it and its
    /// `order.created` event. Returns the stored order.
    async fn create(&self, draft: OrderDraft) -> Result<Order, RepoError>;

    /// The order with its lines (ordered by `created_at`, then `id`); `NotFound` when there is none or
    /// it was deleted.
    async fn get(&self, id: Uuid) -> Result<Order, RepoError>;

    /// The order with this number and its lines, as [`OrderRepository::get`].
    async fn get_by_number(&self, number: &OrderNumber) -> Result<Order, RepoError>;

    /// Newest first (`created_at` desc, then `id` desc); `total` counts every match.
    async fn list(&self, filter: &OrderFilter, page: PageRequest) -> Result<Page<Order>, RepoError>;

    /// Writes a change as a compare-and-set on `expected_version` / `expected_status` (see
    /// [`crate::change`]); `Stale` when the order moved, `NotFound` when it is gone.
    async fn save(&self, change: &OrderChange) -> Result<(), RepoError>;

    /// Soft-deletes as a compare-and-set (see [`OrderDeletion`]); `Stale` when the order moved.
    async fn delete(&self, deletion: &OrderDeletion, now: time::OffsetDateTime) -> Result<(), RepoError>;
}

/// What a warehouse reply does to an order, handed to [`ReplyInbox::settle_reply`] so it runs inside
/// the port's transaction: the use case passes the aggregate's own decision ([`Order::fold_reply`]).
pub type FoldReply = fn(&Order, &WarehouseReply, time::OffsetDateTime) -> Option<OrderChange>;

/// The replies the warehouse sends about orders, each taken once per delivery.
#[async_trait]
pub trait ReplyInbox: Send + Sync {
    /// In one transaction: marks `delivery` (the event's id) handled, and if it already was, does
    /// nothing and answers `None`; else reads the reply's order, locked against concurrent writers,
    /// and saves what `fold` makes of it at `now`. Answers the order as saved; `None` when the order
    /// is gone (deleted, or never was) or `fold` changes nothing. Replies delivered together may
    /// share a transaction; each is answered as if alone.
    async fn settle_reply(
        &self,
        delivery: Uuid,
        reply: WarehouseReply,
        now: time::OffsetDateTime,
        fold: FoldReply,
    ) -> Result<Option<Order>, RepoError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn repository_is_object_safe() {
        fn takes(_: Option<(&dyn OrderRepository, &dyn ReplyInbox)>) {}
        takes(None);
    }

    #[test]
    fn filter_dates_are_ordered() {
        let mut filter = OrderFilter { date_from: Some(date!(2026 - 01 - 02)), ..OrderFilter::default() };
        assert_eq!(filter.validate(), Ok(()));
        filter.date_to = Some(date!(2026 - 01 - 02));
        assert_eq!(filter.validate(), Ok(()), "inclusive, same day");
        filter.date_to = Some(date!(2026 - 01 - 01));
        assert_eq!(filter.validate().map_err(|e| e.field()), Err(Some("date_from")));
    }
}
