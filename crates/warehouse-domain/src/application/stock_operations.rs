//! Quantity operations on one record: receive, reserve, release, commit, adjust, damage, return,
//! and transfer between two locations. Each loads the record, lets [`Inventory`] decide, and applies
//! the change as a compare-and-set with its movement; a lost race is decided again on a fresh read.
//! A movement posted by hand is decided in `posting` (`StockOperations::post`).

mod posting;

use std::sync::Arc;

use shared_kernel::application::{until_settled, Attempt, Clock};
use shared_kernel::{CurrencyCode, Money};
use uuid::Uuid;

use super::inventory::INVENTORY;
use super::{active_currency_text, answered, missing, refused};
use crate::error::WarehouseError;
use crate::inventory::{Inventory, NewInventory};
use crate::movement::ReferenceType;
use crate::operations::{InventoryChange, Receipt, Stamp, TransferChange, WithIncoming};
use crate::quantities::Thresholds;
use crate::repository::{Currencies, InventoryRepository, LocationRepository, ProductRepository, RepoError};

pub use posting::MovementRequest;

/// A change of one record, with the record's incoming stock read in the change's transaction.
pub type Stocked = WithIncoming<InventoryChange>;

/// Stock received, as the client sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptRequest {
    /// Units received, > 0.
    pub quantity: i64,
    /// Cost per unit in cents, if known.
    pub unit_cost: Option<i64>,
    /// The cost's currency as sent; with a cost, it must be an active one (`VALIDATION_ERROR` on
    /// `currency`); without it (or blank) the cost is in the product's currency, else in the
    /// reporting currency (docs/conventions.md). Ignored without a cost.
    pub currency: Option<String>,
    /// What caused the receipt (`purchase_order`, …), as sent; `VALIDATION_ERROR` when unknown.
    pub reference_type: Option<String>,
    /// The document that caused it.
    pub reference_id: Option<Uuid>,
    /// Why, in words.
    pub reason: Option<String>,
}

/// The quantity operations.
#[derive(Clone)]
pub struct StockOperations {
    products: Arc<dyn ProductRepository>,
    locations: Arc<dyn LocationRepository>,
    inventory: Arc<dyn InventoryRepository>,
    currencies: Arc<dyn Currencies>,
    clock: Arc<dyn Clock>,
    reporting_currency: CurrencyCode,
}

impl StockOperations {
    /// The service over its ports and clock; costs without a currency of their own or of their
    /// product are in `reporting_currency`.
    pub fn new(
        products: Arc<dyn ProductRepository>,
        locations: Arc<dyn LocationRepository>,
        inventory: Arc<dyn InventoryRepository>,
        currencies: Arc<dyn Currencies>,
        clock: Arc<dyn Clock>,
        reporting_currency: CurrencyCode,
    ) -> Self {
        Self { products, locations, inventory, currencies, clock, reporting_currency }
    }

    fn stamp(&self, by: Uuid) -> Stamp {
        Stamp { at: self.clock.now(), by: Some(by) }
    }

    /// Stock arrives at record `id`: on hand raised, a Receipt. The cost's currency is settled
    /// first (a sent one must be active; else the product's, else the reporting currency), then the
    /// reference type, then the operation.
    #[tracing::instrument(skip_all, fields(inventory_id = %id))]
    pub async fn receive(&self, id: Uuid, request: ReceiptRequest, by: Uuid) -> Result<Stocked, RepoError> {
        let receipt = self.receipt(id, request).await?;
        let stamp = self.stamp(by);
        self.change(id, |record| record.receive(receipt.clone(), stamp)).await
    }

    /// Reserves `quantity` for `order_id` by hand; `INSUFFICIENT_STOCK` when available is short.
    #[tracing::instrument(skip_all, fields(inventory_id = %id, order_id = %order_id))]
    pub async fn reserve(&self, id: Uuid, quantity: i64, order_id: Uuid, by: Uuid) -> Result<Stocked, RepoError> {
        let stamp = self.stamp(by);
        self.change(id, |record| record.reserve(quantity, order_id, stamp)).await
    }

    /// Releases `quantity` reserved for `order_id`; `RESERVATION_EXCEEDED` beyond what is reserved.
    #[tracing::instrument(skip_all, fields(inventory_id = %id, order_id = %order_id))]
    pub async fn release(&self, id: Uuid, quantity: i64, order_id: Uuid, by: Uuid) -> Result<Stocked, RepoError> {
        let stamp = self.stamp(by);
        self.change(id, |record| record.release(quantity, order_id, stamp)).await
    }

    /// Commits `quantity` reserved for `order_id` (it leaves the warehouse); `RESERVATION_EXCEEDED`
    /// beyond what is reserved.
    #[tracing::instrument(skip_all, fields(inventory_id = %id, order_id = %order_id))]
    pub async fn commit(&self, id: Uuid, quantity: i64, order_id: Uuid, by: Uuid) -> Result<Stocked, RepoError> {
        let stamp = self.stamp(by);
        self.change(id, |record| record.commit(quantity, order_id, stamp)).await
    }

    /// Corrects on hand by `delta` (≠ 0) for `reason`; `INSUFFICIENT_STOCK` below what is reserved.
    #[tracing::instrument(skip_all, fields(inventory_id = %id))]
    pub async fn adjust(&self, id: Uuid, delta: i64, reason: &str, by: Uuid) -> Result<Stocked, RepoError> {
        let stamp = self.stamp(by);
        self.change(id, |record| record.adjust(delta, reason, stamp)).await
    }

