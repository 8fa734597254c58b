//! Reorder suggestions, and draft purchase orders made from them, one per supplier.
//!
//! The suggestions are [`crate::alerts::suggest`] over the port's candidates; the drafts are
//! [`crate::alerts::purchase_plan`] over the suggestions. Where the contract leaves it open (docs/purchasing-and-transfers.md): a drafted line
//! costs 0 (the supplier's price is not known here; edit the draft before submitting it), a
//! purchase order is in its supplier's currency or else the reporting currency and expected after
//! the supplier's lead time (none without one), and besides a
//! product without a supplier ([`NO_SUPPLIER`](crate::alerts::NO_SUPPLIER)) a product whose supplier is gone or inactive
//! ([`SUPPLIER_NOT_ACTIVE`]) or that is discontinued ([`PRODUCT_NOT_ORDERABLE`]) is skipped too.

use serde::Serialize;
use uuid::Uuid;

use super::purchasing::{PurchasingService, PURCHASE_ORDER};
use super::{missing, refused};
use crate::alerts::{purchase_plan, suggest, ReorderSuggestion, SkippedSuggestion, SuggestedPurchase};
use crate::operations::Stamp;
use crate::purchasing::{NewPurchaseOrder, NewPurchaseOrderLine, PurchaseOrder, PurchaseOrderDraft, SuggestionFilter};
use crate::repository::RepoError;
use crate::Product;

/// Why a product was skipped: its preferred supplier is deleted or inactive.
pub const SUPPLIER_NOT_ACTIVE: &str = "the product's supplier is not active";
/// Why a product was skipped: it is discontinued (or gone).
pub const PRODUCT_NOT_ORDERABLE: &str = "the product is not orderable";

/// `POST /purchase-orders/from-suggestions`: `{purchase_orders: [...], skipped: [{product_id, reason}]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DraftedPurchases {
    /// The draft purchase orders made, one per supplier, by supplier id.
    pub purchase_orders: Vec<PurchaseOrder>,
    /// The suggestions no purchase order was made for.
    pub skipped: Vec<SkippedSuggestion>,
}

impl PurchasingService {
    /// `GET /reorder-suggestions`: every low record matching `filter` that needs ordering, by SKU then
    /// location, with `suggested_quantity > 0`.
    #[tracing::instrument(skip_all, fields(location_id = ?filter.location_id, supplier_id = ?filter.supplier_id))]
    pub async fn reorder_suggestions(&self, filter: SuggestionFilter) -> Result<Vec<ReorderSuggestion>, RepoError> {
        let candidates = self.reorder.candidates(&filter).await?;
        Ok(candidates.iter().filter_map(suggest).collect())
    }

    /// Drafts one purchase order per supplier from the suggestions at `location_id` (of
    /// `supplier_id`'s products only, when given), by user `by`, all in one transaction. The location
    /// must be live and active (`NOT_FOUND`, `VALIDATION_ERROR` on `location_id`) and a named supplier
    /// live (`NOT_FOUND`). Nothing to suggest makes no purchase order.
    #[tracing::instrument(skip_all, fields(location_id = %location_id, supplier_id = ?supplier_id))]
    pub async fn draft_from_suggestions(
        &self,
        location_id: Uuid,
        supplier_id: Option<Uuid>,
        by: Uuid,
    ) -> Result<DraftedPurchases, RepoError> {
        self.active_location(location_id).await?;
        if let Some(id) = supplier_id {
            self.suppliers.get(id).await.map_err(missing("supplier"))?;
        }
        let suggestions =
            self.reorder_suggestions(SuggestionFilter { location_id: Some(location_id), supplier_id }).await?;
        let (purchases, mut skipped) = purchase_plan(&suggestions);
        let ids: Vec<Uuid> = suggestions.iter().map(|s| s.product_id).collect();
        let products = self.products.get_many(&ids).await?;
        let stamp = Stamp { at: self.clock.now(), by: Some(by) };
        let mut drafts = Vec::with_capacity(purchases.len());
        for purchase in purchases {
            if let Some(draft) = self.draft(purchase, &products, stamp, &mut skipped).await? {
                drafts.push(draft);
            }
        }
        let purchase_orders = if drafts.is_empty() {
            Vec::new()
        } else {
            self.purchase_orders.create_all(drafts).await.map_err(missing(PURCHASE_ORDER))?
        };
        Ok(DraftedPurchases { purchase_orders, skipped })
    }

    /// The draft of one planned purchase, its unorderable lines added to `skipped`; `None` when no
    /// line is left.
    async fn draft(
        &self,
        purchase: SuggestedPurchase,
        products: &[Product],
        stamp: Stamp,
        skipped: &mut Vec<SkippedSuggestion>,
    ) -> Result<Option<PurchaseOrderDraft>, RepoError> {
        let supplier = match self.active_supplier(purchase.supplier_id).await {
            Ok(supplier) => supplier,
            Err(RepoError::Refused(_)) => {
                let skip = |l: &crate::alerts::SuggestedLine| SkippedSuggestion {
                    product_id: l.product_id,
                    reason: SUPPLIER_NOT_ACTIVE,
                };
                skipped.extend(purchase.lines.iter().map(skip));
                return Ok(None);
            }
            Err(storage) => return Err(storage),
        };
        let mut lines = Vec::with_capacity(purchase.lines.len());
        for line in &purchase.lines {
            match products.iter().find(|p| p.id == line.product_id && p.is_orderable()) {
                Some(product) => lines.push(NewPurchaseOrderLine {
                    product_id: line.product_id,
                    quantity: line.quantity,
                    unit_cost: 0,
                    sku: Some(product.sku.clone()),
                    description: Some(product.name.clone()),
                }),
                None => skipped.push(SkippedSuggestion { product_id: line.product_id, reason: PRODUCT_NOT_ORDERABLE }),
            }
        }
        if lines.is_empty() {
            return Ok(None);
        }
        let input = NewPurchaseOrder {
            supplier_id: supplier.id,
            location_id: purchase.location_id,
            currency: supplier.currency.unwrap_or(self.reporting_currency),
            expected_at: supplier.lead_time_days.map(|days| stamp.at + time::Duration::days(i64::from(days))),
            notes: None,
            lines,
        };
        PurchaseOrderDraft::new(input, stamp).map(Some).map_err(refused)
    }
}
