//! Row structs of the warehouse tables and their conversion to the domain records.

use diesel::prelude::*;
use shared_kernel::CurrencyCode;
use time::OffsetDateTime;
use uuid::Uuid;
use warehouse_domain::{
    Address, CountryCode, Inventory, InventoryRecord, Location, LocationRecord, LocationType, MovementType, Product,
    ProductRecord, ProductStatus, ReferenceType, RepoError, StockMovement, StockMovementRecord,
};

use super::errors::corrupt;
use super::schema::{inventory, locations, products, stock_movements};

fn currency(text: Option<String>) -> Result<Option<CurrencyCode>, RepoError> {
    text.map(|c| CurrencyCode::parse(&c).map_err(|_| corrupt("currency", &c))).transpose()
}

/// Every column but `deleted_at`; also the insert and `PUT` shape.
#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = products, treat_none_as_null = true)]
pub(crate) struct ProductRow {
    pub id: Uuid,
    pub sku: String,
    pub name: String,
    pub description: Option<String>,
    pub category: Option<String>,
    pub brand: Option<String>,
    pub weight_grams: Option<i64>,
    pub length_mm: Option<i64>,
    pub width_mm: Option<i64>,
    pub height_mm: Option<i64>,
    pub price: Option<i64>,
    pub currency: Option<String>,
    pub status: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub version: i64,
    pub supplier_id: Option<Uuid>,
}

impl ProductRow {
    pub fn of(p: &ProductRecord) -> Self {
        Self {
            version: p.version,
            id: p.id,
            sku: p.sku.clone(),
            name: p.name.clone(),
            description: p.description.clone(),
            category: p.category.clone(),
            brand: p.brand.clone(),
            weight_grams: p.weight_grams,
            length_mm: p.length_mm,
            width_mm: p.width_mm,
            height_mm: p.height_mm,
            price: p.price,
            currency: p.currency.map(|c| c.as_str().to_owned()),
            status: p.status.as_str().to_owned(),
            supplier_id: p.supplier_id,
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }

    pub fn into_product(self) -> Result<Product, RepoError> {
        let status = ProductStatus::parse(&self.status).map_err(|_| corrupt("product status", &self.status))?;
        Ok(Product::restore(ProductRecord {
            version: self.version,
            id: self.id,
            sku: self.sku,
            name: self.name,
            description: self.description,
            category: self.category,
            brand: self.brand,
            weight_grams: self.weight_grams,
            length_mm: self.length_mm,
            width_mm: self.width_mm,
            height_mm: self.height_mm,
            price: self.price,
            currency: currency(self.currency)?,
            status,
            supplier_id: self.supplier_id,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }))
    }
}

/// Every column but `deleted_at`; the address is flattened into its columns.
#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = locations, treat_none_as_null = true)]
pub(crate) struct LocationRow {
    pub id: Uuid,
    pub code: String,
    pub name: String,
    pub location_type: String,
    pub street: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: String,
    pub capacity: Option<i64>,
    pub is_active: bool,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub version: i64,
}

impl LocationRow {
    pub fn of(l: &LocationRecord) -> Self {
        Self {
            version: l.version,
            id: l.id,
            code: l.code.clone(),
            name: l.name.clone(),
            location_type: l.location_type.as_str().to_owned(),
            street: l.address.street.clone(),
            city: l.address.city.clone(),
            state: l.address.state.clone(),
            postal_code: l.address.postal_code.clone(),
            country: l.country.as_str().to_owned(),
            capacity: l.capacity,
            is_active: l.is_active,
            created_at: l.created_at,
            updated_at: l.updated_at,
        }
    }

