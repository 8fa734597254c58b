//! Reservation planning for the order flow (`docs/orders-and-warehouse.md`, "Order flow").
//!
//! On `order.confirmed` the warehouse reserves every line in one transaction, all or nothing. This
//! module decides *where* from, without I/O: the adapter locks the candidate inventory rows
//! (`FOR UPDATE`, non-deleted records at active, non-deleted locations) and calls
//! [`crate::reserve_from`], which plans with [`plan_reservation`] and applies
//! [`crate::Inventory::reserve`] once per record with [`totals_by_inventory`].
//!
//! Rules:
//! * lines are served in the given order; lines of the same product share that product's stock;
//! * each line takes from the records with the most available stock *left* first (ties: lower
//!   location id, then lower inventory id), and may span several records;
//! * a line that cannot be served in full is short: it reports what was left for it and still uses
//!   that up, so the later lines of the same product show how much of the product is missing;
//! * any short line fails the whole plan, and every short line is reported;
//! * a line with a quantity ≤ 0 needs nothing (the order domain never produces one); negative
//!   availability counts as 0.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// One order line to reserve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReservationLine {
    /// The order line's id, echoed in allocations and shortages.
    pub line_id: Uuid,
    /// The product the line orders.
    pub product_id: Uuid,
    /// Units to reserve (> 0 from the order domain; ≤ 0 needs nothing).
    pub quantity: i64,
}

/// The available stock of one inventory record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StockLevel {
    /// The inventory record.
    pub inventory_id: Uuid,
    /// Its product.
    pub product_id: Uuid,
    /// Its location (the tie-breaker between equally stocked records).
    pub location_id: Uuid,
    /// Its on hand − reserved; negative counts as 0.
    pub available: i64,
}

/// `quantity` of line `line_id` is taken from record `inventory_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Allocation {
    /// The order line served.
    pub line_id: Uuid,
    /// The record the units are taken from.
    pub inventory_id: Uuid,
    /// Units of the line taken there, > 0.
    pub quantity: i64,
}

/// A line that cannot be served: it asked for `requested` and `available` was left for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shortage {
    /// The order line that cannot be served in full.
    pub line_id: Uuid,
    /// The product it orders.
    pub product_id: Uuid,
    /// Units the line asked for.
    pub requested: i64,
    /// Units of the product left for it after the earlier lines, less than `requested`.
    pub available: i64,
}

/// A quantity per inventory record (what to reserve, release or commit there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InventoryQuantity {
    /// The inventory record.
    pub inventory_id: Uuid,
    /// Units to reserve, release or commit there, > 0.
    pub quantity: i64,
}

/// All or nothing: every line allocated from `stock` (by the rules above), or every short line
/// reported. Pure: the stock levels are not changed; apply the plan with [`crate::reserve_from`].
pub fn plan_reservation(lines: &[ReservationLine], stock: &[StockLevel]) -> Result<Vec<Allocation>, Vec<Shortage>> {
    let mut left: Vec<i64> = stock.iter().map(|s| s.available.max(0)).collect();
    let mut allocations = Vec::new();
    let mut shortages = Vec::new();
    for line in lines.iter().filter(|l| l.quantity > 0) {
        let mut candidates: Vec<usize> =
            (0..stock.len()).filter(|&i| stock[i].product_id == line.product_id && left[i] > 0).collect();
        candidates.sort_by(|&a, &b| {
            left[b]
                .cmp(&left[a])
                .then(stock[a].location_id.cmp(&stock[b].location_id))
                .then(stock[a].inventory_id.cmp(&stock[b].inventory_id))
        });
        let total_left = candidates.iter().fold(0_i64, |sum, &i| sum.saturating_add(left[i]));
        if total_left < line.quantity {
            shortages.push(Shortage {
                line_id: line.line_id,
                product_id: line.product_id,
                requested: line.quantity,
                available: total_left,
            });
            candidates.iter().for_each(|&i| left[i] = 0);
            continue;
        }
        let mut need = line.quantity;
        for i in candidates {
            if need == 0 {
                break;
            }
            let take = need.min(left[i]);
            left[i] -= take;
            need -= take;
            allocations.push(Allocation { line_id: line.line_id, inventory_id: stock[i].inventory_id, quantity: take });
        }
    }
    if shortages.is_empty() {
        Ok(allocations)
    } else {
        Err(shortages)
    }
}

