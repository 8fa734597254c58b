//! Purchase orders: create, add/change/remove a line, submit, receive, cancel, close;
//! the reorder suggestions and the drafts made from them are in [`super::reorder`].
//!
//! Every move loads the purchase order, lets [`PurchaseOrder`] decide and saves the
//! [`crate::PurchaseOrderChange`] through [`PurchaseOrderRepository::save`], conditional on the
//! version and status read; a lost race is decided again on a fresh read, so of two receipts racing
//! for the last units the loser gets `OVER_RECEIPT` and receives nothing. A receipt's stock, its
//! `Receipt` movements (cost and reference `purchase_order`/id) and its stock alerts are written by
//! the port in the transaction of the purchase order's change.

use std::sync::Arc;

use shared_kernel::application::{settle_edit, until_settled, Clock};
use shared_kernel::CurrencyCode;
use time::OffsetDateTime;
use uuid::Uuid;

use super::{missing, refused, saved};
use crate::error::WarehouseError;
use crate::operations::Stamp;
use crate::purchasing::{
    NewPurchaseOrder, NewPurchaseOrderLine, PurchaseLineUpdate, PurchaseOrder, PurchaseOrderChange, PurchaseOrderDraft,
    PurchaseOrderRepository, ReceiveInput, ReorderRepository, SupplierRepository,
};
use crate::repository::{LocationRepository, ProductRepository, RepoError};

pub(crate) const PURCHASE_ORDER: &str = "purchase order";

/// A line as the client sends it: the product's SKU and name are copied onto it by the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PurchaseLineRequest {
    /// A live, active product.
    pub product_id: Uuid,
    /// Units to order, > 0.
    pub quantity: i64,
    /// Cents of the purchase order's currency per unit, ≥ 0.
    pub unit_cost: i64,
}

/// `POST /purchase-orders`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurchaseOrderRequest {
    /// A live, active supplier.
    pub supplier_id: Uuid,
    /// A live, active location, where every receipt lands.
    pub location_id: Uuid,
    /// The currency of every unit cost (an active code, checked by the caller).
    pub currency: CurrencyCode,
    /// When delivery is expected.
    pub expected_at: Option<OffsetDateTime>,
    /// Free text for people.
    pub notes: Option<String>,
    /// Lines to start with (possibly none).
    pub lines: Vec<PurchaseLineRequest>,
}

/// The purchase order use cases.
#[derive(Clone)]
pub struct PurchasingService {
    pub(super) products: Arc<dyn ProductRepository>,
    pub(super) locations: Arc<dyn LocationRepository>,
    pub(super) suppliers: Arc<dyn SupplierRepository>,
    pub(super) purchase_orders: Arc<dyn PurchaseOrderRepository>,
    pub(super) reorder: Arc<dyn ReorderRepository>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) reporting_currency: CurrencyCode,
}

impl PurchasingService {
    /// The service over its ports and clock; purchase orders drafted from suggestions for a supplier
    /// without a currency are in `reporting_currency`.
    pub fn new(
        products: Arc<dyn ProductRepository>,
        locations: Arc<dyn LocationRepository>,
        suppliers: Arc<dyn SupplierRepository>,
        purchase_orders: Arc<dyn PurchaseOrderRepository>,
        reorder: Arc<dyn ReorderRepository>,
        clock: Arc<dyn Clock>,
        reporting_currency: CurrencyCode,
    ) -> Self {
        Self { products, locations, suppliers, purchase_orders, reorder, clock, reporting_currency }
    }

    /// The purchase order; `NOT_FOUND` ("purchase order not found") otherwise.
    #[tracing::instrument(skip_all, fields(purchase_order_id = %id))]
    pub async fn get(&self, id: Uuid) -> Result<PurchaseOrder, RepoError> {
        self.purchase_orders.get(id).await.map_err(missing(PURCHASE_ORDER))
    }

