//! Creating an order, with or without its lines (`items`), and the checks of a line's product.
//!
//! The order of checks is the contract's (docs/conventions.md): the currency, the header's own
//! rules (tax, discount, notes), the items (their count, each quantity and price, then their
//! products in one look-up), and only then the customer and the company.

use std::collections::HashMap;

use shared_kernel::CurrencyCode;
use uuid::Uuid;

use super::error::OrderUseCaseError;
use super::orders::OrderService;
use super::ports::CatalogProduct;
use crate::error::OrderError;
use crate::line::NewLine;
use crate::order::{NewOrder, Order, OrderDraft};

/// At most this many `items` in one creation.
pub const MAX_ORDER_ITEMS: usize = 100;

/// What a caller asks for to create an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateOrder {
    /// The customer the order is for; must be a live customer (`CUSTOMER_NOT_FOUND`).
    pub customer_id: Uuid,
    /// The customer's company, when ordering for one; must be a live company (`NOT_FOUND`).
    pub company_id: Option<Uuid>,
    /// The ISO 4217 code every amount is in, as sent; must be active (`VALIDATION_ERROR`).
    pub currency: String,
    /// Cents, ≥ 0.
    pub tax: i64,
    /// Cents, ≥ 0.
    pub discount: i64,
    /// Free text, trimmed.
    pub notes: Option<String>,
    /// The lines to create the order with, at most [`MAX_ORDER_ITEMS`]; `None` for an empty order.
    pub items: Option<Vec<OrderItem>>,
}

/// One line of a creation: the product's name and SKU are copied from the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderItem {
    /// The product to order; must be live and orderable.
    pub product_id: Uuid,
    /// Units, > 0 (`INVALID_QUANTITY`).
    pub quantity: i64,
    /// Cents per unit, ≥ 0 (`INVALID_PRICE`).
    pub unit_price: i64,
}

/// A line's quantity and price, checked before any reference is looked up.
pub(super) fn check_line_input(quantity: i64, unit_price: i64) -> Result<(), OrderError> {
    if quantity <= 0 {
        return Err(OrderError::InvalidQuantity);
    }
    if unit_price < 0 {
        return Err(OrderError::InvalidPrice);
    }
    Ok(())
}

/// A line for `product`, which must still be orderable (else a 400 on `field`); its name and SKU
/// are copied onto the line.
pub(super) fn line_for(
    product: &CatalogProduct,
    quantity: i64,
    unit_price: i64,
    currency: CurrencyCode,
    field: &str,
) -> Result<NewLine, OrderUseCaseError> {
    if !product.orderable {
        return Err(OrderUseCaseError::ProductNotOrderable { field: field.to_owned() });
    }
    Ok(NewLine {
        product_id: product.id,
        quantity,
        unit_price,
        currency,
        description: Some(product.name.clone()),
        sku: Some(product.sku.clone()),
    })
}

impl OrderService {
    /// Creates a pending order (with its lines when `items` are given) and its `order.created`
    /// event. Refusals, in this order: `VALIDATION_ERROR` on `currency`; the header's rules
    /// (`tax`, `discount`, `notes`); `items` over [`MAX_ORDER_ITEMS`]; an item's `INVALID_QUANTITY`
    /// or `INVALID_PRICE`; `NOT_FOUND` or a discontinued product on `items[n].product_id`;
    /// `CUSTOMER_NOT_FOUND`; `NOT_FOUND` for the company.
    #[tracing::instrument(
        name = "orders.create",
        skip_all,
        fields(customer_id = %command.customer_id, order_id = tracing::field::Empty)
    )]
    pub async fn create(&self, command: CreateOrder) -> Result<Order, OrderUseCaseError> {
        let currency = self.active_currency("currency", &command.currency).await?;
        let input = NewOrder {
            customer_id: command.customer_id,
            company_id: command.company_id,
            currency,
            tax: command.tax,
            discount: command.discount,
            notes: command.notes,
        };
        let mut draft = OrderDraft::new(input, self.clock.now())?;
        if let Some(items) = &command.items {
            draft = draft.with_lines(self.item_lines(items, currency).await?)?;
        }
        if !self.customers.customer_exists(command.customer_id).await? {
            return Err(OrderUseCaseError::CustomerNotFound);
        }
        if let Some(company_id) = command.company_id {
            if !self.customers.company_exists(company_id).await? {
                return Err(OrderUseCaseError::CompanyNotFound);
            }
        }
        let order = self.orders.create(draft).await.map_err(OrderUseCaseError::of_order)?;
        tracing::Span::current().record("order_id", tracing::field::display(order.id));
        Ok(order)
    }

    /// `code` as a currency the register holds active; else `VALIDATION_ERROR` on `field`.
    pub(super) async fn active_currency(
        &self,
        field: &'static str,
        code: &str,
    ) -> Result<CurrencyCode, OrderUseCaseError> {
        let inactive = OrderUseCaseError::InactiveCurrency { field };
        let currency = CurrencyCode::parse(code).map_err(|_| inactive.clone())?;
        if self.currencies.is_active(currency).await? {
            Ok(currency)
        } else {
            Err(inactive)
        }
    }

    /// The lines of a creation's `items`: every product looked up in one call.
    async fn item_lines(&self, items: &[OrderItem], currency: CurrencyCode) -> Result<Vec<NewLine>, OrderUseCaseError> {
        if items.len() > MAX_ORDER_ITEMS {
            return Err(OrderUseCaseError::TooManyItems { max: MAX_ORDER_ITEMS });
        }
        for item in items {
            check_line_input(item.quantity, item.unit_price)?;
        }
        let ids: Vec<Uuid> = items.iter().map(|item| item.product_id).collect();
        let products = self.products.products(&ids).await?;
        let by_id: HashMap<Uuid, &CatalogProduct> = products.iter().map(|p| (p.id, p)).collect();
        items
            .iter()
            .enumerate()
            .map(|(n, item)| {
                let field = format!("items[{n}].product_id");
                let Some(product) = by_id.get(&item.product_id) else {
                    return Err(OrderUseCaseError::ProductNotFound { field: Some(field) });
                };
                line_for(product, item.quantity, item.unit_price, currency, &field)
            })
            .collect()
    }
}
