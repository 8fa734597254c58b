//! The order service: its ports, the compare-and-set loop every edit of an order runs, and the
//! status moves (confirm, process, fulfil, cancel) and deletion. Creation is in
//! [`super::creation`], line edits in [`super::lines`], the warehouse's replies in [`super::replies`].

use std::sync::Arc;

use shared_kernel::application::{until_settled, Attempt, Clock};
use shared_kernel::StorageError;
use time::OffsetDateTime;
use uuid::Uuid;

use super::error::OrderUseCaseError;
use super::ports::{CurrencyRegister, CustomerDirectory, ProductCatalog};
use crate::change::OrderChange;
use crate::error::OrderError;
use crate::order::Order;
use crate::repository::OrderRepository;

/// Every use case of the order context, over its ports. Cheap to share (`Arc` handles).
#[derive(Clone)]
pub struct OrderService {
    pub(super) orders: Arc<dyn OrderRepository>,
    pub(super) customers: Arc<dyn CustomerDirectory>,
    pub(super) products: Arc<dyn ProductCatalog>,
    pub(super) currencies: Arc<dyn CurrencyRegister>,
    pub(super) clock: Arc<dyn Clock>,
}

impl OrderService {
    /// The service over its ports: where orders are kept, who may order, what may be ordered, in
    /// which currencies, and the clock every change is stamped with.
    pub fn new(
        orders: Arc<dyn OrderRepository>,
        customers: Arc<dyn CustomerDirectory>,
        products: Arc<dyn ProductCatalog>,
        currencies: Arc<dyn CurrencyRegister>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { orders, customers, products, currencies, clock }
    }

    /// Loads order `id`, lets `operation` decide the change and saves it as a compare-and-set; when
    /// another writer won the race, loads and decides again, so the loser gets the precise refusal
    /// (e.g. `ORDER_ALREADY_CANCELLED`). The saved order is the answer.
    pub(super) async fn change<F>(&self, id: Uuid, operation: F) -> Result<Order, OrderUseCaseError>
    where
        F: Fn(&Order, OffsetDateTime) -> Result<OrderChange, OrderError>,
    {
        let operation = &operation;
        until_settled(|| async move {
            let order = self.orders.get(id).await.map_err(OrderUseCaseError::of_order)?;
            let change = operation(&order, self.clock.now())?;
            match self.orders.save(&change).await {
                Ok(()) => Ok(Attempt::Done(change.order)),
                Err(StorageError::Stale) => Ok(Attempt::Stale),
                Err(other) => Err(OrderUseCaseError::of_order(other)),
            }
        })
        .await
    }

    /// pending (with lines) → confirmed; its `order.confirmed` asks the warehouse to reserve.
    /// `ORDER_NOT_FOUND`, `ORDER_EMPTY`, `INVALID_STATUS_TRANSITION`.
    #[tracing::instrument(name = "orders.confirm", skip_all, fields(order_id = %id))]
    pub async fn confirm(&self, id: Uuid) -> Result<Order, OrderUseCaseError> {
        self.change(id, Order::confirm).await
    }

    /// confirmed → processing. `ORDER_NOT_FOUND`, `INVALID_STATUS_TRANSITION`.
    #[tracing::instrument(name = "orders.process", skip_all, fields(order_id = %id))]
    pub async fn process(&self, id: Uuid) -> Result<Order, OrderUseCaseError> {
        self.change(id, Order::process).await
    }

    /// processing with stock reserved → fulfilled; its `order.fulfilled` has the warehouse commit
    /// the stock. `ORDER_NOT_FOUND`, `INVALID_STATUS_TRANSITION`, `STOCK_NOT_RESERVED`.
    #[tracing::instrument(name = "orders.fulfill", skip_all, fields(order_id = %id))]
    pub async fn fulfill(&self, id: Uuid) -> Result<Order, OrderUseCaseError> {
        self.change(id, Order::fulfill).await
    }

    /// pending, confirmed or processing → cancelled; its `order.cancelled` has the warehouse
    /// release what the order holds. The caller's `reason`, if any, is logged with the order's id.
    /// `ORDER_NOT_FOUND`, `ORDER_ALREADY_CANCELLED`, `INVALID_STATUS_TRANSITION` (fulfilled).
    #[tracing::instrument(name = "orders.cancel", skip_all, fields(order_id = %id))]
    pub async fn cancel(&self, id: Uuid, reason: Option<&str>) -> Result<Order, OrderUseCaseError> {
        let order = self.change(id, Order::cancel).await?;
        if let Some(reason) = reason {
            tracing::info!(order_id = %id, reason = %reason.trim(), "order cancelled");
        }
        Ok(order)
    }

    /// Soft-deletes a pending or cancelled order, as a compare-and-set decided again on a lost race.
    /// `ORDER_NOT_FOUND`, `INVALID_STATUS_TRANSITION`.
    #[tracing::instrument(name = "orders.delete", skip_all, fields(order_id = %id))]
    pub async fn delete(&self, id: Uuid) -> Result<(), OrderUseCaseError> {
        until_settled(|| async move {
            let order = self.orders.get(id).await.map_err(OrderUseCaseError::of_order)?;
            let deletion = order.delete()?;
            match self.orders.delete(&deletion, self.clock.now()).await {
                Ok(()) => Ok(Attempt::Done(())),
                Err(StorageError::Stale) => Ok(Attempt::Stale),
                Err(other) => Err(OrderUseCaseError::of_order(other)),
            }
        })
        .await
    }
}
