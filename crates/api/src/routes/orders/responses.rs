//! Wire shapes of orders: responses and request bodies.

use order_domain::{Order, OrderLine};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Serialize, ToSchema)]
pub struct OrderLineView {
    pub id: Uuid,
    pub order_id: Uuid,
    pub product_id: Uuid,
    pub quantity: i64,
    /// Cents of the order's currency.
    pub unit_price: i64,
    /// `quantity × unit_price`.
    pub subtotal: i64,
    /// The product's name when the line was added.
    pub description: Option<String>,
    /// The product's SKU when the line was added.
    pub sku: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<&OrderLine> for OrderLineView {
    fn from(l: &OrderLine) -> Self {
        Self {
            id: l.id,
            order_id: l.order_id,
            product_id: l.product_id,
            quantity: l.quantity,
            unit_price: l.unit_price,
            subtotal: l.subtotal,
            description: l.description.clone(),
            sku: l.sku.clone(),
            created_at: l.created_at,
            updated_at: l.updated_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OrderView {
    pub id: Uuid,
    #[schema(example = "ORD-2026-000001")]
    pub order_number: String,
    pub customer_id: Uuid,
    pub company_id: Option<Uuid>,
    /// pending, confirmed, processing, fulfilled or cancelled.
    pub status: &'static str,
    #[schema(example = "USD")]
    pub currency: String,
    /// Cents: the sum of the line subtotals.
    pub subtotal: i64,
    pub tax: i64,
    pub discount: i64,
    /// `max(0, subtotal + tax − discount)`.
    pub total: i64,
    pub notes: Option<String>,
    /// none, pending, reserved, failed, released or committed: what the warehouse holds for the order.
    pub reservation_status: &'static str,
    /// Why the warehouse could not reserve, when `reservation_status` is failed.
    pub reservation_error: Option<String>,
    pub lines: Vec<OrderLineView>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub confirmed_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub fulfilled_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub cancelled_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<&Order> for OrderView {
    fn from(o: &Order) -> Self {
        Self {
            id: o.id,
            order_number: o.order_number.clone(),
            customer_id: o.customer_id,
            company_id: o.company_id,
            status: o.status.as_str(),
            currency: o.currency.as_str().to_owned(),
            subtotal: o.subtotal,
            tax: o.tax,
            discount: o.discount,
            total: o.total,
            notes: o.notes.clone(),
            reservation_status: o.reservation_status.as_str(),
            reservation_error: o.reservation_error.clone(),
            lines: o.lines.iter().map(OrderLineView::from).collect(),
            confirmed_at: o.confirmed_at,
            fulfilled_at: o.fulfilled_at,
            cancelled_at: o.cancelled_at,
            created_at: o.created_at,
            updated_at: o.updated_at,
        }
    }
}

impl From<Order> for OrderView {
    fn from(o: Order) -> Self {
        Self::from(&o)
    }
}

/// The answer of a status move: the order's id, number, new status and the timestamp it set.
#[derive(Debug, Serialize, ToSchema)]
pub struct TransitionView {
    pub id: Uuid,
    pub order_number: String,
    pub status: &'static str,
    pub reservation_status: &'static str,
    /// Only on confirm.
    #[serde(with = "time::serde::rfc3339::option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub confirmed_at: Option<OffsetDateTime>,
    /// Only on fulfil.
    #[serde(with = "time::serde::rfc3339::option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub fulfilled_at: Option<OffsetDateTime>,
    /// Only on cancel.
    #[serde(with = "time::serde::rfc3339::option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub cancelled_at: Option<OffsetDateTime>,
}

impl TransitionView {
    pub fn of(o: &Order) -> Self {
        Self {
            id: o.id,
            order_number: o.order_number.clone(),
            status: o.status.as_str(),
            reservation_status: o.reservation_status.as_str(),
            confirmed_at: None,
            fulfilled_at: None,
            cancelled_at: None,
        }
    }
}
