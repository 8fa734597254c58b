//! Inventory records: the stock of one product at one location (one record per pair).
//!
//! Quantities change only through the operations in [`crate::operations`], each of which returns the
//! new record together with the movement to append. `PUT` changes only the thresholds. Deleting a
//! record that holds reservations is `STOCK_RESERVED` 409.

use std::ops::Deref;

use serde::{Serialize, Serializer};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::WarehouseError;
use crate::movement::StockMovement;
use crate::operations::{Receipt, Stamp};
use crate::quantities::{Quantities, Thresholds};

/// The stored shape (the wire adds the derived `quantity_available`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InventoryRecord {
    /// The record's id (UUID v7).
    pub id: Uuid,
    /// The product stocked; one record per product and location.
    pub product_id: Uuid,
    /// Where the stock is.
    pub location_id: Uuid,
    /// Units physically there, reserved ones included; ≥ `quantity_reserved`.
    pub quantity_on_hand: i64,
    /// Units held for confirmed orders; `0 ≤ reserved ≤ on_hand`.
    pub quantity_reserved: i64,
    /// Units that left for fulfilled orders, in total; ≥ 0.
    pub quantity_committed: i64,
    /// See [`Thresholds::reorder_point`].
    pub reorder_point: Option<i64>,
    /// See [`Thresholds::min_stock`].
    pub min_stock: Option<i64>,
    /// See [`Thresholds::max_stock`].
    pub max_stock: Option<i64>,
    /// When the record was created.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When its quantities or thresholds last changed.
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    #[serde(skip)]
    pub version: i64,
}

/// An inventory record whose invariant holds (`0 ≤ reserved ≤ on_hand`, `committed ≥ 0`). Read its
/// fields through `Deref`; change its quantities only through the operations of
/// [`crate::operations`]. Serializes as the record plus the derived `quantity_available`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inventory(InventoryRecord);

impl Deref for Inventory {
    type Target = InventoryRecord;
    fn deref(&self) -> &InventoryRecord {
        &self.0
    }
}

impl Serialize for Inventory {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire<'a> {
            #[serde(flatten)]
            record: &'a InventoryRecord,
            quantity_available: i64,
        }
        Wire { record: &self.0, quantity_available: self.quantity_available() }.serialize(serializer)
    }
}

/// `POST /inventory`: an optional initial on-hand quantity is recorded as a Receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewInventory {
    /// The product to stock; whether it exists is the handler's question.
    pub product_id: Uuid,
    /// The location; the product must not have a record there yet (the adapter's unique key).
    pub location_id: Uuid,
    /// Units already there, ≥ 0; recorded as a Receipt when > 0.
    pub quantity_on_hand: Option<i64>,
    /// The record's thresholds, validated by [`Thresholds::validate`].
    pub thresholds: Thresholds,
}

impl Inventory {
    /// An empty record, plus the Receipt of the initial stock when `quantity_on_hand` is > 0.
    /// A negative initial quantity is `INVALID_QUANTITY`; 0 or absent records no movement.
    pub fn create(input: NewInventory, stamp: Stamp) -> Result<(Self, Option<StockMovement>), WarehouseError> {
        let thresholds = input.thresholds.validate()?;
        let empty = Self(InventoryRecord {
            version: 1,
            id: shared_kernel::new_id(),
            product_id: input.product_id,
            location_id: input.location_id,
            quantity_on_hand: 0,
            quantity_reserved: 0,
            quantity_committed: 0,
            reorder_point: thresholds.reorder_point,
            min_stock: thresholds.min_stock,
            max_stock: thresholds.max_stock,
            created_at: stamp.at,
            updated_at: stamp.at,
        });
        match input.quantity_on_hand {
            None | Some(0) => Ok((empty, None)),
            Some(q) if q < 0 => Err(WarehouseError::InvalidQuantity),
            Some(q) => {
                let receipt = Receipt { reason: Some("initial stock".into()), ..Receipt::of(q) };
                let change = empty.receive(receipt, stamp)?;
                Ok((change.inventory, Some(change.movement)))
            }
        }
    }

    /// Rebuilds a record from storage without re-validating (the database CHECKs hold the invariant).
    pub fn restore(record: InventoryRecord) -> Self {
        Self(record)
    }

    /// The stored shape, for the adapter to write.
    pub fn record(&self) -> &InventoryRecord {
        &self.0
    }

    /// The stored shape, taken out of the record.
    pub fn into_record(self) -> InventoryRecord {
        self.0
    }

    /// On hand, reserved and committed, the triple the compare-and-set compares.
    pub fn quantities(&self) -> Quantities {
        Quantities {
            on_hand: self.quantity_on_hand,
            reserved: self.quantity_reserved,
            committed: self.quantity_committed,
        }
    }

    /// Units that may still be reserved: `on_hand − reserved`.
    pub fn quantity_available(&self) -> i64 {
        self.quantities().available()
    }

    /// The reorder point, minimum and maximum stock.
    pub fn thresholds(&self) -> Thresholds {
        Thresholds { reorder_point: self.reorder_point, min_stock: self.min_stock, max_stock: self.max_stock }
    }

    /// `PUT /inventory/:id`: only the thresholds change (`VALIDATION_ERROR` when invalid); the
    /// quantities never change this way.
    pub fn set_thresholds(&self, thresholds: Thresholds, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        let t = thresholds.validate()?;
        Ok(Self(InventoryRecord {
            reorder_point: t.reorder_point,
            min_stock: t.min_stock,
            max_stock: t.max_stock,
            updated_at: now,
            // Saved by one UPDATE, which the database's trigger counts the same way (changes that
            // follow one another in one transaction are saved by one UPDATE too: one version for all).
            version: self.version + 1,
            ..self.0.clone()
        }))
    }