    pub fn into_location(self) -> Result<Location, RepoError> {
        let location_type =
            LocationType::parse(&self.location_type).map_err(|_| corrupt("location type", &self.location_type))?;
        let country = CountryCode::parse(&self.country).map_err(|_| corrupt("country", &self.country))?;
        Ok(Location::restore(LocationRecord {
            version: self.version,
            id: self.id,
            code: self.code,
            name: self.name,
            location_type,
            address: Address {
                street: self.street,
                city: self.city,
                state: self.state,
                postal_code: self.postal_code,
                country: Some(country),
            },
            country,
            capacity: self.capacity,
            is_active: self.is_active,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }))
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = inventory)]
pub(crate) struct InventoryRow {
    pub id: Uuid,
    pub product_id: Uuid,
    pub location_id: Uuid,
    pub quantity_on_hand: i64,
    pub quantity_reserved: i64,
    pub quantity_committed: i64,
    pub reorder_point: Option<i64>,
    pub min_stock: Option<i64>,
    pub max_stock: Option<i64>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub version: i64,
}

impl InventoryRow {
    pub fn of(i: &InventoryRecord) -> Self {
        Self {
            version: i.version,
            id: i.id,
            product_id: i.product_id,
            location_id: i.location_id,
            quantity_on_hand: i.quantity_on_hand,
            quantity_reserved: i.quantity_reserved,
            quantity_committed: i.quantity_committed,
            reorder_point: i.reorder_point,
            min_stock: i.min_stock,
            max_stock: i.max_stock,
            created_at: i.created_at,
            updated_at: i.updated_at,
        }
    }

    pub fn into_inventory(self) -> Inventory {
        Inventory::restore(InventoryRecord {
            version: self.version,
            id: self.id,
            product_id: self.product_id,
            location_id: self.location_id,
            quantity_on_hand: self.quantity_on_hand,
            quantity_reserved: self.quantity_reserved,
            quantity_committed: self.quantity_committed,
            reorder_point: self.reorder_point,
            min_stock: self.min_stock,
            max_stock: self.max_stock,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = stock_movements)]
pub(crate) struct MovementRow {
    pub id: Uuid,
    pub inventory_id: Uuid,
    pub product_id: Uuid,
    pub location_id: Uuid,
    pub movement_type: String,
    pub quantity: i64,
    pub quantity_before: i64,
    pub quantity_after: i64,
    pub reserved_before: i64,
    pub reserved_after: i64,
    pub unit_cost: Option<i64>,
    pub total_cost: Option<i64>,
    pub currency: Option<String>,
    pub reference_type: String,
    pub reference_id: Option<Uuid>,
    pub reason: Option<String>,
    pub created_by: Option<Uuid>,
    pub created_at: OffsetDateTime,
}

impl MovementRow {
    pub fn of(m: &StockMovementRecord) -> Self {
        Self {
            id: m.id,
            inventory_id: m.inventory_id,
            product_id: m.product_id,
            location_id: m.location_id,
            movement_type: m.movement_type.as_str().to_owned(),
            quantity: m.quantity,
            quantity_before: m.quantity_before,
            quantity_after: m.quantity_after,
            reserved_before: m.reserved_before,
            reserved_after: m.reserved_after,
            unit_cost: m.unit_cost,
            total_cost: m.total_cost,
            currency: m.currency.map(|c| c.as_str().to_owned()),
            reference_type: m.reference_type.as_str().to_owned(),
            reference_id: m.reference_id,
            reason: m.reason.clone(),
            created_by: m.created_by,
            created_at: m.created_at,
        }
    }

    pub fn into_movement(self) -> Result<StockMovement, RepoError> {
        let movement_type =
            MovementType::parse(&self.movement_type).map_err(|_| corrupt("movement type", &self.movement_type))?;
        let reference_type =
            ReferenceType::parse(&self.reference_type).map_err(|_| corrupt("reference type", &self.reference_type))?;
        Ok(StockMovement::restore(StockMovementRecord {
            id: self.id,
            inventory_id: self.inventory_id,
            product_id: self.product_id,
            location_id: self.location_id,
            movement_type,
            quantity: self.quantity,
            quantity_before: self.quantity_before,
            quantity_after: self.quantity_after,
            reserved_before: self.reserved_before,
            reserved_after: self.reserved_after,
            unit_cost: self.unit_cost,
            total_cost: self.total_cost,
            currency: currency(self.currency)?,
            reference_type,
            reference_id: self.reference_id,
            reason: self.reason,
            created_by: self.created_by,
            created_at: self.created_at,
        }))
    }
}
