//! Stock movements: the immutable, append-only record of every quantity change.
//!
//! A movement is created only by the inventory operations in [`crate::operations`] (there is no public
//! constructor and no setter); adapters rebuild stored ones with [`StockMovement::restore`]. Storage
//! offers no update or delete for movements. `quantity` is always > 0; the direction shows in
//! `quantity_before` / `quantity_after` (on hand) and `reserved_before` / `reserved_after`.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};
use shared_kernel::CurrencyCode;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::WarehouseError;
use crate::planning::InventoryQuantity;

/// What kind of quantity change a movement records. Serialized exactly as these PascalCase names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MovementType {
    /// Stock arrived: on hand + q.
    Receipt,
    /// Stock held for an order: reserved + q.
    Reservation,
    /// A hold given back (the order was cancelled): reserved − q.
    ReservationRelease,
    /// Held stock left for a fulfilled order: on hand − q, reserved − q, committed + q.
    Commit,
    /// A correction of on hand by a counted difference, up or down, with a reason.
    Adjustment,
    /// One end of a move between two locations (on hand − q at the source, + q at the destination).
    Transfer,
    /// Damaged units written off: on hand − q, with a reason.
    Damage,
    /// Units a customer sent back: on hand + q.
    Return,
}

impl MovementType {
    /// Every movement type.
    pub const ALL: [MovementType; 8] = [
        Self::Receipt,
        Self::Reservation,
        Self::ReservationRelease,
        Self::Commit,
        Self::Adjustment,
        Self::Transfer,
        Self::Damage,
        Self::Return,
    ];

    /// The wire name (`Receipt`, `ReservationRelease`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Receipt => "Receipt",
            Self::Reservation => "Reservation",
            Self::ReservationRelease => "ReservationRelease",
            Self::Commit => "Commit",
            Self::Adjustment => "Adjustment",
            Self::Transfer => "Transfer",
            Self::Damage => "Damage",
            Self::Return => "Return",
        }
    }

    /// Exact names (case-insensitive); anything else is `VALIDATION_ERROR` on `type`.
    pub fn parse(text: &str) -> Result<Self, WarehouseError> {
        let text = text.trim();
        Self::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(text))
            .ok_or(WarehouseError::Validation { field: "type", message: "is not a known movement type" })
    }

    /// Types `POST /stock-movements` may perform (Receipt, Adjustment, Damage, Return); the others
    /// belong to their own endpoints and to the order flow.
    pub fn can_be_posted(self) -> bool {
        matches!(self, Self::Receipt | Self::Adjustment | Self::Damage | Self::Return)
    }
}

impl fmt::Display for MovementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What caused a movement, named by the movement's `reference_id`. Serialized in snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceType {
    /// A customer order (reservations, releases, commits, returns); `reference_id` is the order id.
    Order,
    /// A purchase from a supplier (a receipt); `reference_id` is the caller's purchase order id.
    PurchaseOrder,
    /// A transfer; `reference_id` links its two movements.
    Transfer,
    /// A person's action without another document (the default for receipts, adjustments, damage).
    Manual,
}

impl ReferenceType {
    /// Every reference type.
    pub const ALL: [ReferenceType; 4] = [Self::Order, Self::PurchaseOrder, Self::Transfer, Self::Manual];

    /// The wire name (`order`, `purchase_order`, `transfer`, `manual`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Order => "order",
            Self::PurchaseOrder => "purchase_order",
            Self::Transfer => "transfer",
            Self::Manual => "manual",
        }
    }

    /// Case-insensitive, trimmed; anything else is `VALIDATION_ERROR` on `reference_type`.
    pub fn parse(text: &str) -> Result<Self, WarehouseError> {
        let text = text.trim();
        Self::ALL.into_iter().find(|t| t.as_str().eq_ignore_ascii_case(text)).ok_or(WarehouseError::Validation {
            field: "reference_type",
            message: "must be order, purchase_order, transfer or manual",
        })
    }
}

/// The stored and wire shape of a movement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StockMovementRecord {
    /// The movement's id (UUID v7).
    pub id: Uuid,
    /// The inventory record whose quantities changed.
    pub inventory_id: Uuid,
    /// That record's product.
    pub product_id: Uuid,
    /// That record's location.
    pub location_id: Uuid,
    /// What kind of change it was (`type` on the wire).
    #[serde(rename = "type")]
    pub movement_type: MovementType,
    /// Units moved, always > 0 (an adjustment's |delta|).
    pub quantity: i64,
    /// On hand before the change.
    pub quantity_before: i64,
    /// On hand after the change.
    pub quantity_after: i64,
    /// Reserved before the change.
    pub reserved_before: i64,
    /// Reserved after the change.
    pub reserved_after: i64,
    /// Cents of `currency`, receipts only.
    pub unit_cost: Option<i64>,
    /// `unit_cost × quantity` in cents of `currency`, receipts with a cost only.
    pub total_cost: Option<i64>,
    /// The currency of the costs, set exactly when they are.
    pub currency: Option<CurrencyCode>,
    /// What caused the change.
    pub reference_type: ReferenceType,
    /// The order, purchase order or transfer that caused it, if any.
    pub reference_id: Option<Uuid>,
    /// Why, in words (required for adjustments and damage).
    pub reason: Option<String>,
    /// The user who made the change; `None` for the system (the order-event handlers).
    pub created_by: Option<Uuid>,
    /// When the change happened.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// A stock movement, never changed once made: only the inventory operations create one, and no port