    /// A stock take: sets on hand to `counted` by one Adjustment of the difference, for `reason`.
    /// The difference is taken from the record as it is when the write lands (a compare-and-set,
    /// decided again after a lost race), so a reservation or receipt made meanwhile is kept, never
    /// overwritten by a difference computed earlier. `None`, and nothing written, when on hand is
    /// `counted` already; `INSUFFICIENT_STOCK` below what is reserved.
    #[tracing::instrument(skip_all, fields(inventory_id = %id))]
    pub async fn count(&self, id: Uuid, counted: i64, reason: &str, by: Uuid) -> Result<Option<Stocked>, RepoError> {
        let stamp = self.stamp(by);
        until_settled(|| async move {
            let record = self.load(id).await?;
            let delta = counted.checked_sub(record.quantity_on_hand).ok_or(WarehouseError::QuantityOutOfRange);
            let delta = delta.map_err(refused)?;
            if delta == 0 {
                return Ok(Attempt::Done(None));
            }
            let change = record.adjust(delta, reason, stamp).map_err(refused)?;
            let incoming = self.inventory.apply(&change).await;
            answered(incoming.map(|incoming| Some(WithIncoming::new(change, incoming))), INVENTORY)
        })
        .await
    }

    /// Writes off `quantity` damaged units for `reason`; `INSUFFICIENT_STOCK` below what is reserved.
    #[tracing::instrument(skip_all, fields(inventory_id = %id))]
    pub async fn damage(&self, id: Uuid, quantity: i64, reason: &str, by: Uuid) -> Result<Stocked, RepoError> {
        let stamp = self.stamp(by);
        self.change(id, |record| record.damage(quantity, reason, stamp)).await
    }

    /// Takes back `quantity` returned units (of `order_id`, if any).
    #[tracing::instrument(skip_all, fields(inventory_id = %id))]
    pub async fn return_stock(
        &self,
        id: Uuid,
        quantity: i64,
        order_id: Option<Uuid>,
        reason: Option<&str>,
        by: Uuid,
    ) -> Result<Stocked, RepoError> {
        let stamp = self.stamp(by);
        self.change(id, |record| record.return_stock(quantity, order_id, reason, stamp)).await
    }

    /// Moves `quantity` from record `id` to the same product's record at `to_location_id` (made,
    /// empty, when there is none), a Transfer at each end. The destination location is checked
    /// first (`NOT_FOUND`: "destination location not found").
    #[tracing::instrument(skip_all, fields(inventory_id = %id, to_location_id = %to_location_id))]
    pub async fn transfer(
        &self,
        id: Uuid,
        to_location_id: Uuid,
        quantity: i64,
        by: Uuid,
    ) -> Result<WithIncoming<TransferChange, [i64; 2]>, RepoError> {
        let stamp = self.stamp(by);
        self.locations.get(to_location_id).await.map_err(missing("destination location"))?;
        until_settled(|| async move {
            let source = self.load(id).await?;
            let found = self.inventory.find(source.product_id, to_location_id).await.map_err(missing(INVENTORY))?;
            let destination = match found {
                Some(record) => record,
                None => {
                    let input = NewInventory {
                        product_id: source.product_id,
                        location_id: to_location_id,
                        quantity_on_hand: None,
                        thresholds: Thresholds::default(),
                    };
                    Inventory::create(input, stamp).map_err(refused)?.0
                }
            };
            let change = source.transfer(&destination, quantity, stamp).map_err(refused)?;
            let incoming = self.inventory.apply_transfer(&change).await;
            answered(incoming.map(|incoming| WithIncoming::new(change, incoming)), INVENTORY)
        })
        .await
    }

    async fn load(&self, id: Uuid) -> Result<Inventory, RepoError> {
        self.inventory.get(id).await.map_err(missing(INVENTORY))
    }

    /// Loads the record, runs `operation` and applies the change as a compare-and-set; on a lost
    /// race, again with the fresh record.
    async fn change<F>(&self, id: Uuid, operation: F) -> Result<Stocked, RepoError>
    where
        F: Fn(&Inventory) -> Result<InventoryChange, WarehouseError>,
    {
        let operation = &operation;
        until_settled(|| async move {
            let record = self.load(id).await?;
            let change = operation(&record).map_err(refused)?;
            let incoming = self.inventory.apply(&change).await;
            answered(incoming.map(|incoming| WithIncoming::new(change, incoming)), INVENTORY)
        })
        .await
    }

    /// The receipt as the operation takes it: the cost in its currency, the reference type parsed.
    async fn receipt(&self, id: Uuid, request: ReceiptRequest) -> Result<Receipt, RepoError> {
        let sent = request.currency.as_deref().map(str::trim).filter(|c| !c.is_empty());
        let unit_cost = match (request.unit_cost, sent) {
            (Some(cents), Some(code)) => Some(Money::new(cents, active_currency_text(&*self.currencies, code).await?)),
            (Some(cents), None) => Some(Money::new(cents, self.cost_currency(id).await?)),
            (None, _) => None,
        };
        let reference_type = request
            .reference_type
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(ReferenceType::parse)
            .transpose()
            .map_err(refused)?;
        Ok(Receipt {
            quantity: request.quantity,
            unit_cost,
            reference_type,
            reference_id: request.reference_id,
            reason: request.reason,
        })
    }

    /// A cost sent without a currency is in the product's currency, else in the reporting currency.
    async fn cost_currency(&self, id: Uuid) -> Result<CurrencyCode, RepoError> {
        let record = self.load(id).await?;
        let product = self.products.get(record.product_id).await.map_err(missing("product"))?;
        Ok(product.currency.unwrap_or(self.reporting_currency))
    }
}
