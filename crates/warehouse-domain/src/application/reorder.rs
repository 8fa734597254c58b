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
use shared_kernel::{Page, PageRequest};
use uuid::Uuid;

use super::purchasing::{PurchasingService, PURCHASE_ORDER};
use super::{missing, refused};
use crate::alerts::{purchase_plan, suggest, ReorderSuggestion, SkippedSuggestion, SuggestedPurchase};
use crate::operations::Stamp;
use crate::purchasing::Supplier;
use crate::purchasing::{NewPurchaseOrder, NewPurchaseOrderLine, PurchaseOrder, PurchaseOrderDraft, SuggestionFilter};
use crate::repository::RepoError;
use crate::Product;
use shared_kernel::CurrencyCode;

/// Why a product was skipped: its preferred supplier is deleted or inactive.
pub const SUPPLIER_NOT_ACTIVE: &str = "the product's supplier is not active";
/// Why a product was skipped: it is discontinued (or gone).
pub const PRODUCT_NOT_ORDERABLE: &str = "the product is not orderable";

/// The most lines a drafted purchase order gets (as many as a purchase order holds); a supplier
/// with more suggestions at the location gets several drafts.
pub const MAX_DRAFTED_LINES: usize = crate::purchasing::order::MAX_PO_LINES;

/// `POST /purchase-orders/from-suggestions`: `{purchase_orders: [...], skipped: [{product_id, reason}]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DraftedPurchases {
    /// The draft purchase orders made, one per supplier, by supplier id.
    pub purchase_orders: Vec<PurchaseOrder>,
    /// The suggestions no purchase order was made for.
    pub skipped: Vec<SkippedSuggestion>,
}

impl PurchasingService {
    /// `GET /reorder-suggestions`: one page of the low records matching `filter` that need ordering
    /// (`suggested_quantity > 0`), by SKU then location.
    #[tracing::instrument(skip_all, fields(location_id = ?filter.location_id, supplier_id = ?filter.supplier_id))]
    pub async fn reorder_suggestions(
        &self,
        filter: SuggestionFilter,
        page: PageRequest,
    ) -> Result<Page<ReorderSuggestion>, RepoError> {
        let candidates = self.reorder.suggestions(&filter, page).await?;
        let Page { items, total, total_exact, page, page_size } = candidates;
        let items = items.iter().filter_map(suggest).collect();
        Ok(Page { items, total, total_exact, page, page_size })
    }

    /// Every suggestion matching `filter` (the drafts are made from all of them).
    async fn all_suggestions(&self, filter: SuggestionFilter) -> Result<Vec<ReorderSuggestion>, RepoError> {
        let candidates = self.reorder.candidates(&filter).await?;
        Ok(candidates.iter().filter_map(suggest).collect())
    }

    /// Drafts one purchase order per supplier (several of at most [`MAX_DRAFTED_LINES`] lines when
    /// it has more suggestions) from the suggestions at `location_id` (of
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
            self.all_suggestions(SuggestionFilter { location_id: Some(location_id), supplier_id }).await?;
        let (purchases, mut skipped) = purchase_plan(&suggestions);
        let ids: Vec<Uuid> = suggestions.iter().map(|s| s.product_id).collect();
        let products = self.products.get_many(&ids).await?;
        // Every supplier in one read, not one per purchase.
        let supplier_ids: Vec<Uuid> =
            purchases.iter().map(|p| p.supplier_id).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        let suppliers = self.suppliers.get_many(&supplier_ids).await?;
        let stamp = Stamp { at: self.clock.now(), by: Some(by) };
        let mut drafts = Vec::with_capacity(purchases.len());
        for purchase in purchases {
            drafts.extend(draft(self.reporting_currency, purchase, &suppliers, &products, stamp, &mut skipped)?);
        }
        let purchase_orders = if drafts.is_empty() {
            Vec::new()
        } else {
            self.purchase_orders.create_all(drafts).await.map_err(missing(PURCHASE_ORDER))?
        };
        Ok(DraftedPurchases { purchase_orders, skipped })
    }
}

/// The drafts of one planned purchase, at most [`MAX_DRAFTED_LINES`] lines each (a longer plan is
/// split over several purchase orders), its unorderable lines added to `skipped`: all of them when
/// the supplier is not among the live `suppliers` or is inactive. None when no line is left.
fn draft(
    reporting_currency: CurrencyCode,
    purchase: SuggestedPurchase,
    suppliers: &[Supplier],
    products: &[Product],
    stamp: Stamp,
    skipped: &mut Vec<SkippedSuggestion>,
) -> Result<Vec<PurchaseOrderDraft>, RepoError> {
    let Some(supplier) = suppliers.iter().find(|s| s.id == purchase.supplier_id && s.is_active) else {
        let skip = |l: &crate::alerts::SuggestedLine| SkippedSuggestion {
            product_id: l.product_id,
            reason: SUPPLIER_NOT_ACTIVE,
        };
        skipped.extend(purchase.lines.iter().map(skip));
        return Ok(Vec::new());
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
    lines
        .chunks(MAX_DRAFTED_LINES)
        .map(|chunk| {
            let input = NewPurchaseOrder {
                supplier_id: supplier.id,
                location_id: purchase.location_id,
                currency: supplier.currency.unwrap_or(reporting_currency),
                expected_at: supplier.lead_time_days.map(|days| stamp.at + time::Duration::days(i64::from(days))),
                notes: None,
                lines: chunk.to_vec(),
            };
            PurchaseOrderDraft::new(input, stamp).map_err(refused)
        })
        .collect()
}
