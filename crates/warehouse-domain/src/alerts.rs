//! Stock alerts and reorder suggestions: the rules about a record's reorder point.
//!
//! # Alerts
//!
//! A record is **low** while its available quantity (on hand − reserved) is at or below its
//! `reorder_point` and that point is above zero ([`is_low`]); a record without a reorder point, or with
//! 0, is never low. [`stock_alert`] compares the record before and after a write:
//!
//! | before | after | raises |
//! |---|---|---|
//! | not low | low | `warehouse.stock_low` |
//! | low | not low | `warehouse.stock_replenished` |
//! | low | low, or not low | not low | nothing |
//! | (created) | anything | nothing |
//!
//! so each crossing raises its event once, and for one record the two strictly alternate (after its
//! first crossing). The adapter runs it, in the transaction of the change, on every write of a record's
//! quantities: reservations, releases, commits, receipts (purchase orders included), adjustments,
//! damage, transfers (each end, and the stock a cancelled transfer puts back), returns and imports.
//! Tally also runs it when `PUT /inventory/{id}` changes the reorder point: a threshold that makes a
//! record low (or no longer low) is a crossing too, and skipping it would break the alternation (a
//! `stock_replenished` with no `stock_low` before it). A write that changes a record several times in
//! one transaction (a batch of reservations) is judged once, from the quantities the first change
//! started from to those the last one left: no reader ever saw the states in between.
//!
//! Payload: `{inventory_id, product_id, sku, location_id, quantity_available, reorder_point}`
//! ([`event_contracts::warehouse::StockAlert`]), aggregate id = the inventory record.
//!
//! # Reorder suggestions
//!
//! For each low record: `suggested_quantity = max(0, target − available − incoming)` where the target
//! is `max_stock`, or twice the reorder point when unset ([`suggested_quantity`]); a suggestion of 0
//! (enough is already incoming) is omitted. [`purchase_plan`] groups suggestions into one draft
//! purchase order per supplier (and location); a product without a preferred supplier is skipped.

use std::collections::BTreeMap;

use event_contracts::warehouse::{StockAlert, STOCK_LOW, STOCK_REPLENISHED};
use serde::Serialize;
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::inventory::Inventory;
use crate::operations::InventoryChange;

/// Whether a record with `available` units and this reorder point is low: the point is above zero and
/// available ≤ it.
pub fn is_low(available: i64, reorder_point: Option<i64>) -> bool {
    reorder_point.is_some_and(|point| point > 0 && available <= point)
}

/// The two figures the alert rule reads from a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlertLevel {
    /// On hand − reserved.
    pub available: i64,
    /// The record's reorder point.
    pub reorder_point: Option<i64>,
}

impl AlertLevel {
    /// The record's level now.
    pub fn of(inventory: &Inventory) -> Self {
        Self { available: inventory.quantity_available(), reorder_point: inventory.reorder_point }
    }

    /// [`is_low`] for this level.
    pub fn is_low(&self) -> bool {
        is_low(self.available, self.reorder_point)
    }
}

/// Which alert a crossing raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StockAlertKind {
    /// `warehouse.stock_low`: the record became low.
    Low,
    /// `warehouse.stock_replenished`: a low record is no longer low.
    Replenished,
}

impl StockAlertKind {
    /// The event name.
    pub fn event_name(self) -> &'static str {
        match self {
            Self::Low => STOCK_LOW,
            Self::Replenished => STOCK_REPLENISHED,
        }
    }
}

/// A crossing of the reorder point: which alert, and the point crossed (> 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StockCrossing {
    /// Low or replenished.
    pub kind: StockAlertKind,
    /// The reorder point crossed: the record's after the write, or, when the write removed it (a
    /// threshold change), the one it had before.
    pub reorder_point: i64,
}

/// The alert a write raises, per the table of this module: `before` is `None` when the write created
/// the record (which raises nothing).
pub fn stock_alert(before: Option<AlertLevel>, after: AlertLevel) -> Option<StockCrossing> {
    let before = before?;
    let point = |level: AlertLevel| level.reorder_point.filter(|p| *p > 0);
    match (before.is_low(), after.is_low()) {
        (false, true) => point(after).map(|reorder_point| StockCrossing { kind: StockAlertKind::Low, reorder_point }),
        (true, false) => point(after)
            .or(point(before))
            .map(|reorder_point| StockCrossing { kind: StockAlertKind::Replenished, reorder_point }),
        _ => None,
    }
}

/// [`stock_alert`] for an inventory operation's result (its thresholds do not change, its quantities
/// were `change.before`).
pub fn alert_for_change(change: &InventoryChange) -> Option<StockCrossing> {
    let before = AlertLevel { available: change.before.available(), reorder_point: change.inventory.reorder_point };
    stock_alert(Some(before), AlertLevel::of(&change.inventory))
}

