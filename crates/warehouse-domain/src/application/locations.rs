//! Locations: create, update, delete, activate and deactivate.
//!
//! The location's country must be one the reference data lists ([`Countries`], checked first, then
//! the address's country as written); the code's uniqueness is the port's (`ALREADY_EXISTS` on
//! `code`).

use std::sync::Arc;

use shared_kernel::application::{until_settled, Clock};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{known_country, missing, refused, saved};
use crate::error::WarehouseError;
use crate::location::{CountryCode, Location, LocationInput};
use crate::repository::{Countries, LocationRepository, RepoError};

const LOCATION: &str = "location";

/// A location as the client sends it: the input, and its address's country as written when one was
/// sent (parsed after the location's country is found in the reference data; it replaces
/// `input.address.country`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocationRequest {
    /// The location's fields.
    pub input: LocationInput,
    /// The address's country as sent, if any.
    pub address_country: Option<String>,
}

impl From<LocationInput> for LocationRequest {
    fn from(input: LocationInput) -> Self {
        Self { input, address_country: None }
    }
}

/// The location use cases.
#[derive(Clone)]
pub struct LocationService {
    locations: Arc<dyn LocationRepository>,
    countries: Arc<dyn Countries>,
    clock: Arc<dyn Clock>,
}

impl LocationService {
    /// The service over its ports and clock.
    pub fn new(locations: Arc<dyn LocationRepository>, countries: Arc<dyn Countries>, clock: Arc<dyn Clock>) -> Self {
        Self { locations, countries, clock }
    }

    /// `code` as a country the reference data lists (a list's filter): `VALIDATION_ERROR` on
    /// `country`, "must be an ISO 3166-1 alpha-2 code" or "is not a known country".
    #[tracing::instrument(skip_all, fields(country = %code))]
    pub async fn country(&self, code: &str) -> Result<CountryCode, RepoError> {
        let country = CountryCode::parse(code).map_err(refused)?;
        known_country(&*self.countries, "country", country).await
    }

    /// The request's input with its countries checked: the location's in the reference data, then
    /// the address's as written (`VALIDATION_ERROR` on `address.country`).
    async fn checked(&self, request: LocationRequest) -> Result<LocationInput, RepoError> {
        let LocationRequest { mut input, address_country } = request;
        known_country(&*self.countries, "country", input.country).await?;
        if let Some(raw) = address_country.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
            let parsed = CountryCode::parse(raw).map_err(|_| {
                refused(WarehouseError::Validation {
                    field: "address.country",
                    message: "must be an ISO 3166-1 alpha-2 code",
                })
            })?;
            input.address.country = Some(parsed);
        }
        Ok(input)
    }

    /// The live location; `NOT_FOUND` ("location not found") otherwise.
    #[tracing::instrument(skip_all, fields(location_id = %id))]
    pub async fn get(&self, id: Uuid) -> Result<Location, RepoError> {
        self.locations.get(id).await.map_err(missing(LOCATION))
    }

    /// A new active location: its countries, the input's rules, then the code's uniqueness
    /// (`ALREADY_EXISTS`).
    #[tracing::instrument(skip_all, fields(code = tracing::field::Empty))]
    pub async fn create(&self, request: impl Into<LocationRequest>) -> Result<Location, RepoError> {
        let input = self.checked(request.into()).await?;
        tracing::Span::current().record("code", input.code.as_str());
        let location = Location::create(input, self.clock.now()).map_err(refused)?;
        self.locations.create(&location).await.map_err(missing(LOCATION))?;
        Ok(location)
    }

    /// Replaces the editable fields (`PUT`), over the version read; a concurrent change is read
    /// again and the edit applied to it. The countries are checked first, before the location is read.
    #[tracing::instrument(skip_all, fields(location_id = %id))]
    pub async fn update(&self, id: Uuid, request: impl Into<LocationRequest>) -> Result<Location, RepoError> {
        let input = self.checked(request.into()).await?;
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
