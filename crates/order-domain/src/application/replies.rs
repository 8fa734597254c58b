//! Folding the warehouse's reply into the order it answers.
//!
//! What a reply does to an order is the aggregate's decision ([`Order::fold_reply`]); this use case
//! loads the order, asks it, and saves the change as a compare-and-set. The PostgreSQL event
//! consumer (`crates/order-postgres/src/replies.rs`) asks the same decision for replies that
//! arrive together, inside the one transaction that claims them and locks their orders.

use event_contracts::warehouse::WarehouseReply;
use shared_kernel::application::{until_settled, Attempt};
use shared_kernel::StorageError;

use super::error::OrderUseCaseError;
use super::orders::OrderService;
use crate::order::Order;

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
