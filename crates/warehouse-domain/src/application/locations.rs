//! Locations: create, update, delete, activate and deactivate.
//!
//! The location's country is checked against the reference data by the caller, which passes it in
//! the [`LocationInput`]; the code's uniqueness is the port's (`ALREADY_EXISTS` on `code`).

use std::sync::Arc;

use shared_kernel::application::{until_settled, Clock};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{missing, refused, saved};
use crate::error::WarehouseError;
use crate::location::{Location, LocationInput};
use crate::repository::{LocationRepository, RepoError};

const LOCATION: &str = "location";

/// The location use cases.
#[derive(Clone)]
pub struct LocationService {
    locations: Arc<dyn LocationRepository>,
    clock: Arc<dyn Clock>,
}

impl LocationService {
    /// The service over its port and clock.
    pub fn new(locations: Arc<dyn LocationRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { locations, clock }
    }

    /// The live location; `NOT_FOUND` ("location not found") otherwise.
    #[tracing::instrument(skip_all, fields(location_id = %id))]
    pub async fn get(&self, id: Uuid) -> Result<Location, RepoError> {
        self.locations.get(id).await.map_err(missing(LOCATION))
    }

    /// A new active location: the input's rules, then the code's uniqueness (`ALREADY_EXISTS`).
    #[tracing::instrument(skip_all, fields(code = %input.code))]
    pub async fn create(&self, input: LocationInput) -> Result<Location, RepoError> {
        let location = Location::create(input, self.clock.now()).map_err(refused)?;
        self.locations.create(&location).await.map_err(missing(LOCATION))?;
        Ok(location)
    }

    /// Replaces the editable fields (`PUT`), over the version read; a concurrent change is read
    /// again and the edit applied to it.
    #[tracing::instrument(skip_all, fields(location_id = %id))]
    pub async fn update(&self, id: Uuid, input: LocationInput) -> Result<Location, RepoError> {
        let input = &input;
        until_settled(|| async move {
            let location = self.get(id).await?;
            let updated = location.update(input.clone(), self.clock.now()).map_err(refused)?;
            saved(self.locations.update(&updated).await, updated, LOCATION)
        })
        .await
    }

    /// Soft delete; `LOCATION_HAS_STOCK` while a record there has stock on hand.
    #[tracing::instrument(skip_all, fields(location_id = %id))]
    pub async fn delete(&self, id: Uuid) -> Result<(), RepoError> {
        self.locations.delete(id, self.clock.now()).await.map_err(missing(LOCATION))
    }

    /// `inactive → active`; `INVALID_STATUS_TRANSITION` when already active.
    #[tracing::instrument(skip_all, fields(location_id = %id))]
    pub async fn activate(&self, id: Uuid) -> Result<Location, RepoError> {
        self.set_active(id, Location::activate).await
    }

    /// `active → inactive` (skipped when reserving for orders); `INVALID_STATUS_TRANSITION` when
    /// already inactive.
    #[tracing::instrument(skip_all, fields(location_id = %id))]
    pub async fn deactivate(&self, id: Uuid) -> Result<Location, RepoError> {
        self.set_active(id, Location::deactivate).await
    }

    /// Flips `is_active` with a compare-and-set on the value it was read with.
    async fn set_active(
        &self,
        id: Uuid,
        operation: fn(&Location, OffsetDateTime) -> Result<Location, WarehouseError>,
    ) -> Result<Location, RepoError> {
        until_settled(|| async move {
            let location = self.get(id).await?;
            let moved = operation(&location, self.clock.now()).map_err(refused)?;
            saved(self.locations.change_active(&moved, location.is_active).await, moved, LOCATION)
        })
        .await
    }
}