    /// A new `draft` purchase order by user `by`, numbered by the port. Checked in this order: the
    /// input (`INVALID_QUANTITY`, `VALIDATION_ERROR` on `unit_cost`, `notes`), the supplier
    /// (`NOT_FOUND`; inactive: `VALIDATION_ERROR` on `supplier_id`), the location (`NOT_FOUND`;
    /// inactive: `VALIDATION_ERROR` on `location_id`), every line's product (`NOT_FOUND`;
    /// discontinued: `VALIDATION_ERROR` on `product_id`). Each line keeps its product's SKU and name.
    #[tracing::instrument(skip_all, fields(supplier_id = %request.supplier_id, location_id = %request.location_id))]
    pub async fn create(&self, request: PurchaseOrderRequest, by: Uuid) -> Result<PurchaseOrder, RepoError> {
        let stamp = Stamp { at: self.clock.now(), by: Some(by) };
        let input = |lines| NewPurchaseOrder {
            supplier_id: request.supplier_id,
            location_id: request.location_id,
            currency: request.currency,
            expected_at: request.expected_at,
            notes: request.notes.clone(),
            lines,
        };
        let bare = request.lines.iter().map(|l| bare_line(*l)).collect();
        PurchaseOrderDraft::new(input(bare), stamp).map_err(refused)?;
        self.active_supplier(request.supplier_id).await?;
        self.active_location(request.location_id).await?;
        let lines = self.orderable_lines(&request.lines).await?;
        let draft = PurchaseOrderDraft::new(input(lines), stamp).map_err(refused)?;
        self.purchase_orders.create(draft).await.map_err(missing(PURCHASE_ORDER))
    }

    /// Adds a line in `draft`: the purchase order (`NOT_FOUND`), the product (`NOT_FOUND`;
    /// discontinued: `VALIDATION_ERROR` on `product_id`), then the purchase order's rules
    /// (`INVALID_QUANTITY`, `VALIDATION_ERROR`, `PO_NOT_EDITABLE`).
    #[tracing::instrument(skip_all, fields(purchase_order_id = %id, product_id = %line.product_id))]
    pub async fn add_line(&self, id: Uuid, line: PurchaseLineRequest) -> Result<PurchaseOrder, RepoError> {
        let po = self.get(id).await?;
        let line = &self.orderable_lines(&[line]).await?[0];
        settle_edit(po, || self.get(id), |po| self.save(po, |po, now| po.add_line(line.clone(), now), None)).await
    }

    /// Changes a line's quantity and/or unit cost in `draft` (`PO_NOT_EDITABLE` otherwise; a line it
    /// does not have: `NOT_FOUND`).
    #[tracing::instrument(skip_all, fields(purchase_order_id = %id, line_id = %line_id))]
    pub async fn change_line(
        &self,
        id: Uuid,
        line_id: Uuid,
        update: PurchaseLineUpdate,
    ) -> Result<PurchaseOrder, RepoError> {
        self.decide(id, |po, now| po.change_line(line_id, update, now), None).await
    }

    /// Removes a line in `draft` (`PO_NOT_EDITABLE` otherwise; a line it does not have: `NOT_FOUND`).
    #[tracing::instrument(skip_all, fields(purchase_order_id = %id, line_id = %line_id))]
    pub async fn remove_line(&self, id: Uuid, line_id: Uuid) -> Result<PurchaseOrder, RepoError> {
        self.decide(id, |po, now| po.remove_line(line_id, now), None).await
    }

    /// `draft → ordered`: `PO_EMPTY` without lines, `INVALID_STATUS_TRANSITION` from another status.
    #[tracing::instrument(skip_all, fields(purchase_order_id = %id))]
    pub async fn submit(&self, id: Uuid) -> Result<PurchaseOrder, RepoError> {
        self.decide(id, PurchaseOrder::submit, None).await
    }

    /// Receives stock by user `by`, all of the receipt or nothing, in the order of
    /// [`PurchaseOrder::receive`]'s checks (input, status, lines, `OVER_RECEIPT`); each line one
    /// `Receipt` movement at the purchase order's location, written with the change.
    #[tracing::instrument(skip_all, fields(purchase_order_id = %id, lines = input.lines.len()))]
    pub async fn receive(&self, id: Uuid, input: ReceiveInput, by: Uuid) -> Result<PurchaseOrder, RepoError> {
        let input = &input;
        self.decide(id, |po, now| po.receive(input.clone(), now), Some(by)).await
    }

