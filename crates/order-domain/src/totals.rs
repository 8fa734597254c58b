//! Order arithmetic: line subtotal = quantity × unit price; total = max(0, subtotal + tax − discount).
//!
//! Every step is checked; a result that does not fit `i64` is a `VALIDATION_ERROR` (400), never a
//! panic or a silent wrap.

use serde::Serialize;

use crate::error::OrderError;

/// The four money figures of an order, in cents of the order's currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Σ of the lines' `quantity × unit_price`.
    pub subtotal: i64,
    /// Tax, ≥ 0, as given for the order.
    pub tax: i64,
    /// Discount, ≥ 0, as given for the order.
    pub discount: i64,
    /// `max(0, subtotal + tax − discount)`: a discount never makes an order negative.
    pub total: i64,
}

/// `quantity × unit_price`, checked. Inputs are validated by the caller (`quantity > 0`, `price ≥ 0`).
pub fn line_subtotal(quantity: i64, unit_price: i64) -> Result<i64, OrderError> {
    quantity.checked_mul(unit_price).ok_or(OrderError::out_of_range("quantity"))
}

impl Totals {
    /// Sums the line subtotals and derives the total. `tax` and `discount` must be ≥ 0, else
    /// `VALIDATION_ERROR` on that field; a sum out of the `i64` range is `VALIDATION_ERROR` on
    /// `subtotal` or `total`.
    pub fn compute(line_subtotals: impl IntoIterator<Item = i64>, tax: i64, discount: i64) -> Result<Self, OrderError> {
        if tax < 0 {
            return Err(OrderError::Validation { field: "tax", message: "must be 0 or more" });
        }
        if discount < 0 {
            return Err(OrderError::Validation { field: "discount", message: "must be 0 or more" });
        }
        let subtotal = line_subtotals
            .into_iter()
            .try_fold(0_i64, |sum, line| sum.checked_add(line))
            .ok_or(OrderError::out_of_range("subtotal"))?;
        let gross = subtotal.checked_add(tax).ok_or(OrderError::out_of_range("total"))?;
        // Both operands are ≥ 0, so this cannot overflow; checked anyway to keep the rule visible.
        let total = gross.checked_sub(discount).ok_or(OrderError::out_of_range("total"))?.max(0);
        Ok(Self { subtotal, tax, discount, total })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_derives() {
        let totals = Totals::compute([1000, 250], 100, 50).expect("fits");
        assert_eq!(totals, Totals { subtotal: 1250, tax: 100, discount: 50, total: 1300 });
        assert_eq!(Totals::compute([], 0, 0).expect("fits").total, 0);
        assert_eq!(Totals::compute([], 10, 0).expect("fits").total, 10);
    }

    #[test]
    fn discount_above_subtotal_gives_zero() {
        let totals = Totals::compute([500], 0, 800).expect("fits");
        assert_eq!((totals.subtotal, totals.total), (500, 0));
        assert_eq!(Totals::compute([500], 100, 600).expect("fits").total, 0);
        assert_eq!(Totals::compute([], 0, i64::MAX).expect("fits").total, 0);
    }

    #[test]
    fn overflow_is_an_error() {
        assert_eq!(line_subtotal(i64::MAX, 2), Err(OrderError::out_of_range("quantity")));
        assert_eq!(line_subtotal(3, 7), Ok(21));
        assert_eq!(Totals::compute([i64::MAX, 1], 0, 0), Err(OrderError::out_of_range("subtotal")));
        assert_eq!(Totals::compute([i64::MAX], 1, 0), Err(OrderError::out_of_range("total")));
        assert_eq!(Totals::compute([i64::MAX], 0, i64::MAX).expect("fits").total, 0);
    }

    #[test]
    fn negative_tax_or_discount_rejected() {
        assert_eq!(Totals::compute([1], -1, 0).map_err(|e| e.field()), Err(Some("tax")));
        assert_eq!(Totals::compute([1], 0, -1).map_err(|e| e.field()), Err(Some("discount")));
    }
}