/// Sums allocations per inventory record, sorted by inventory id (the order to lock and update rows
/// in, and one Reservation movement per record).
pub fn totals_by_inventory(allocations: &[Allocation]) -> Vec<InventoryQuantity> {
    let mut totals: BTreeMap<Uuid, i64> = BTreeMap::new();
    for a in allocations {
        let total = totals.entry(a.inventory_id).or_default();
        *total = total.saturating_add(a.quantity);
    }
    totals.into_iter().map(|(inventory_id, quantity)| InventoryQuantity { inventory_id, quantity }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    /// Line `n` for product `p`.
    fn line(n: u128, product: u128, quantity: i64) -> ReservationLine {
        ReservationLine { line_id: id(1000 + n), product_id: id(product), quantity }
    }

    /// Record `n` (at location `n`) holding `available` of product `p`.
    fn level(n: u128, product: u128, available: i64) -> StockLevel {
        StockLevel { inventory_id: id(100 + n), product_id: id(product), location_id: id(200 + n), available }
    }

    fn alloc(line: u128, inventory: u128, quantity: i64) -> Allocation {
        Allocation { line_id: id(1000 + line), inventory_id: id(100 + inventory), quantity }
    }

    fn short(line: u128, product: u128, requested: i64, available: i64) -> Shortage {
        Shortage { line_id: id(1000 + line), product_id: id(product), requested, available }
    }

    #[test]
    fn exact_fit_from_one_location() {
        let plan = plan_reservation(&[line(1, 1, 5)], &[level(1, 1, 5)]);
        assert_eq!(plan, Ok(vec![alloc(1, 1, 5)]));
    }

    #[test]
    fn takes_the_fullest_location_first() {
        let stock = [level(1, 1, 3), level(2, 1, 9), level(3, 1, 5)];
        assert_eq!(plan_reservation(&[line(1, 1, 4)], &stock), Ok(vec![alloc(1, 2, 4)]));
    }

    #[test]
    fn a_line_spans_locations() {
        let stock = [level(1, 1, 3), level(2, 1, 6), level(3, 1, 4)];
        let plan = plan_reservation(&[line(1, 1, 12)], &stock);
        assert_eq!(plan, Ok(vec![alloc(1, 2, 6), alloc(1, 3, 4), alloc(1, 1, 2)]));
        let exact = plan_reservation(&[line(1, 1, 13)], &stock).expect("exact fit");
        assert_eq!(exact.iter().map(|a| a.quantity).sum::<i64>(), 13);
    }

    #[test]
    fn ties_break_by_location_then_inventory() {
        let stock = [level(2, 1, 5), level(1, 1, 5)];
        assert_eq!(plan_reservation(&[line(1, 1, 5)], &stock), Ok(vec![alloc(1, 1, 5)]));
    }

    #[test]
    fn lines_of_the_same_product_share_stock() {
        let stock = [level(1, 1, 6), level(2, 1, 4)];
        let plan = plan_reservation(&[line(1, 1, 5), line(2, 1, 5)], &stock);
        // Line 1 takes 5 of 6 at record 1; then record 2 (4 left) is fullest for line 2.
        assert_eq!(plan, Ok(vec![alloc(1, 1, 5), alloc(2, 2, 4), alloc(2, 1, 1)]));
        let totals = totals_by_inventory(&plan.expect("fits"));
        assert_eq!(
            totals,
            [
                InventoryQuantity { inventory_id: id(101), quantity: 6 },
                InventoryQuantity { inventory_id: id(102), quantity: 4 }
            ]
        );
    }

    #[test]
    fn shared_stock_shortage_shows_on_the_later_line() {
        let plan = plan_reservation(&[line(1, 1, 5), line(2, 1, 5)], &[level(1, 1, 7)]);
        assert_eq!(plan, Err(vec![short(2, 1, 5, 2)]));
    }

    #[test]
    fn a_short_line_uses_up_what_was_left() {
        let plan = plan_reservation(&[line(1, 1, 10), line(2, 1, 5)], &[level(1, 1, 7)]);
        assert_eq!(plan, Err(vec![short(1, 1, 10, 7), short(2, 1, 5, 0)]));
    }

    #[test]
    fn every_short_line_is_reported_and_nothing_is_allocated() {
        let lines = [line(1, 1, 2), line(2, 2, 5), line(3, 3, 1), line(4, 4, 3)];
        let stock = [level(1, 1, 2), level(2, 2, 4), level(3, 4, 1), level(4, 4, 1)];
        let plan = plan_reservation(&lines, &stock);
        assert_eq!(plan, Err(vec![short(2, 2, 5, 4), short(3, 3, 1, 0), short(4, 4, 3, 2)]));
    }

    #[test]
    fn zero_and_negative_stock_is_skipped() {
        let stock = [level(1, 1, 0), level(2, 1, -3), level(3, 1, 2)];
        assert_eq!(plan_reservation(&[line(1, 1, 2)], &stock), Ok(vec![alloc(1, 3, 2)]));
        assert_eq!(plan_reservation(&[line(1, 1, 3)], &stock), Err(vec![short(1, 1, 3, 2)]));
        assert_eq!(plan_reservation(&[line(1, 1, 1)], &[level(1, 1, 0)]), Err(vec![short(1, 1, 1, 0)]));
    }

    #[test]
    fn other_products_stock_is_not_used() {
        let plan = plan_reservation(&[line(1, 1, 1)], &[level(1, 2, 100)]);
        assert_eq!(plan, Err(vec![short(1, 1, 1, 0)]));
    }

    #[test]
    fn empty_and_non_positive_lines_need_nothing() {
        assert_eq!(plan_reservation(&[], &[level(1, 1, 5)]), Ok(vec![]));
        assert_eq!(plan_reservation(&[line(1, 1, 0), line(2, 1, -1)], &[]), Ok(vec![]));
    }

    #[test]
    fn huge_quantities_do_not_overflow() {
        let stock = [level(1, 1, i64::MAX), level(2, 1, i64::MAX)];
        let plan = plan_reservation(&[line(1, 1, i64::MAX), line(2, 1, i64::MAX)], &stock).expect("fits");
        assert_eq!(plan, vec![alloc(1, 1, i64::MAX), alloc(2, 2, i64::MAX)]);
        assert_eq!(plan_reservation(&[line(1, 1, i64::MAX)], &[level(1, 1, 1)]), Err(vec![short(1, 1, i64::MAX, 1)]));
    }
}