    /// `draft`, or `ordered` with nothing received, `→ cancelled`; `INVALID_STATUS_TRANSITION`
    /// otherwise.
    #[tracing::instrument(skip_all, fields(purchase_order_id = %id))]
    pub async fn cancel(&self, id: Uuid) -> Result<PurchaseOrder, RepoError> {
        self.decide(id, PurchaseOrder::cancel, None).await
    }

    /// `partially_received → closed` (short); `INVALID_STATUS_TRANSITION` otherwise.
    #[tracing::instrument(skip_all, fields(purchase_order_id = %id))]
    pub async fn close(&self, id: Uuid) -> Result<PurchaseOrder, RepoError> {
        self.decide(id, PurchaseOrder::close, None).await
    }

    /// Loads, decides with `operation` and saves, until the save was not stale.
    async fn decide<F>(&self, id: Uuid, operation: F, by: Option<Uuid>) -> Result<PurchaseOrder, RepoError>
    where
        F: Fn(&PurchaseOrder, OffsetDateTime) -> Result<PurchaseOrderChange, WarehouseError>,
    {
        let operation = &operation;
        until_settled(|| async move { self.save(self.get(id).await?, operation, by).await }).await
    }

    /// One attempt: decide on `po` and save conditionally (`Stale` decided again by the caller).
    async fn save<F>(
        &self,
        po: PurchaseOrder,
        operation: F,
        by: Option<Uuid>,
    ) -> Result<shared_kernel::application::Attempt<PurchaseOrder>, RepoError>
    where
        F: Fn(&PurchaseOrder, OffsetDateTime) -> Result<PurchaseOrderChange, WarehouseError>,
    {
        let change = operation(&po, self.clock.now()).map_err(refused)?;
        let result = self.purchase_orders.save(&change, by).await;
        saved(result, change.purchase_order, PURCHASE_ORDER)
    }

    /// The live, active supplier.
    pub(super) async fn active_supplier(&self, id: Uuid) -> Result<crate::Supplier, RepoError> {
        let supplier = self.suppliers.get(id).await.map_err(missing("supplier"))?;
        if !supplier.is_active {
            return Err(refused(WarehouseError::Validation {
                field: "supplier_id",
                message: "is not an active supplier",
            }));
        }
        Ok(supplier)
    }

    /// The live, active location.
    pub(super) async fn active_location(&self, id: Uuid) -> Result<(), RepoError> {
        let location = self.locations.get(id).await.map_err(missing("location"))?;
        if !location.is_active {
            return Err(refused(WarehouseError::Validation {
                field: "location_id",
                message: "is not an active location",
            }));
        }
        Ok(())
    }

    /// The lines with their products' SKU and name: every product live (`NOT_FOUND`) and orderable.
    async fn orderable_lines(&self, lines: &[PurchaseLineRequest]) -> Result<Vec<NewPurchaseOrderLine>, RepoError> {
        let ids: Vec<Uuid> = lines.iter().map(|l| l.product_id).collect();
        let products = self.products.get_many(&ids).await?;
        lines
            .iter()
            .map(|line| {
                let product = products
                    .iter()
                    .find(|p| p.id == line.product_id)
                    .ok_or(refused(WarehouseError::NotFound { entity: "product" }))?;
                if !product.is_orderable() {
                    return Err(refused(WarehouseError::Validation {
                        field: "product_id",
                        message: "is discontinued",
                    }));
                }
                Ok(NewPurchaseOrderLine {
                    sku: Some(product.sku.clone()),
                    description: Some(product.name.clone()),
                    ..bare_line(*line)
                })
            })
            .collect()
    }
}

/// The line without its product's snapshot (enough to check the input's rules).
fn bare_line(line: PurchaseLineRequest) -> NewPurchaseOrderLine {
    NewPurchaseOrderLine {
        product_id: line.product_id,
        quantity: line.quantity,
        unit_cost: line.unit_cost,
        sku: None,
        description: None,
    }
}
