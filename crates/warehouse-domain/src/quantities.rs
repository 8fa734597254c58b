//! The quantity triple of an inventory record and its thresholds.
//!
//! Invariant (also a database CHECK): `0 ≤ reserved ≤ on_hand` and `committed ≥ 0`; `available` is
//! derived as `on_hand − reserved` and never stored.

use serde::Serialize;

use crate::error::WarehouseError;
use crate::text;

/// The stock figures of one inventory record (or their sums over several, as in
/// [`crate::Availability`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Quantities {
    /// Units physically at the location, reserved ones included.
    pub on_hand: i64,
    /// Units of `on_hand` held for confirmed orders; never more than `on_hand`.
    pub reserved: i64,
    /// Units that left for fulfilled orders, counted over the record's life; only grows.
    pub committed: i64,
}

impl Quantities {
    /// Units that may still be reserved: `on_hand − reserved`.
    pub fn available(&self) -> i64 {
        self.on_hand.saturating_sub(self.reserved)
    }

    /// Whether the invariant holds: `0 ≤ reserved ≤ on_hand` and `committed ≥ 0`.
    pub fn is_consistent(&self) -> bool {
        0 <= self.reserved && self.reserved <= self.on_hand && self.committed >= 0
    }
}

/// `reorder_point`, `min_stock`, `max_stock`: each `None` or ≥ 0, and `min ≤ max` when both are set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Thresholds {
    /// Available stock at or below which the record counts as low stock (time to reorder).
    pub reorder_point: Option<i64>,
    /// The least stock the location means to keep; for people, no operation enforces it.
    pub min_stock: Option<i64>,
    /// The most stock the location means to keep; for people, no operation enforces it.
    pub max_stock: Option<i64>,
}

impl Thresholds {
    /// The thresholds unchanged when valid; a negative one, or `min_stock > max_stock`, is
    /// `VALIDATION_ERROR` on that field.
    pub fn validate(self) -> Result<Self, WarehouseError> {
        text::non_negative(self.reorder_point, "reorder_point")?;
        text::non_negative(self.min_stock, "min_stock")?;
        text::non_negative(self.max_stock, "max_stock")?;
        if let (Some(min), Some(max)) = (self.min_stock, self.max_stock) {
            if min > max {
                return Err(WarehouseError::Validation { field: "min_stock", message: "must not exceed max_stock" });
            }
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn available_and_consistency() {
        let q = Quantities { on_hand: 10, reserved: 3, committed: 0 };
        assert_eq!(q.available(), 7);
        assert!(q.is_consistent());
        assert!(!Quantities { on_hand: 1, reserved: 2, committed: 0 }.is_consistent());
        assert!(!Quantities { on_hand: 1, reserved: -1, committed: 0 }.is_consistent());
        assert!(!Quantities { on_hand: 1, reserved: 0, committed: -1 }.is_consistent());
    }

    #[test]
    fn thresholds_rules() {
        let ok = Thresholds { reorder_point: Some(5), min_stock: Some(2), max_stock: Some(2) };
        assert_eq!(ok.validate(), Ok(ok));
        assert_eq!(Thresholds::default().validate(), Ok(Thresholds::default()));
        let only_min = Thresholds { min_stock: Some(9), ..Thresholds::default() };
        assert_eq!(only_min.validate(), Ok(only_min));
        let field = |t: Thresholds| t.validate().map_err(|e| e.field());
        assert_eq!(field(Thresholds { reorder_point: Some(-1), ..Thresholds::default() }), Err(Some("reorder_point")));
        assert_eq!(field(Thresholds { min_stock: Some(-1), ..Thresholds::default() }), Err(Some("min_stock")));
        assert_eq!(field(Thresholds { max_stock: Some(-1), ..Thresholds::default() }), Err(Some("max_stock")));
        assert_eq!(
            field(Thresholds { min_stock: Some(3), max_stock: Some(2), ..Thresholds::default() }),
            Err(Some("min_stock"))
        );
    }
}