/// updates or deletes one. Read its fields through `Deref`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct StockMovement(StockMovementRecord);

impl Deref for StockMovement {
    type Target = StockMovementRecord;
    fn deref(&self) -> &StockMovementRecord {
        &self.0
    }
}

impl StockMovement {
    /// Only the inventory operations create movements.
    pub(crate) fn new(record: StockMovementRecord) -> Self {
        Self(record)
    }

    /// Rebuilds a stored movement (adapters reading the append-only table).
    pub fn restore(record: StockMovementRecord) -> Self {
        Self(record)
    }

    /// The stored shape, for the adapter to insert.
    pub fn record(&self) -> &StockMovementRecord {
        &self.0
    }
}

/// What an order still holds per inventory record, from that order's movements:
/// Reservation − ReservationRelease − Commit, keeping only positive balances, sorted by inventory id.
/// The release and commit handlers use it to settle "exactly what that order holds".
pub fn held_for_order(movements: &[StockMovement], order_id: Uuid) -> Vec<InventoryQuantity> {
    let mut held: BTreeMap<Uuid, i64> = BTreeMap::new();
    for m in movements.iter().filter(|m| m.reference_type == ReferenceType::Order && m.reference_id == Some(order_id)) {
        let balance = held.entry(m.inventory_id).or_default();
        *balance = match m.movement_type {
            MovementType::Reservation => balance.saturating_add(m.quantity),
            MovementType::ReservationRelease | MovementType::Commit => balance.saturating_sub(m.quantity),
            _ => *balance,
        };
    }
    held.into_iter()
        .filter(|(_, quantity)| *quantity > 0)
        .map(|(inventory_id, quantity)| InventoryQuantity { inventory_id, quantity })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movement_types_are_pascal_case_on_the_wire() {
        for t in MovementType::ALL {
            assert_eq!(serde_json::to_value(t).expect("serializes"), serde_json::json!(t.as_str()));
            assert_eq!(MovementType::parse(t.as_str()), Ok(t));
        }
        assert_eq!(MovementType::ReservationRelease.as_str(), "ReservationRelease");
        assert_eq!(MovementType::parse("receipt"), Ok(MovementType::Receipt));
        assert!(MovementType::parse("Sale").is_err());
        let posted: Vec<_> = MovementType::ALL.into_iter().filter(|t| t.can_be_posted()).collect();
        assert_eq!(
            posted,
            [MovementType::Receipt, MovementType::Adjustment, MovementType::Damage, MovementType::Return]
        );
    }

    #[test]
    fn reference_types_are_snake_case() {
        for t in ReferenceType::ALL {
            assert_eq!(serde_json::to_value(t).expect("serializes"), serde_json::json!(t.as_str()));
            assert_eq!(ReferenceType::parse(t.as_str()), Ok(t));
        }
        assert!(ReferenceType::parse("invoice").is_err());
    }

    #[test]
    fn held_for_order_nets_reservations() {
        use crate::inventory::tests::{stamp, stock};
        use crate::operations::Receipt;
        let order = Uuid::from_u128(500);
        let other = Uuid::from_u128(501);
        let inv = stock(20, 0, 0);
        let reserve = inv.reserve(8, order, stamp()).expect("ok");
        let release = reserve.inventory.release(3, order, stamp()).expect("ok");
        let commit = release.inventory.commit(2, order, stamp()).expect("ok");
        let foreign = commit.inventory.reserve(4, other, stamp()).expect("ok");
        let receipt =
            foreign.inventory.receive(Receipt { reference_id: Some(order), ..Receipt::of(1) }, stamp()).expect("ok");
        let movements =
            [reserve.movement, release.movement, commit.movement, foreign.movement.clone(), receipt.movement];
        assert_eq!(held_for_order(&movements, order), [InventoryQuantity { inventory_id: inv.id, quantity: 3 }]);
        assert_eq!(held_for_order(&movements, other), [InventoryQuantity { inventory_id: inv.id, quantity: 4 }]);
        assert!(held_for_order(&movements, Uuid::nil()).is_empty());
        let released = foreign.inventory.release(4, other, stamp()).expect("ok");
        assert!(held_for_order(&[foreign.movement, released.movement], other).is_empty(), "zero balances are dropped");
    }
}
