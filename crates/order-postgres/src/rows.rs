//! Row structs of `orders` and `order_lines`, and their conversion to the domain records.

use diesel::prelude::*;
use order_domain::{Order, OrderLine, OrderLineRecord, OrderRecord, OrderStatus, RepoError, ReservationStatus};
use shared_kernel::CurrencyCode;
use time::OffsetDateTime;
use uuid::Uuid;

use super::errors::corrupt;
use super::schema::{order_lines, orders};

/// Every column but `deleted_at`; also the insert shape of a new order.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = orders)]
pub(crate) struct OrderRow {
    pub id: Uuid,
    pub order_number: String,
    pub customer_id: Uuid,
    pub company_id: Option<Uuid>,
    pub status: String,
    pub currency: String,
    pub subtotal: i64,
    pub tax: i64,
    pub discount: i64,
    pub total: i64,
    pub notes: Option<String>,
    pub reservation_status: String,
    pub reservation_error: Option<String>,
    pub confirmed_at: Option<OffsetDateTime>,
    pub fulfilled_at: Option<OffsetDateTime>,
    pub cancelled_at: Option<OffsetDateTime>,
    pub version: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// The header fields an `OrderChange` may write (`None` writes NULL).
#[derive(Debug, AsChangeset)]
#[diesel(table_name = orders, treat_none_as_null = true)]
pub(crate) struct OrderHeaderChange<'a> {
    pub status: &'a str,
    pub subtotal: i64,
    pub tax: i64,
    pub discount: i64,
    pub total: i64,
    pub notes: Option<&'a str>,
    pub reservation_status: &'a str,
    pub reservation_error: Option<&'a str>,
    pub confirmed_at: Option<OffsetDateTime>,
    pub fulfilled_at: Option<OffsetDateTime>,
    pub cancelled_at: Option<OffsetDateTime>,
    pub version: i64,
    pub updated_at: OffsetDateTime,
}

impl<'a> OrderHeaderChange<'a> {
    pub fn of(order: &'a OrderRecord) -> Self {
        Self {
            status: order.status.as_str(),
            subtotal: order.subtotal,
            tax: order.tax,
            discount: order.discount,
            total: order.total,
            notes: order.notes.as_deref(),
            reservation_status: order.reservation_status.as_str(),
            reservation_error: order.reservation_error.as_deref(),
            confirmed_at: order.confirmed_at,
            fulfilled_at: order.fulfilled_at,
            cancelled_at: order.cancelled_at,
            version: order.version,
            updated_at: order.updated_at,
        }
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = order_lines)]
pub(crate) struct LineRow {
    pub id: Uuid,
    pub order_id: Uuid,
    pub product_id: Uuid,
    pub quantity: i64,
    pub unit_price: i64,
    pub subtotal: i64,
    pub description: Option<String>,
    pub sku: Option<String>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl LineRow {
    pub fn of(line: &OrderLineRecord) -> Self {
        Self {
            id: line.id,
            order_id: line.order_id,
            product_id: line.product_id,
            quantity: line.quantity,
            unit_price: line.unit_price,
            subtotal: line.subtotal,
            description: line.description.clone(),
            sku: line.sku.clone(),
            created_at: line.created_at,
            updated_at: line.updated_at,
        }
    }

    pub fn into_line(self) -> OrderLine {
        OrderLine::restore(OrderLineRecord {
            id: self.id,
            order_id: self.order_id,
            product_id: self.product_id,
            quantity: self.quantity,
            unit_price: self.unit_price,
            subtotal: self.subtotal,
            description: self.description,
            sku: self.sku,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

impl OrderRow {
    pub fn of(order: &OrderRecord) -> Self {
        Self {
            id: order.id,
            order_number: order.order_number.clone(),
            customer_id: order.customer_id,
            company_id: order.company_id,
            status: order.status.as_str().to_owned(),
            currency: order.currency.as_str().to_owned(),
            subtotal: order.subtotal,
            tax: order.tax,
            discount: order.discount,
            total: order.total,
            notes: order.notes.clone(),
            reservation_status: order.reservation_status.as_str().to_owned(),
            reservation_error: order.reservation_error.clone(),
            confirmed_at: order.confirmed_at,
            fulfilled_at: order.fulfilled_at,
            cancelled_at: order.cancelled_at,
            version: order.version,
            created_at: order.created_at,
            updated_at: order.updated_at,
        }
    }

    pub fn into_order(self, lines: Vec<LineRow>) -> Result<Order, RepoError> {
        let status = OrderStatus::parse(&self.status).map_err(|_| corrupt("order status", &self.status))?;
        let reservation_status = ReservationStatus::parse(&self.reservation_status)
            .map_err(|_| corrupt("reservation status", &self.reservation_status))?;
        let currency = CurrencyCode::parse(&self.currency).map_err(|_| corrupt("currency", &self.currency))?;
        Ok(Order::restore(OrderRecord {
            id: self.id,
            order_number: self.order_number,
            customer_id: self.customer_id,
            company_id: self.company_id,
            status,
            currency,
            lines: lines.into_iter().map(LineRow::into_line).collect(),
            subtotal: self.subtotal,
            tax: self.tax,
            discount: self.discount,
            total: self.total,
            notes: self.notes,
            reservation_status,
            reservation_error: self.reservation_error,
            confirmed_at: self.confirmed_at,
            fulfilled_at: self.fulfilled_at,
            cancelled_at: self.cancelled_at,
            created_at: self.created_at,
            updated_at: self.updated_at,
            version: self.version,
        }))
    }
}
