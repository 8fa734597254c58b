//! Transfers between locations as documents: create, ship, receive, cancel.
//!
//! Each move loads the transfer, lets [`Transfer`] decide and saves the
//! [`crate::TransferStatusChange`] through [`TransferRepository::save`], conditional on the version
//! and status read (a lost race is decided again on a fresh read). The port moves the stock in the
//! same transaction: shipping takes every line off the source with conditional updates, all or
//! nothing, and answers `INSUFFICIENT_STOCK` when one line is short, so a shipment racing with
//! order reservations on the same stock never oversells; receiving adds every line at the
//! destination (records made if missing); cancelling in transit puts them back at the source.

use std::sync::Arc;

use shared_kernel::application::{until_settled, Clock};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{missing, refused, saved};
use crate::error::WarehouseError;
use crate::operations::Stamp;
use crate::repository::{LocationRepository, ProductRepository, RepoError};
use crate::transfers::{NewTransfer, Transfer, TransferDraft, TransferRepository, TransferStatusChange};

const TRANSFER: &str = "transfer";

/// The transfer use cases.
#[derive(Clone)]
pub struct TransferService {
    products: Arc<dyn ProductRepository>,
    locations: Arc<dyn LocationRepository>,
    transfers: Arc<dyn TransferRepository>,
    clock: Arc<dyn Clock>,
}

impl TransferService {
    /// The service over its ports and clock.
    pub fn new(
        products: Arc<dyn ProductRepository>,
        locations: Arc<dyn LocationRepository>,
        transfers: Arc<dyn TransferRepository>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { products, locations, transfers, clock }
    }

    /// The transfer; `NOT_FOUND` ("transfer not found") otherwise.
    #[tracing::instrument(skip_all, fields(transfer_id = %id))]
    pub async fn get(&self, id: Uuid) -> Result<Transfer, RepoError> {
        self.transfers.get(id).await.map_err(missing(TRANSFER))
    }

    /// A new `draft` transfer by user `by`, numbered by the port. Checked in this order: the input
    /// ([`TransferDraft::new`]: the locations differ, lines, quantities, one line per product,
    /// notes), the source (`NOT_FOUND` "source location"; inactive: `VALIDATION_ERROR` on
    /// `from_location_id`), the destination (`NOT_FOUND` "destination location"; inactive:
    /// `VALIDATION_ERROR` on `to_location_id`), every product (`NOT_FOUND`; a discontinued product
    /// may still be moved).
    #[tracing::instrument(skip_all, fields(from_location_id = %input.from_location_id, to_location_id = %input.to_location_id))]
    pub async fn create(&self, input: NewTransfer, by: Uuid) -> Result<Transfer, RepoError> {
        let stamp = Stamp { at: self.clock.now(), by: Some(by) };
        let (from, to) = (input.from_location_id, input.to_location_id);
        let ids: Vec<Uuid> = input.lines.iter().map(|l| l.product_id).collect();
        let draft = TransferDraft::new(input, stamp).map_err(refused)?;
        self.active_location(from, "source location", "from_location_id").await?;
        self.active_location(to, "destination location", "to_location_id").await?;
        let products = self.products.get_many(&ids).await?;
        if ids.iter().any(|id| !products.iter().any(|p| p.id == *id)) {
            return Err(refused(WarehouseError::NotFound { entity: "product" }));
        }
        self.transfers.create(draft).await.map_err(missing(TRANSFER))
    }

    /// `draft → in_transit` by user `by`: every line taken off the source, all or nothing
    /// (`INSUFFICIENT_STOCK` when one is short, and nothing moves); `INVALID_STATUS_TRANSITION`
    /// from another status.
    #[tracing::instrument(skip_all, fields(transfer_id = %id))]
    pub async fn ship(&self, id: Uuid, by: Uuid) -> Result<Transfer, RepoError> {
        self.decide(id, Transfer::ship, by).await
    }

    /// `in_transit → received` by user `by`: every line added at the destination (its record made
    /// if missing); `INVALID_STATUS_TRANSITION` from another status.
    #[tracing::instrument(skip_all, fields(transfer_id = %id))]
    pub async fn receive(&self, id: Uuid, by: Uuid) -> Result<Transfer, RepoError> {
        self.decide(id, Transfer::receive, by).await
    }

    /// `draft → cancelled`, or `in_transit → cancelled` putting every line back at the source, by
    /// user `by`; `INVALID_STATUS_TRANSITION` from `received` or `cancelled`.
    #[tracing::instrument(skip_all, fields(transfer_id = %id))]
    pub async fn cancel(&self, id: Uuid, by: Uuid) -> Result<Transfer, RepoError> {
        self.decide(id, Transfer::cancel, by).await
    }

    /// Loads, decides with `operation` and saves, until the save was not stale.
    async fn decide(
        &self,
        id: Uuid,
        operation: fn(&Transfer, OffsetDateTime) -> Result<TransferStatusChange, WarehouseError>,
        by: Uuid,
    ) -> Result<Transfer, RepoError> {
        until_settled(|| async move {
            let transfer = self.get(id).await?;
            let change = operation(&transfer, self.clock.now()).map_err(refused)?;
            let result = self.transfers.save(&change, Some(by)).await;
            saved(result, change.transfer, TRANSFER)
        })
        .await
    }

    /// The live, active location (`entity` when missing, `field` when inactive).
    async fn active_location(&self, id: Uuid, entity: &'static str, field: &'static str) -> Result<(), RepoError> {
        let location = self.locations.get(id).await.map_err(missing(entity))?;
        if !location.is_active {
            return Err(refused(WarehouseError::Validation { field, message: "is not an active location" }));
        }
        Ok(())
    }
}
