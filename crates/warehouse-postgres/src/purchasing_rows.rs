//! Row structs of suppliers, purchase orders and transfers, and their conversion to the domain
//! records.

use diesel::prelude::*;
use shared_kernel::{CurrencyCode, Email};
use time::OffsetDateTime;
use uuid::Uuid;
use warehouse_domain::numbers::{PurchaseOrderNumber, TransferNumber};
use warehouse_domain::purchasing::{
    PurchaseOrder, PurchaseOrderLine, PurchaseOrderLineRecord, PurchaseOrderRecord, PurchaseOrderStatus, Supplier,
    SupplierRecord,
};
use warehouse_domain::transfers::{Transfer, TransferLine, TransferRecord, TransferStatus};
use warehouse_domain::RepoError;

use super::errors::corrupt;
use super::schema::{purchase_order_lines, purchase_orders, suppliers, transfer_lines, transfers};

fn currency(text: &str) -> Result<CurrencyCode, RepoError> {
    CurrencyCode::parse(text).map_err(|_| corrupt("currency", text))
}

/// Every column but `deleted_at`; also the insert and update shape.
#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = suppliers, treat_none_as_null = true)]
pub(crate) struct SupplierRow {
    pub id: Uuid,
    pub name: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub currency: Option<String>,
    pub lead_time_days: Option<i32>,
    pub notes: Option<String>,
    pub is_active: bool,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub version: i64,
}

impl SupplierRow {
    pub fn of(s: &SupplierRecord) -> Self {
        Self {
            id: s.id,
            name: s.name.clone(),
            email: s.email.as_ref().map(|e| e.as_str().to_owned()),
            phone: s.phone.clone(),
            currency: s.currency.map(|c| c.as_str().to_owned()),
            lead_time_days: s.lead_time_days,
            notes: s.notes.clone(),
            is_active: s.is_active,
            created_at: s.created_at,
            updated_at: s.updated_at,
            version: s.version,
        }
    }

    pub fn into_supplier(self) -> Result<Supplier, RepoError> {
        let email = self.email.map(|e| Email::parse(&e).map_err(|_| corrupt("supplier email", &e))).transpose()?;
        Ok(Supplier::restore(SupplierRecord {
            id: self.id,
            name: self.name,
            email,
            phone: self.phone,
            currency: self.currency.as_deref().map(currency).transpose()?,
            lead_time_days: self.lead_time_days,
            notes: self.notes,
            is_active: self.is_active,
            created_at: self.created_at,
            updated_at: self.updated_at,
            version: self.version,
        }))
    }
}

/// Every column of a purchase order; the header's insert and update shape.
#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = purchase_orders, treat_none_as_null = true)]
pub(crate) struct PurchaseOrderRow {
    pub id: Uuid,
    pub po_number: String,
    pub supplier_id: Uuid,
    pub location_id: Uuid,
    pub currency: String,
    pub status: String,
    pub subtotal: i64,
    pub expected_at: Option<OffsetDateTime>,
    pub notes: Option<String>,
    pub submitted_at: Option<OffsetDateTime>,
    pub received_at: Option<OffsetDateTime>,
    pub cancelled_at: Option<OffsetDateTime>,
    pub closed_at: Option<OffsetDateTime>,
    pub created_by: Option<Uuid>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub version: i64,
}

impl PurchaseOrderRow {
    pub fn of(p: &PurchaseOrderRecord) -> Self {
        Self {
            id: p.id,
            po_number: p.po_number.to_string(),
            supplier_id: p.supplier_id,
            location_id: p.location_id,
            currency: p.currency.as_str().to_owned(),
            status: p.status.as_str().to_owned(),
            subtotal: p.subtotal,
            expected_at: p.expected_at,
            notes: p.notes.clone(),
            submitted_at: p.submitted_at,
            received_at: p.received_at,
            cancelled_at: p.cancelled_at,
            closed_at: p.closed_at,
            created_by: p.created_by,
            created_at: p.created_at,
            updated_at: p.updated_at,
            version: p.version,
        }
    }

