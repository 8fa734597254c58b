//! Folding the warehouse's reply into the order it answers.
//!
//! What a reply does to an order is the aggregate's decision ([`Order::fold_reply`]). Two ways in,
//! one decision:
//! - [`ReplyService::fold_delivered`], the event consumer's: once per delivery, the decision run
//!   inside the [`ReplyInbox`]'s transaction, which claims the delivery and locks the order (the
//!   PostgreSQL inbox, `crates/order-postgres/src/replies.rs`, lets replies delivered together
//!   share that transaction);
//! - [`OrderService::fold_reply`], for a caller without an inbox (an embedding service, a test):
//!   load, decide, save as a compare-and-set, decided again on a lost race.

use std::sync::Arc;

use event_contracts::warehouse::WarehouseReply;
use shared_kernel::application::{until_settled, Attempt, Clock};
use shared_kernel::StorageError;
use uuid::Uuid;

use super::error::OrderUseCaseError;
use super::orders::OrderService;
use crate::order::Order;
use crate::repository::ReplyInbox;

impl OrderService {
    /// Folds `reply` into its order: the order as saved, or `None` when the reply changes nothing
    /// (a duplicate, stale or late reply, or one for a deleted order). A lost race is decided again.
    #[tracing::instrument(name = "orders.fold_reply", skip_all, fields(order_id = %reply.order_id()))]
    pub async fn fold_reply(&self, reply: &WarehouseReply) -> Result<Option<Order>, OrderUseCaseError> {
        until_settled(|| async move {
            let order = match self.orders.get(reply.order_id()).await {
                Ok(order) => order,
                Err(StorageError::NotFound) => return Ok(Attempt::Done(None)),
                Err(other) => return Err(other.into()),
            };
            let Some(change) = order.fold_reply(reply, self.clock.now()) else {
                return Ok(Attempt::Done(None));
            };
            match self.orders.save(&change).await {
                Ok(()) => Ok(Attempt::Done(Some(change.order))),
                Err(StorageError::Stale) => Ok(Attempt::Stale),
                Err(StorageError::NotFound) => Ok(Attempt::Done(None)),
                Err(other) => Err(other.into()),
            }
        })
        .await
    }
}

/// The warehouse's replies as the order flow delivers them: each folded once per delivery.
#[derive(Clone)]
pub struct ReplyService {
    inbox: Arc<dyn ReplyInbox>,
    clock: Arc<dyn Clock>,
}

impl ReplyService {
    /// The service over the inbox that claims deliveries and keeps the orders, and the clock every
    /// change is stamped with.
    pub fn new(inbox: Arc<dyn ReplyInbox>, clock: Arc<dyn Clock>) -> Self {
        Self { inbox, clock }
    }

    /// Folds `reply`, delivered as event `delivery`, into its order, once: a second delivery of the
    /// same event changes nothing. Answers the order as saved, or `None` (a delivery already
    /// handled, a reply that does not apply, an order that is gone).
    #[tracing::instrument(name = "orders.fold_delivered_reply", skip_all, fields(order_id = %reply.order_id(), event_id = %delivery))]
    pub async fn fold_delivered(
        &self,
        delivery: Uuid,
        reply: WarehouseReply,
    ) -> Result<Option<Order>, OrderUseCaseError> {
        Ok(self.inbox.settle_reply(delivery, reply, self.clock.now(), Order::fold_reply).await?)
    }
}
