//! Wire shapes of suppliers, purchase orders, transfers and reorder suggestions
//! (docs/purchasing-and-transfers.md).

use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;
use warehouse_domain::alerts::{ReorderSuggestion, SkippedSuggestion};
use warehouse_domain::application::DraftedPurchases;
use warehouse_domain::purchasing::{PurchaseOrder, Supplier};
use warehouse_domain::transfers::Transfer;

#[derive(Debug, Serialize, ToSchema)]
pub struct SupplierView {
    pub id: Uuid,
    pub name: String,
    pub email: Option<String>,
    /// E.164.
    pub phone: Option<String>,
    pub currency: Option<String>,
    pub lead_time_days: Option<i32>,
    pub notes: Option<String>,
    pub is_active: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<Supplier> for SupplierView {
    fn from(s: Supplier) -> Self {
        let s = s.into_record();
        Self {
            id: s.id,
            name: s.name,
            email: s.email.map(|e| e.into_string()),
            phone: s.phone,
            currency: s.currency.map(|c| c.as_str().to_owned()),
            lead_time_days: s.lead_time_days,
            notes: s.notes,
            is_active: s.is_active,
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PurchaseOrderLineView {
    pub id: Uuid,
    pub product_id: Uuid,
    /// The product's SKU when the line was added.
    pub sku: Option<String>,
    /// The product's name when the line was added.
    pub description: Option<String>,
    pub quantity_ordered: i64,
    pub quantity_received: i64,
    /// Cents of the purchase order's currency.
    pub unit_cost: i64,
    /// quantity_ordered × unit_cost.
    pub subtotal: i64,
}

fn instant(at: Option<OffsetDateTime>) -> Option<String> {
    at.map(crate::routes::crm::wire::timestamp)
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PurchaseOrderView {
    pub id: Uuid,
    /// `PO-<year>-<6 digits>`.
    pub po_number: String,
    pub supplier_id: Uuid,
    pub location_id: Uuid,
    pub currency: String,
    /// draft, ordered, partially_received, received, cancelled or closed.
    pub status: &'static str,
    pub lines: Vec<PurchaseOrderLineView>,
    /// Σ of the lines' subtotals, in cents.
    pub subtotal: i64,
    #[schema(format = DateTime)]
    pub expected_at: Option<String>,
    pub notes: Option<String>,
    #[schema(format = DateTime)]
    pub submitted_at: Option<String>,
    #[schema(format = DateTime)]
    pub received_at: Option<String>,
    #[schema(format = DateTime)]
    pub cancelled_at: Option<String>,
    #[schema(format = DateTime)]
    pub closed_at: Option<String>,
    pub created_by: Option<Uuid>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<PurchaseOrder> for PurchaseOrderView {
    fn from(po: PurchaseOrder) -> Self {
        let po = po.into_record();
        Self {
            id: po.id,
            po_number: po.po_number.to_string(),
            supplier_id: po.supplier_id,
            location_id: po.location_id,
            currency: po.currency.as_str().to_owned(),
            status: po.status.as_str(),
            lines: po
                .lines
                .iter()
                .map(|l| PurchaseOrderLineView {
                    id: l.id,
                    product_id: l.product_id,
                    sku: l.sku.clone(),
                    description: l.description.clone(),
                    quantity_ordered: l.quantity_ordered,
                    quantity_received: l.quantity_received,
                    unit_cost: l.unit_cost,
                    subtotal: l.subtotal,
                })
                .collect(),
            subtotal: po.subtotal,
            expected_at: instant(po.expected_at),
            notes: po.notes,
            submitted_at: instant(po.submitted_at),
            received_at: instant(po.received_at),
            cancelled_at: instant(po.cancelled_at),
            closed_at: instant(po.closed_at),
            created_by: po.created_by,
            created_at: po.created_at,
            updated_at: po.updated_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TransferLineView {
    pub id: Uuid,
    pub product_id: Uuid,
    pub quantity: i64,
}

/// A transfer between two locations (`POST /transfers`), as a document.
#[derive(Debug, Serialize, ToSchema)]
pub struct TransferDocumentView {
    pub id: Uuid,
    /// `TR-<year>-<6 digits>`.
    pub transfer_number: String,
    pub from_location_id: Uuid,
    pub to_location_id: Uuid,
    /// draft, in_transit, received or cancelled.
    pub status: &'static str,
    pub lines: Vec<TransferLineView>,
    pub notes: Option<String>,
    #[schema(format = DateTime)]
    pub shipped_at: Option<String>,
    #[schema(format = DateTime)]
    pub received_at: Option<String>,
    #[schema(format = DateTime)]
    pub cancelled_at: Option<String>,
    pub created_by: Option<Uuid>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<Transfer> for TransferDocumentView {
    fn from(t: Transfer) -> Self {
        let t = t.into_record();
        Self {
            id: t.id,
            transfer_number: t.transfer_number.to_string(),
            from_location_id: t.from_location_id,
            to_location_id: t.to_location_id,
            status: t.status.as_str(),
            lines: t
                .lines
                .iter()
                .map(|l| TransferLineView { id: l.id, product_id: l.product_id, quantity: l.quantity })
                .collect(),
            notes: t.notes,
            shipped_at: instant(t.shipped_at),
            received_at: instant(t.received_at),
            cancelled_at: instant(t.cancelled_at),
            created_by: t.created_by,
            created_at: t.created_at,
            updated_at: t.updated_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ReorderSuggestionView {
    pub inventory_id: Uuid,
    pub product_id: Uuid,
    pub sku: String,
    pub location_id: Uuid,
    /// The product's preferred supplier.
    pub supplier_id: Option<Uuid>,
    pub quantity_available: i64,
    pub quantity_incoming: i64,
    pub reorder_point: i64,
    pub max_stock: Option<i64>,
    /// max(0, (max_stock, or twice the reorder point) − available − incoming); never 0 here.
    pub suggested_quantity: i64,
}

impl From<ReorderSuggestion> for ReorderSuggestionView {
    fn from(s: ReorderSuggestion) -> Self {
        Self {
            inventory_id: s.inventory_id,
            product_id: s.product_id,
            sku: s.sku,
            location_id: s.location_id,
            supplier_id: s.supplier_id,
            quantity_available: s.quantity_available,
            quantity_incoming: s.quantity_incoming,
            reorder_point: s.reorder_point,
            max_stock: s.max_stock,
            suggested_quantity: s.suggested_quantity,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SkippedSuggestionView {
    pub product_id: Uuid,
    /// Why no purchase order names it (no supplier, supplier not active, product not orderable).
    pub reason: &'static str,
}

impl From<SkippedSuggestion> for SkippedSuggestionView {
    fn from(s: SkippedSuggestion) -> Self {
        Self { product_id: s.product_id, reason: s.reason }
    }
}

/// `POST /purchase-orders/from-suggestions`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DraftedPurchasesView {
    /// One draft per supplier.
    pub purchase_orders: Vec<PurchaseOrderView>,
    pub skipped: Vec<SkippedSuggestionView>,
}

impl From<DraftedPurchases> for DraftedPurchasesView {
    fn from(d: DraftedPurchases) -> Self {
        Self {
            purchase_orders: d.purchase_orders.into_iter().map(PurchaseOrderView::from).collect(),
            skipped: d.skipped.into_iter().map(SkippedSuggestionView::from).collect(),
        }
    }
}
