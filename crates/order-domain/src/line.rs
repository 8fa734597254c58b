//! Order lines: a product, a positive quantity and a unit price in the order's currency.
//!
//! A line's `subtotal` is always `quantity × unit_price`; only the aggregate builds or changes lines,
//! so the two cannot drift apart. `description` and `sku` are a snapshot of the product taken when the
//! line was added and never change afterwards.

use std::ops::Deref;

use serde::Serialize;
use shared_kernel::CurrencyCode;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::OrderError;
use crate::text;
use crate::totals::line_subtotal;

/// Longest SKU snapshot a line keeps, in characters after trimming; longer is `VALIDATION_ERROR`.
pub const MAX_SKU_CHARS: usize = 64;
/// Longest description (product name) snapshot a line keeps, in characters after trimming.
pub const MAX_DESCRIPTION_CHARS: usize = 255;

/// The stored shape of a line (what the adapter reads and writes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OrderLineRecord {
    /// The line's id (UUID v7), given when it is added.
    pub id: Uuid,
    /// The order the line belongs to.
    pub order_id: Uuid,
    /// The product ordered (a warehouse product id).
    pub product_id: Uuid,
    /// Units ordered, always > 0.
    pub quantity: i64,
    /// Price of one unit in cents of the order's currency, ≥ 0 (0 for a free item).
    pub unit_price: i64,
    /// `quantity × unit_price` in cents, always recomputed by the aggregate.
    pub subtotal: i64,
    /// The product's name when the line was added, trimmed; never changes afterwards.
    pub description: Option<String>,
    /// The product's SKU when the line was added, trimmed; never changes afterwards.
    pub sku: Option<String>,
    /// When the line was added.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When its quantity last changed (equal to `created_at` until then).
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

/// A line whose invariants hold. Read its fields through `Deref`; change it through the [`crate::Order`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct OrderLine(OrderLineRecord);

impl Deref for OrderLine {
    type Target = OrderLineRecord;
    fn deref(&self) -> &OrderLineRecord {
        &self.0
    }
}

/// What a caller supplies to add a line (`POST /orders/:id/lines`, with the product's snapshot).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLine {
    /// The product to order; whether it exists and is orderable is the handler's question.
    pub product_id: Uuid,
    /// Units to order; must be > 0 (`INVALID_QUANTITY`).
    pub quantity: i64,
    /// Price of one unit in cents; must be ≥ 0 (`INVALID_PRICE`).
    pub unit_price: i64,
    /// The currency of `unit_price`; must be the order's (`CURRENCY_MISMATCH`).
    pub currency: CurrencyCode,
    /// The product's name at add time; blank is `None`, over [`MAX_DESCRIPTION_CHARS`] is refused.
    pub description: Option<String>,
    /// The product's SKU at add time; blank is `None`, over [`MAX_SKU_CHARS`] is refused.
    pub sku: Option<String>,
}

pub(crate) fn check_quantity(quantity: i64) -> Result<(), OrderError> {
    if quantity > 0 {
        Ok(())
    } else {
        Err(OrderError::InvalidQuantity)
    }
}

impl OrderLine {
    /// Rebuilds a line from storage. The database keeps the invariants (CHECKs); nothing is re-validated.
    pub fn restore(record: OrderLineRecord) -> Self {
        Self(record)
    }

    /// The stored shape, for the adapter to write.
    pub fn record(&self) -> &OrderLineRecord {
        &self.0
    }

    /// The stored shape, taken out of the line.
    pub fn into_record(self) -> OrderLineRecord {
        self.0
    }

    /// Validates the input in the order of the error table: quantity, price, currency, text, arithmetic.
    pub(crate) fn build(
        order_id: Uuid,
        currency: CurrencyCode,
        line: NewLine,
        now: OffsetDateTime,
    ) -> Result<Self, OrderError> {
        check_quantity(line.quantity)?;
        if line.unit_price < 0 {
            return Err(OrderError::InvalidPrice);
        }
        if line.currency != currency {
            return Err(OrderError::CurrencyMismatch { order: currency, line: line.currency });
        }
        let description = text::optional(line.description, "description", MAX_DESCRIPTION_CHARS)?;
        let sku = text::optional(line.sku, "sku", MAX_SKU_CHARS)?;
        let subtotal = line_subtotal(line.quantity, line.unit_price)?;
        Ok(Self(OrderLineRecord {
            id: shared_kernel::new_id(),
            order_id,
            product_id: line.product_id,
            quantity: line.quantity,
            unit_price: line.unit_price,
            subtotal,
            description,
            sku,
            created_at: now,
            updated_at: now,
        }))
    }

    /// The same line with a new quantity and the subtotal recomputed.
    pub(crate) fn with_quantity(&self, quantity: i64, now: OffsetDateTime) -> Result<Self, OrderError> {
        check_quantity(quantity)?;
        let subtotal = line_subtotal(quantity, self.unit_price)?;
        Ok(Self(OrderLineRecord { quantity, subtotal, updated_at: now, ..self.0.clone() }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usd() -> CurrencyCode {
        CurrencyCode::parse("USD").expect("valid")
    }

    fn input(quantity: i64, unit_price: i64) -> NewLine {
        NewLine {
            product_id: Uuid::nil(),
            quantity,
            unit_price,
            currency: usd(),
            description: Some(" Widget ".into()),
            sku: Some("W-1".into()),
        }
    }

    #[test]
    fn builds_with_subtotal_and_snapshot() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let line = OrderLine::build(Uuid::nil(), usd(), input(3, 250), now).expect("valid");
        assert_eq!((line.quantity, line.unit_price, line.subtotal), (3, 250, 750));
        assert_eq!(line.description.as_deref(), Some("Widget"));
        assert_eq!(line.sku.as_deref(), Some("W-1"));
        assert_eq!(line.id.get_version_num(), 7);
        let free = OrderLine::build(Uuid::nil(), usd(), input(1, 0), now).expect("a free line is fine");
        assert_eq!(free.subtotal, 0);
    }

    #[test]
    fn rejects_bad_input_with_exact_codes() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let build = |line| OrderLine::build(Uuid::nil(), usd(), line, now);
        assert_eq!(build(input(0, 1)), Err(OrderError::InvalidQuantity));
        assert_eq!(build(input(-1, 1)), Err(OrderError::InvalidQuantity));
        assert_eq!(build(input(1, -1)), Err(OrderError::InvalidPrice));
        let eur = CurrencyCode::parse("EUR").expect("valid");
        assert_eq!(
            build(NewLine { currency: eur, ..input(1, 1) }),
            Err(OrderError::CurrencyMismatch { order: usd(), line: eur })
        );
        assert_eq!(build(input(i64::MAX, 2)), Err(OrderError::out_of_range("quantity")));
        assert_eq!(
            build(NewLine { sku: Some("x".repeat(65)), ..input(1, 1) }).map_err(|e| e.field()),
            Err(Some("sku"))
        );
    }
}