/// The event of `crossing` for `inventory` as it is after the write, whose product has `sku`;
/// `occurred_at` is the write's `now`.
pub fn stock_alert_event(
    crossing: StockCrossing,
    inventory: &Inventory,
    sku: &str,
    now: OffsetDateTime,
) -> EventEnvelope {
    let alert = StockAlert {
        inventory_id: inventory.id,
        product_id: inventory.product_id,
        sku: sku.to_owned(),
        location_id: inventory.location_id,
        quantity_available: inventory.quantity_available(),
        reorder_point: crossing.reorder_point,
    };
    EventEnvelope::with_payload(crossing.kind.event_name(), inventory.id, now, &alert)
}

/// `target − available − incoming`, never below 0, where the target is `max_stock`, or twice the
/// reorder point when unset (saturating: no input makes it overflow).
pub fn suggested_quantity(available: i64, incoming: i64, reorder_point: i64, max_stock: Option<i64>) -> i64 {
    let target = max_stock.unwrap_or_else(|| reorder_point.saturating_mul(2));
    target.saturating_sub(available).saturating_sub(incoming).max(0)
}

/// A record the reorder suggestions look at, as the adapter reads it
/// ([`crate::purchasing::ReorderRepository::candidates`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReorderCandidate {
    /// The inventory record.
    pub inventory_id: Uuid,
    /// Its product.
    pub product_id: Uuid,
    /// The product's SKU.
    pub sku: String,
    /// Its location.
    pub location_id: Uuid,
    /// The product's preferred supplier, if any.
    pub supplier_id: Option<Uuid>,
    /// On hand − reserved.
    pub quantity_available: i64,
    /// What open purchase orders and transfers in transit still bring to this record's location.
    pub quantity_incoming: i64,
    /// The record's reorder point.
    pub reorder_point: Option<i64>,
    /// The record's maximum stock.
    pub max_stock: Option<i64>,
}

/// One line of `GET /reorder-suggestions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReorderSuggestion {
    /// The inventory record.
    pub inventory_id: Uuid,
    /// Its product.
    pub product_id: Uuid,
    /// The product's SKU.
    pub sku: String,
    /// Its location.
    pub location_id: Uuid,
    /// The product's preferred supplier, if any.
    pub supplier_id: Option<Uuid>,
    /// On hand − reserved.
    pub quantity_available: i64,
    /// Already on its way.
    pub quantity_incoming: i64,
    /// The record's reorder point (> 0).
    pub reorder_point: i64,
    /// The record's maximum stock.
    pub max_stock: Option<i64>,
    /// What to order, > 0.
    pub suggested_quantity: i64,
}

/// The suggestion for `candidate`: `None` when it is not low or nothing needs ordering.
pub fn suggest(candidate: &ReorderCandidate) -> Option<ReorderSuggestion> {
    if !is_low(candidate.quantity_available, candidate.reorder_point) {
        return None;
    }
    let reorder_point = candidate.reorder_point?;
    let suggested = suggested_quantity(
        candidate.quantity_available,
        candidate.quantity_incoming,
        reorder_point,
        candidate.max_stock,
    );
    (suggested > 0).then(|| ReorderSuggestion {
        inventory_id: candidate.inventory_id,
        product_id: candidate.product_id,
        sku: candidate.sku.clone(),
        location_id: candidate.location_id,
        supplier_id: candidate.supplier_id,
        quantity_available: candidate.quantity_available,
        quantity_incoming: candidate.quantity_incoming,
        reorder_point,
        max_stock: candidate.max_stock,
        suggested_quantity: suggested,
    })
}

/// One draft purchase order `from-suggestions` makes: a supplier, a location and what to order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuggestedPurchase {
    /// The supplier it is placed with.
    pub supplier_id: Uuid,
    /// Where the stock is delivered.
    pub location_id: Uuid,
    /// One line per suggestion, in the order given.
    pub lines: Vec<SuggestedLine>,
}

/// A line of a [`SuggestedPurchase`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SuggestedLine {
    /// The product to order.
    pub product_id: Uuid,
    /// [`ReorderSuggestion::suggested_quantity`].
    pub quantity: i64,
}

/// A suggestion `from-suggestions` made no purchase order for: `{product_id, reason}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedSuggestion {
    /// The product.
    pub product_id: Uuid,
    /// Why, in words: [`NO_SUPPLIER`].
    pub reason: &'static str,
}

/// The reason a product without a preferred supplier is skipped.
pub const NO_SUPPLIER: &str = "the product has no supplier";