    /// Low stock: a reorder point is set and available ≤ it (`GET /inventory/low-stock`).
    pub fn is_low_stock(&self) -> bool {
        self.reorder_point.is_some_and(|point| self.quantity_available() <= point)
    }

    /// Deleting is refused while anything is reserved (the adapter repeats this in its `WHERE`).
    pub fn ensure_deletable(&self) -> Result<(), WarehouseError> {
        if self.quantity_reserved > 0 {
            Err(WarehouseError::StockReserved)
        } else {
            Ok(())
        }
    }

    pub(crate) fn with_quantities(&self, q: Quantities, now: OffsetDateTime) -> Self {
        Self(InventoryRecord {
            quantity_on_hand: q.on_hand,
            quantity_reserved: q.reserved,
            quantity_committed: q.committed,
            updated_at: now,
            // Saved by one UPDATE, which the database's trigger counts the same way (changes that
            // follow one another in one transaction are saved by one UPDATE too: one version for all).
            version: self.version + 1,
            ..self.0.clone()
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::movement::{MovementType, ReferenceType};

    pub(crate) fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_780_000_000 + seconds).expect("valid time")
    }

    pub(crate) fn stamp() -> Stamp {
        Stamp { at: at(100), by: Some(Uuid::from_u128(99)) }
    }

    /// A record with the given quantities, as if read from storage.
    pub(crate) fn stock(on_hand: i64, reserved: i64, committed: i64) -> Inventory {
        Inventory::restore(InventoryRecord {
            version: 1,
            id: Uuid::from_u128(1),
            product_id: Uuid::from_u128(2),
            location_id: Uuid::from_u128(3),
            quantity_on_hand: on_hand,
            quantity_reserved: reserved,
            quantity_committed: committed,
            reorder_point: None,
            min_stock: None,
            max_stock: None,
            created_at: at(0),
            updated_at: at(0),
        })
    }

    fn new_inventory(quantity_on_hand: Option<i64>) -> NewInventory {
        NewInventory {
            product_id: Uuid::from_u128(2),
            location_id: Uuid::from_u128(3),
            quantity_on_hand,
            thresholds: Thresholds { reorder_point: Some(5), min_stock: Some(1), max_stock: Some(100) },
        }
    }

    #[test]
    fn create_without_stock_records_no_movement() {
        for initial in [None, Some(0)] {
            let (inventory, movement) = Inventory::create(new_inventory(initial), stamp()).expect("valid");
            assert_eq!(inventory.quantities(), Quantities::default());
            assert_eq!(
                (inventory.reorder_point, inventory.min_stock, inventory.max_stock),
                (Some(5), Some(1), Some(100))
            );
            assert_eq!(inventory.created_at, at(100));
            assert!(movement.is_none());
        }
    }

    #[test]
    fn create_with_stock_records_a_receipt() {
        let (inventory, movement) = Inventory::create(new_inventory(Some(12)), stamp()).expect("valid");
        assert_eq!(inventory.quantity_on_hand, 12);
        let movement = movement.expect("a receipt");
        assert_eq!(movement.movement_type, MovementType::Receipt);
        assert_eq!(movement.inventory_id, inventory.id);
        assert_eq!((movement.quantity, movement.quantity_before, movement.quantity_after), (12, 0, 12));
        assert_eq!(movement.reference_type, ReferenceType::Manual);
        assert_eq!(movement.reason.as_deref(), Some("initial stock"));
    }

    #[test]
    fn create_rejects_bad_input() {
        assert_eq!(Inventory::create(new_inventory(Some(-1)), stamp()), Err(WarehouseError::InvalidQuantity));
        let mut bad = new_inventory(None);
        bad.thresholds.min_stock = Some(200);
        assert_eq!(Inventory::create(bad, stamp()).map_err(|e| e.field()), Err(Some("min_stock")));
    }

    #[test]
    fn thresholds_low_stock_and_delete() {
        let inventory = stock(10, 4, 0);
        assert!(!inventory.is_low_stock(), "no reorder point");
        let t = inventory
            .set_thresholds(Thresholds { reorder_point: Some(6), min_stock: None, max_stock: None }, at(5))
            .expect("valid");
        assert_eq!((t.quantities(), t.updated_at), (inventory.quantities(), at(5)));
        assert!(t.is_low_stock(), "available 6 ≤ 6");
        let t = t.set_thresholds(Thresholds { reorder_point: Some(5), ..Thresholds::default() }, at(6)).expect("ok");
        assert!(!t.is_low_stock());
        assert!(inventory.set_thresholds(Thresholds { max_stock: Some(-2), ..Thresholds::default() }, at(5)).is_err());
        assert_eq!(inventory.ensure_deletable(), Err(WarehouseError::StockReserved));
        assert_eq!(stock(10, 0, 3).ensure_deletable(), Ok(()));
    }

    #[test]
    fn wire_shape_includes_available() {
        let json = serde_json::to_value(stock(10, 4, 2)).expect("serializes");
        assert_eq!(json["quantity_on_hand"], 10);
        assert_eq!(json["quantity_reserved"], 4);
        assert_eq!(json["quantity_available"], 6);
        assert_eq!(json["quantity_committed"], 2);
        assert!(json["reorder_point"].is_null());
        assert!(json["created_at"].as_str().expect("string").ends_with('Z'));
    }
}