    /// The purchase order with `lines` (its own, in order).
    pub fn into_purchase_order(self, lines: Vec<PurchaseOrderLineRow>) -> Result<PurchaseOrder, RepoError> {
        let po_number = PurchaseOrderNumber::parse(&self.po_number)
            .map_err(|_| corrupt("purchase order number", &self.po_number))?;
        let status =
            PurchaseOrderStatus::parse(&self.status).map_err(|_| corrupt("purchase order status", &self.status))?;
        Ok(PurchaseOrder::restore(PurchaseOrderRecord {
            id: self.id,
            po_number,
            supplier_id: self.supplier_id,
            location_id: self.location_id,
            currency: currency(&self.currency)?,
            status,
            lines: lines.into_iter().map(PurchaseOrderLineRow::into_line).collect(),
            subtotal: self.subtotal,
            expected_at: self.expected_at,
            notes: self.notes,
            submitted_at: self.submitted_at,
            received_at: self.received_at,
            cancelled_at: self.cancelled_at,
            closed_at: self.closed_at,
            created_by: self.created_by,
            created_at: self.created_at,
            updated_at: self.updated_at,
            version: self.version,
        }))
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = purchase_order_lines)]
pub(crate) struct PurchaseOrderLineRow {
    pub id: Uuid,
    pub purchase_order_id: Uuid,
    pub product_id: Uuid,
    pub sku: Option<String>,
    pub description: Option<String>,
    pub quantity_ordered: i64,
    pub quantity_received: i64,
    pub unit_cost: i64,
    pub subtotal: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl PurchaseOrderLineRow {
    pub fn of(l: &PurchaseOrderLineRecord) -> Self {
        Self {
            id: l.id,
            purchase_order_id: l.purchase_order_id,
            product_id: l.product_id,
            sku: l.sku.clone(),
            description: l.description.clone(),
            quantity_ordered: l.quantity_ordered,
            quantity_received: l.quantity_received,
            unit_cost: l.unit_cost,
            subtotal: l.subtotal,
            created_at: l.created_at,
            updated_at: l.updated_at,
        }
    }

    fn into_line(self) -> PurchaseOrderLine {
        PurchaseOrderLine::restore(PurchaseOrderLineRecord {
            id: self.id,
            purchase_order_id: self.purchase_order_id,
            product_id: self.product_id,
            sku: self.sku,
            description: self.description,
            quantity_ordered: self.quantity_ordered,
            quantity_received: self.quantity_received,
            unit_cost: self.unit_cost,
            subtotal: self.subtotal,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

/// Every column of a transfer; the header's insert and update shape.
#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = transfers, treat_none_as_null = true)]
pub(crate) struct TransferRow {
    pub id: Uuid,
    pub transfer_number: String,
    pub from_location_id: Uuid,
    pub to_location_id: Uuid,
    pub status: String,
    pub notes: Option<String>,
    pub shipped_at: Option<OffsetDateTime>,
    pub received_at: Option<OffsetDateTime>,
    pub cancelled_at: Option<OffsetDateTime>,
    pub created_by: Option<Uuid>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub version: i64,
}

impl TransferRow {
    pub fn of(t: &TransferRecord) -> Self {
        Self {
            id: t.id,
            transfer_number: t.transfer_number.to_string(),
            from_location_id: t.from_location_id,
            to_location_id: t.to_location_id,
            status: t.status.as_str().to_owned(),
            notes: t.notes.clone(),
            shipped_at: t.shipped_at,
            received_at: t.received_at,
            cancelled_at: t.cancelled_at,
            created_by: t.created_by,
            created_at: t.created_at,
            updated_at: t.updated_at,
            version: t.version,
        }
    }

    /// The transfer with `lines` (its own, in order).
    pub fn into_transfer(self, lines: Vec<TransferLineRow>) -> Result<Transfer, RepoError> {
        let transfer_number = TransferNumber::parse(&self.transfer_number)
            .map_err(|_| corrupt("transfer number", &self.transfer_number))?;
        let status = TransferStatus::parse(&self.status).map_err(|_| corrupt("transfer status", &self.status))?;
        Ok(Transfer::restore(TransferRecord {
            id: self.id,
            transfer_number,
            from_location_id: self.from_location_id,
            to_location_id: self.to_location_id,
            status,
            lines: lines
                .into_iter()
                .map(|l| TransferLine { id: l.id, product_id: l.product_id, quantity: l.quantity })
                .collect(),
            notes: self.notes,
            shipped_at: self.shipped_at,
            received_at: self.received_at,
            cancelled_at: self.cancelled_at,
            created_by: self.created_by,
            created_at: self.created_at,
            updated_at: self.updated_at,
            version: self.version,
        }))
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = transfer_lines)]
pub(crate) struct TransferLineRow {
    pub id: Uuid,
    pub transfer_id: Uuid,
    pub product_id: Uuid,
    pub quantity: i64,
}