/// One purchase per (supplier, location), ordered by supplier id then location id, each with its
/// suggestions' lines in the order given; products without a supplier are skipped.
pub fn purchase_plan(suggestions: &[ReorderSuggestion]) -> (Vec<SuggestedPurchase>, Vec<SkippedSuggestion>) {
    let mut groups: BTreeMap<(Uuid, Uuid), Vec<SuggestedLine>> = BTreeMap::new();
    let mut skipped = Vec::new();
    for s in suggestions {
        match s.supplier_id {
            Some(supplier_id) => groups
                .entry((supplier_id, s.location_id))
                .or_default()
                .push(SuggestedLine { product_id: s.product_id, quantity: s.suggested_quantity }),
            None => skipped.push(SkippedSuggestion { product_id: s.product_id, reason: NO_SUPPLIER }),
        }
    }
    let purchases = groups
        .into_iter()
        .map(|((supplier_id, location_id), lines)| SuggestedPurchase { supplier_id, location_id, lines })
        .collect();
    (purchases, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::tests::stamp;
    use crate::inventory::InventoryRecord;
    use crate::operations::Receipt;

    fn level(available: i64, reorder_point: Option<i64>) -> AlertLevel {
        AlertLevel { available, reorder_point }
    }

    fn low(point: i64) -> Option<StockCrossing> {
        Some(StockCrossing { kind: StockAlertKind::Low, reorder_point: point })
    }

    fn replenished(point: i64) -> Option<StockCrossing> {
        Some(StockCrossing { kind: StockAlertKind::Replenished, reorder_point: point })
    }

    #[test]
    fn low_means_at_or_below_a_point_above_zero() {
        assert!(is_low(5, Some(5)));
        assert!(is_low(0, Some(5)));
        assert!(!is_low(6, Some(5)));
        assert!(!is_low(0, Some(0)), "a reorder point of 0 is never low");
        assert!(!is_low(0, None));
    }

    #[test]
    fn each_crossing_raises_once() {
        // Down through the point: low once, then nothing while staying low.
        assert_eq!(stock_alert(Some(level(6, Some(5))), level(5, Some(5))), low(5));
        assert_eq!(stock_alert(Some(level(5, Some(5))), level(2, Some(5))), None);
        assert_eq!(stock_alert(Some(level(2, Some(5))), level(0, Some(5))), None);
        // Back above: replenished once, then nothing while staying high.
        assert_eq!(stock_alert(Some(level(0, Some(5))), level(6, Some(5))), replenished(5));
        assert_eq!(stock_alert(Some(level(6, Some(5))), level(100, Some(5))), None);
        assert_eq!(stock_alert(Some(level(100, Some(5))), level(6, Some(5))), None);
        // A write that does not change the level.
        assert_eq!(stock_alert(Some(level(3, Some(5))), level(3, Some(5))), None);
    }

    #[test]
    fn creating_a_record_raises_nothing() {
        assert_eq!(stock_alert(None, level(0, Some(5))), None);
        assert_eq!(stock_alert(None, level(50, Some(5))), None);
    }

    #[test]
    fn a_reorder_point_of_zero_or_none_never_alerts() {
        for point in [None, Some(0)] {
            for (before, after) in [(10, 0), (0, 10), (0, 0)] {
                assert_eq!(
                    stock_alert(Some(level(before, point)), level(after, point)),
                    None,
                    "{point:?} {before}→{after}"
                );
            }
        }
    }

    #[test]
    fn a_threshold_change_is_a_crossing_too() {
        assert_eq!(stock_alert(Some(level(4, None)), level(4, Some(5))), low(5));
        assert_eq!(stock_alert(Some(level(4, Some(5))), level(4, Some(3))), replenished(3));
        assert_eq!(stock_alert(Some(level(4, Some(5))), level(4, None)), replenished(5), "the point it had");
        assert_eq!(stock_alert(Some(level(4, Some(5))), level(4, Some(0))), replenished(5));
    }

    fn record(on_hand: i64, reserved: i64, reorder_point: Option<i64>) -> Inventory {
        let at = OffsetDateTime::UNIX_EPOCH;
        Inventory::restore(InventoryRecord {
            id: Uuid::from_u128(1),
            product_id: Uuid::from_u128(2),
            location_id: Uuid::from_u128(3),
            quantity_on_hand: on_hand,
            quantity_reserved: reserved,
            quantity_committed: 0,
            reorder_point,
            min_stock: None,
            max_stock: None,
            created_at: at,
            updated_at: at,
            version: 1,
        })
    }

    #[test]
    fn operations_and_their_alerts() {
        let order = Uuid::from_u128(50);
        let inventory = record(10, 0, Some(5));
        // Reserving 4 leaves 6: nothing; 1 more leaves 5: low.
        let change = inventory.reserve(4, order, stamp()).expect("ok");
        assert_eq!(alert_for_change(&change), None);
        let change = change.inventory.reserve(1, order, stamp()).expect("ok");
        assert_eq!(alert_for_change(&change), low(5));
        // Releasing 1 brings 6: replenished.
        let change = change.inventory.release(1, order, stamp()).expect("ok");
        assert_eq!(alert_for_change(&change), replenished(5));
        // A receipt on an empty record with a point: low → low is nothing, then replenished.
        let empty = record(0, 0, Some(5));
        assert_eq!(alert_for_change(&empty.receive(Receipt::of(2), stamp()).expect("ok")), None);
        let change = empty.receive(Receipt::of(9), stamp()).expect("ok");
        let crossing = alert_for_change(&change).expect("replenished");
        let event = stock_alert_event(crossing, &change.inventory, "W-1", stamp().at);
        assert_eq!(
            (event.name.as_str(), event.aggregate_id, event.occurred_at),
            (STOCK_REPLENISHED, change.inventory.id, stamp().at)
        );
        let alert: StockAlert = event.payload().expect("its shape");
        assert_eq!(
            alert,
            StockAlert {
                inventory_id: change.inventory.id,
                product_id: change.inventory.product_id,
                sku: "W-1".into(),
                location_id: change.inventory.location_id,
                quantity_available: 9,
                reorder_point: 5,
            }
        );
        assert_eq!(StockAlertKind::Low.event_name(), "warehouse.stock_low");
    }

    #[test]
    fn suggested_quantities() {
        // max_stock set: fill up to it.
        assert_eq!(suggested_quantity(3, 0, 5, Some(20)), 17);
        assert_eq!(suggested_quantity(3, 10, 5, Some(20)), 7, "what is incoming counts");
        // Unset: twice the reorder point.
        assert_eq!(suggested_quantity(3, 0, 5, None), 7);
        assert_eq!(suggested_quantity(3, 7, 5, None), 0, "enough is incoming");
        assert_eq!(suggested_quantity(3, 50, 5, None), 0, "never below zero");
        assert_eq!(suggested_quantity(0, 0, i64::MAX, None), i64::MAX, "saturates");
        assert_eq!(suggested_quantity(0, i64::MAX, 5, Some(i64::MIN)), 0);
    }

    fn candidate(
        product: u128,
        supplier: Option<u128>,
        available: i64,
        incoming: i64,
        point: Option<i64>,
    ) -> ReorderCandidate {
        ReorderCandidate {
            inventory_id: Uuid::from_u128(100 + product),
            product_id: Uuid::from_u128(product),
            sku: format!("SKU-{product}"),
            location_id: Uuid::from_u128(7),
            supplier_id: supplier.map(Uuid::from_u128),
            quantity_available: available,
            quantity_incoming: incoming,
            reorder_point: point,
            max_stock: None,
        }
    }

    #[test]
    fn suggestions_omit_zeros_and_records_that_are_not_low() {
        let s = suggest(&candidate(1, Some(9), 2, 1, Some(5))).expect("low, 7 short");
        assert_eq!((s.suggested_quantity, s.reorder_point, s.quantity_incoming), (7, 5, 1));
        let json = serde_json::to_value(&s).expect("serializes");
        assert_eq!(json["suggested_quantity"], 7);
        assert!(json["max_stock"].is_null());
        assert_eq!(suggest(&candidate(1, Some(9), 6, 0, Some(5))), None, "not low");
        assert_eq!(suggest(&candidate(1, Some(9), 0, 0, Some(0))), None, "a point of 0 is never low");
        assert_eq!(suggest(&candidate(1, Some(9), 0, 0, None)), None);
        assert_eq!(suggest(&candidate(1, Some(9), 5, 5, Some(5))), None, "enough incoming: zero omitted");
    }

    #[test]
    fn one_purchase_per_supplier_and_the_rest_skipped() {
        let suggestions: Vec<_> = [
            candidate(1, Some(9), 0, 0, Some(5)),
            candidate(2, None, 0, 0, Some(5)),
            candidate(3, Some(8), 0, 0, Some(2)),
            candidate(4, Some(9), 1, 0, Some(5)),
        ]
        .iter()
        .filter_map(suggest)
        .collect();
        let (purchases, skipped) = purchase_plan(&suggestions);
        assert_eq!(skipped, [SkippedSuggestion { product_id: Uuid::from_u128(2), reason: NO_SUPPLIER }]);
        let location = Uuid::from_u128(7);
        assert_eq!(
            purchases,
            [
                SuggestedPurchase {
                    supplier_id: Uuid::from_u128(8),
                    location_id: location,
                    lines: vec![SuggestedLine { product_id: Uuid::from_u128(3), quantity: 4 }],
                },
                SuggestedPurchase {
                    supplier_id: Uuid::from_u128(9),
                    location_id: location,
                    lines: vec![
                        SuggestedLine { product_id: Uuid::from_u128(1), quantity: 10 },
                        SuggestedLine { product_id: Uuid::from_u128(4), quantity: 9 },
                    ],
                },
            ]
        );
        assert_eq!(purchase_plan(&[]), (vec![], vec![]));
    }
}
