//! Wire shapes of warehouse resources (docs/orders-and-warehouse.md).

use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;
use warehouse_domain::{Availability, Inventory, Location, Product, StockMovement, Utilization, WithIncoming};

use crate::http::conditional::{EntityTag, Versioned};

#[derive(Debug, Serialize, ToSchema)]
pub struct ProductView {
    pub id: Uuid,
    /// Unique case-insensitively, 1..=64 characters.
    pub sku: String,
    pub name: String,
    pub description: Option<String>,
    pub category: Option<String>,
    pub brand: Option<String>,
    pub weight_grams: Option<i64>,
    pub length_mm: Option<i64>,
    pub width_mm: Option<i64>,
    pub height_mm: Option<i64>,
    /// Cents of `currency`.
    pub price: Option<i64>,
    pub currency: Option<String>,
    /// active or discontinued.
    pub status: &'static str,
    /// The preferred supplier.
    pub supplier_id: Option<Uuid>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<Product> for ProductView {
    fn from(p: Product) -> Self {
        let p = p.into_record();
        Self {
            id: p.id,
            sku: p.sku,
            name: p.name,
            description: p.description,
            category: p.category,
            brand: p.brand,
            weight_grams: p.weight_grams,
            length_mm: p.length_mm,
            width_mm: p.width_mm,
            height_mm: p.height_mm,
            price: p.price,
            currency: p.currency.map(|c| c.as_str().to_owned()),
            status: p.status.as_str(),
            supplier_id: p.supplier_id,
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct InventoryView {
    pub id: Uuid,
    pub product_id: Uuid,
    pub location_id: Uuid,
    pub quantity_on_hand: i64,
    pub quantity_reserved: i64,
    /// On hand − reserved.
    pub quantity_available: i64,
    pub quantity_committed: i64,
    pub reorder_point: Option<i64>,
    pub min_stock: Option<i64>,
    pub max_stock: Option<i64>,
    /// What open purchase orders still expect here and transfers in transit bring here.
    pub quantity_incoming: i64,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
    /// The row's version, for the tag.
    #[serde(skip)]
    pub version: i64,
}

impl InventoryView {
    /// The view with the record's incoming stock (read beside it: `super::inventory::with_incoming`,
    /// or answered by the write: `warehouse_domain::WithIncoming`).
    pub fn with_incoming(self, quantity_incoming: i64) -> Self {
        Self { quantity_incoming, ..self }
    }
}

impl From<&WithIncoming<Inventory>> for InventoryView {
    fn from(record: &WithIncoming<Inventory>) -> Self {
        Self::from(&record.value).with_incoming(record.incoming)
    }
}

/// The record's tag covers its incoming stock too, which other documents change without touching
/// the row: a client holding an older figure is answered anew, never 304.
impl Versioned for InventoryView {
    fn entity_tag(&self) -> EntityTag {
        EntityTag::derived(self.id, self.version, &format!("in{}", self.quantity_incoming))
    }
}

impl From<&Inventory> for InventoryView {
    fn from(i: &Inventory) -> Self {
        Self {
            id: i.id,
            product_id: i.product_id,
            location_id: i.location_id,
            quantity_on_hand: i.quantity_on_hand,
            quantity_reserved: i.quantity_reserved,
            quantity_available: i.quantity_available(),
            quantity_committed: i.quantity_committed,
            reorder_point: i.reorder_point,
            min_stock: i.min_stock,
            max_stock: i.max_stock,
            quantity_incoming: 0,
            created_at: i.created_at,
            updated_at: i.updated_at,
            version: i.version,
        }
    }
}

impl From<Inventory> for InventoryView {
    fn from(i: Inventory) -> Self {
        Self::from(&i)
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MovementView {
    pub id: Uuid,
    pub inventory_id: Uuid,
    pub product_id: Uuid,
    pub location_id: Uuid,
    /// Receipt, Reservation, ReservationRelease, Commit, Adjustment, Transfer, Damage or Return.
    #[serde(rename = "type")]
    pub movement_type: &'static str,
    /// Always > 0; the direction shows in the before/after pairs.
    pub quantity: i64,
    /// On hand before.
    pub quantity_before: i64,
    /// On hand after.
    pub quantity_after: i64,
    pub reserved_before: i64,
    pub reserved_after: i64,
    /// Cents of `currency`.
    pub unit_cost: Option<i64>,
    pub total_cost: Option<i64>,
    pub currency: Option<String>,
    /// order, purchase_order, transfer or manual.
    pub reference_type: &'static str,
    pub reference_id: Option<Uuid>,
    pub reason: Option<String>,
    pub created_by: Option<Uuid>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

impl From<&StockMovement> for MovementView {
    fn from(m: &StockMovement) -> Self {
        Self {
            id: m.id,
            inventory_id: m.inventory_id,
            product_id: m.product_id,
            location_id: m.location_id,
            movement_type: m.movement_type.as_str(),
            quantity: m.quantity,
            quantity_before: m.quantity_before,
            quantity_after: m.quantity_after,
            reserved_before: m.reserved_before,
            reserved_after: m.reserved_after,
            unit_cost: m.unit_cost,
            total_cost: m.total_cost,
            currency: m.currency.map(|c| c.as_str().to_owned()),
            reference_type: m.reference_type.as_str(),
            reference_id: m.reference_id,
            reason: m.reason.clone(),
            created_by: m.created_by,
            created_at: m.created_at,
        }
    }
}

impl From<StockMovement> for MovementView {
    fn from(m: StockMovement) -> Self {
        Self::from(&m)
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AddressView {
    pub street: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LocationView {
    pub id: Uuid,
    pub code: String,
    pub name: String,
    /// Warehouse, Retail, Dropship or Virtual.
    #[serde(rename = "type")]
    pub location_type: &'static str,
    pub address: AddressView,
    /// ISO 3166-1 alpha-2.
    pub country: String,
    pub capacity: Option<i64>,
    pub is_active: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<Location> for LocationView {
    fn from(l: Location) -> Self {
        let l = l.into_record();
        Self {
            id: l.id,
            code: l.code,
            name: l.name,
            location_type: l.location_type.as_str(),
            address: AddressView {
                street: l.address.street,
                city: l.address.city,
                state: l.address.state,
                postal_code: l.address.postal_code,
                country: l.address.country.map(|c| c.as_str().to_owned()),
            },
            country: l.country.as_str().to_owned(),
            capacity: l.capacity,
            is_active: l.is_active,
            created_at: l.created_at,
            updated_at: l.updated_at,
        }
    }
}

/// `GET /products/:id/availability`: sums over the product's records.
#[derive(Debug, Serialize, ToSchema)]
pub struct AvailabilityView {
    pub product_id: Uuid,
    pub quantity_on_hand: i64,
    pub quantity_reserved: i64,
    pub quantity_available: i64,
    pub quantity_committed: i64,
    /// What open purchase orders still expect and transfers in transit bring, at any location.
    pub quantity_incoming: i64,
}

impl From<Availability> for AvailabilityView {
    fn from(a: Availability) -> Self {
        Self {
            product_id: a.product_id,
            quantity_on_hand: a.quantity_on_hand,
            quantity_reserved: a.quantity_reserved,
            quantity_available: a.quantity_available,
            quantity_committed: a.quantity_committed,
            quantity_incoming: a.quantity_incoming,
        }
    }
}

/// `GET /locations/:id/utilization`.
#[derive(Debug, Serialize, ToSchema)]
pub struct UtilizationView {
    pub location_id: Uuid,
    pub capacity: Option<i64>,
    pub quantity_on_hand: i64,
    /// On hand / capacity × 100, two decimals; null without a positive capacity.
    pub utilization_percent: Option<f64>,
}

impl From<Utilization> for UtilizationView {
    fn from(u: Utilization) -> Self {
        Self {
            location_id: u.location_id,
            capacity: u.capacity,
            quantity_on_hand: u.quantity_on_hand,
            utilization_percent: u.utilization_percent,
        }
    }
}

/// The answer of a quantity operation: the record after it and the movement it wrote.
#[derive(Debug, Serialize, ToSchema)]
pub struct StockChangeView {
    pub inventory: InventoryView,
    pub movement: MovementView,
}

/// The answer of a transfer: both records after it and the movement written at each end.
#[derive(Debug, Serialize, ToSchema)]
pub struct TransferView {
    pub from: InventoryView,
    pub to: InventoryView,
    pub movements: Vec<MovementView>,
}
