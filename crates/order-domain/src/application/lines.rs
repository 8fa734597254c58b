//! Adding, re-quantifying and removing the lines of a pending order.

use uuid::Uuid;

use super::creation::{check_line_input, line_for};
use super::error::OrderUseCaseError;
use super::orders::OrderService;
use crate::order::Order;

/// What a caller asks for to add a line: the product's name and SKU are copied from the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddLine {
    /// The product to order; must be live (`NOT_FOUND`) and orderable (`VALIDATION_ERROR`).
    pub product_id: Uuid,
    /// Units, > 0 (`INVALID_QUANTITY`).
    pub quantity: i64,
    /// Cents per unit, ≥ 0 (`INVALID_PRICE`).
    pub unit_price: i64,
    /// The ISO 4217 code of `unit_price`, as sent: active, and the order's (`CURRENCY_MISMATCH`).
    pub currency: String,
}

impl OrderService {
    /// Adds a line to a pending order; the totals follow. Refusals, in this order:
    /// `INVALID_QUANTITY`, `INVALID_PRICE`, `VALIDATION_ERROR` on `currency`, `NOT_FOUND` for the
    /// product, a discontinued product on `product_id`, `ORDER_NOT_FOUND`, then the order's rules
    /// (`ORDER_NOT_EDITABLE`, `CURRENCY_MISMATCH`, overflow).
    #[tracing::instrument(name = "orders.add_line", skip_all, fields(order_id = %order_id, product_id = %command.product_id))]
    pub async fn add_line(&self, order_id: Uuid, command: AddLine) -> Result<Order, OrderUseCaseError> {
        check_line_input(command.quantity, command.unit_price)?;
        let currency = self.active_currency("currency", &command.currency).await?;
        let product = self
            .products
            .product(command.product_id)
            .await?
            .ok_or(OrderUseCaseError::ProductNotFound { field: None })?;
        let line = line_for(&product, command.quantity, command.unit_price, currency, "product_id")?;
        self.change(order_id, |order, now| order.add_line(line.clone(), now)).await
    }

    /// Sets a line's quantity on a pending order; the totals follow. `ORDER_NOT_FOUND`,
    /// `LINE_NOT_FOUND`, `INVALID_QUANTITY`, `ORDER_NOT_EDITABLE`, overflow.
    #[tracing::instrument(name = "orders.change_line_quantity", skip_all, fields(order_id = %order_id, line_id = %line_id))]
    pub async fn change_line_quantity(
        &self,
        order_id: Uuid,
        line_id: Uuid,
        quantity: i64,
    ) -> Result<Order, OrderUseCaseError> {
        self.change(order_id, |order, now| order.change_line_quantity(line_id, quantity, now)).await
    }

    /// Removes a line from a pending order; the totals follow. `ORDER_NOT_FOUND`, `LINE_NOT_FOUND`,
    /// `ORDER_NOT_EDITABLE`.
    #[tracing::instrument(name = "orders.remove_line", skip_all, fields(order_id = %order_id, line_id = %line_id))]
    pub async fn remove_line(&self, order_id: Uuid, line_id: Uuid) -> Result<Order, OrderUseCaseError> {
        self.change(order_id, |order, now| order.remove_line(line_id, now)).await
    }
}
