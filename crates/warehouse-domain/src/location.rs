//! Locations: where stock is kept (warehouse, shop, drop-shipper or a virtual bucket).
//!
//! The code is trimmed and stored as given; its uniqueness (case-insensitive, among non-deleted rows)
//! is the adapter's. The country is two ASCII letters here; whether it exists in the reference data
//! is checked by the handler. `address.country`, when given, must equal `country` and is filled from it
//! otherwise. Capacity is `None` (unlimited) or ≥ 0. A new location is active; activating an active
//! one or deactivating an inactive one is `INVALID_STATUS_TRANSITION` 409. Deleting a location with
//! stock on hand is `LOCATION_HAS_STOCK` 409 (checked in the adapter's conditional delete).

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::WarehouseError;
use crate::text;

/// Longest location code, in characters after trimming.
pub const MAX_CODE_CHARS: usize = 64;
/// Longest location name, in characters after trimming.
pub const MAX_NAME_CHARS: usize = 255;
/// Longest street, city or state of an address, in characters after trimming.
pub const MAX_ADDRESS_LINE_CHARS: usize = 255;
/// Longest postal code, in characters after trimming.
pub const MAX_POSTAL_CODE_CHARS: usize = 20;

/// What kind of place a location is. Serialized exactly as these PascalCase names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LocationType {
    /// A storage building of the business.
    Warehouse,
    /// A shop.
    Retail,
    /// A supplier that ships directly to customers.
    Dropship,
    /// A bucket of stock with no physical place of its own.
    Virtual,
}

impl LocationType {
    /// Every location type.
    pub const ALL: [LocationType; 4] = [Self::Warehouse, Self::Retail, Self::Dropship, Self::Virtual];

    /// The wire name (`Warehouse`, `Retail`, `Dropship`, `Virtual`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Warehouse => "Warehouse",
            Self::Retail => "Retail",
            Self::Dropship => "Dropship",
            Self::Virtual => "Virtual",
        }
    }

    /// Case-insensitive; anything else is `VALIDATION_ERROR` on `type`.
    pub fn parse(text: &str) -> Result<Self, WarehouseError> {
        let text = text.trim();
        Self::ALL.into_iter().find(|t| t.as_str().eq_ignore_ascii_case(text)).ok_or(WarehouseError::Validation {
            field: "type",
            message: "must be Warehouse, Retail, Dropship or Virtual",
        })
    }
}

impl fmt::Display for LocationType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// ISO 3166-1 alpha-2 shape: two ASCII letters, upper-cased.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CountryCode([u8; 2]);

impl CountryCode {
    /// Two ASCII letters, any case, surrounding blanks trimmed; anything else is `VALIDATION_ERROR` on
    /// `country`. Whether the country exists is checked against reference data by the handler.
    pub fn parse(text: &str) -> Result<Self, WarehouseError> {
        match text.trim().as_bytes() {
            [a, b] if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
                Ok(Self([a.to_ascii_uppercase(), b.to_ascii_uppercase()]))
            }
            _ => Err(WarehouseError::Validation { field: "country", message: "must be an ISO 3166-1 alpha-2 code" }),
        }
    }

    /// The two upper-case letters.
    pub fn as_str(&self) -> &str {
        // Built only from ASCII letters.
        std::str::from_utf8(&self.0).unwrap_or("XX")
    }
}

impl fmt::Display for CountryCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CountryCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CountryCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A location's postal address; every part is optional, trimmed, blank meaning absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Address {
    /// Street and number, up to [`MAX_ADDRESS_LINE_CHARS`].
    pub street: Option<String>,
    /// City, up to [`MAX_ADDRESS_LINE_CHARS`].
    pub city: Option<String>,
    /// State or region, up to [`MAX_ADDRESS_LINE_CHARS`].
    pub state: Option<String>,
    /// Postal code, up to [`MAX_POSTAL_CODE_CHARS`].
    pub postal_code: Option<String>,
    /// Must equal the location's `country` when given; filled from it otherwise.
    pub country: Option<CountryCode>,
}

impl Address {
    fn validate(self, country: CountryCode) -> Result<Self, WarehouseError> {
        if self.country.is_some_and(|c| c != country) {
            return Err(WarehouseError::Validation { field: "address.country", message: "must equal country" });
        }
        Ok(Self {
            street: text::optional(self.street.as_deref(), "address.street", MAX_ADDRESS_LINE_CHARS)?,
            city: text::optional(self.city.as_deref(), "address.city", MAX_ADDRESS_LINE_CHARS)?,
            state: text::optional(self.state.as_deref(), "address.state", MAX_ADDRESS_LINE_CHARS)?,
            postal_code: text::optional(self.postal_code.as_deref(), "address.postal_code", MAX_POSTAL_CODE_CHARS)?,
            country: Some(country),
        })
    }
}

/// The stored and wire shape of a location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LocationRecord {
    /// The location's id (UUID v7).
    pub id: Uuid,
    /// The short code people use, unique case-insensitively among live locations.
    pub code: String,
    /// The display name.
    pub name: String,
    /// What kind of place it is (`type` on the wire).
    #[serde(rename = "type")]
    pub location_type: LocationType,
    /// The postal address; its `country` always equals `country`.
    pub address: Address,
    /// The country the location is in.
    pub country: CountryCode,
    /// How many units it can hold, ≥ 0; `None` is unlimited. Not enforced by the operations: it
    /// feeds [`Location::utilization`].
    pub capacity: Option<i64>,
    /// Whether stock here may be reserved for orders (inactive locations are skipped).
    pub is_active: bool,
    /// When the location was created.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When it last changed.
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    #[serde(skip)]
    pub version: i64,
}

/// A location whose fields are valid (see the module rules). Read its fields through `Deref`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Location(LocationRecord);

impl Deref for Location {
    type Target = LocationRecord;
    fn deref(&self) -> &LocationRecord {
        &self.0
    }
}

/// The editable fields, for create and for `PUT` (which replaces all of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocationInput {
    /// Required, 1..=[`MAX_CODE_CHARS`] characters after trimming, no control characters.
    pub code: String,
    /// Required, 1..=[`MAX_NAME_CHARS`] characters after trimming, no control characters.
    pub name: String,
    /// What kind of place it is.
    pub location_type: LocationType,
    /// The postal address; its country, when given, must equal `country`.
    pub address: Address,
    /// The country the location is in.
    pub country: CountryCode,
    /// `None` (unlimited) or ≥ 0.
    pub capacity: Option<i64>,
}

struct Fields {
    code: String,
    name: String,
    location_type: LocationType,
    address: Address,
    country: CountryCode,
    capacity: Option<i64>,
}

impl LocationInput {
    fn validate(self) -> Result<Fields, WarehouseError> {
        Ok(Fields {
            code: text::required(&self.code, "code", MAX_CODE_CHARS)?,
            name: text::required(&self.name, "name", MAX_NAME_CHARS)?,
            location_type: self.location_type,
            address: self.address.validate(self.country)?,
            country: self.country,
            capacity: text::non_negative(self.capacity, "capacity")?,
        })
    }
}

/// `GET /locations/:id/utilization`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Utilization {
    /// The location measured.
    pub location_id: Uuid,
    /// Its capacity (`None`: unlimited).
    pub capacity: Option<i64>,
    /// Σ on hand over its inventory records.
    pub quantity_on_hand: i64,
    /// `on_hand / capacity × 100`, two decimals; `None` without a positive capacity.
    pub utilization_percent: Option<f64>,
}

impl Location {
    /// A new, active location at version 1; `VALIDATION_ERROR` on the first invalid field.
    pub fn create(input: LocationInput, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        let f = input.validate()?;
        Ok(Self(LocationRecord {
            version: 1,
            id: shared_kernel::new_id(),
            code: f.code,
            name: f.name,
            location_type: f.location_type,
            address: f.address,
            country: f.country,
            capacity: f.capacity,
            is_active: true,
            created_at: now,
            updated_at: now,
        }))
    }

    /// Rebuilds a location from storage without re-validating.
    pub fn restore(record: LocationRecord) -> Self {
        Self(record)
    }

    /// The stored shape, for the adapter to write.
    pub fn record(&self) -> &LocationRecord {
        &self.0
    }

    /// The stored shape, taken out of the location.
    pub fn into_record(self) -> LocationRecord {
        self.0
    }

    /// Replaces every editable field (`PUT`); `is_active` is changed only by activate/deactivate.
    pub fn update(&self, input: LocationInput, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        let f = input.validate()?;
        Ok(Self(LocationRecord {
            code: f.code,
            name: f.name,
            location_type: f.location_type,
            address: f.address,
            country: f.country,
            capacity: f.capacity,
            updated_at: now,
            // Saved by one UPDATE, which the database's trigger counts the same way.
            version: self.version + 1,
            ..self.0.clone()
        }))
    }

    fn set_active(&self, active: bool, action: &'static str, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        if self.is_active == active {
            let from = if active { "active" } else { "inactive" };
            return Err(WarehouseError::InvalidTransition { entity: "location", from, action });
        }
        Ok(Self(LocationRecord { is_active: active, updated_at: now, version: self.version + 1, ..self.0.clone() }))
    }

    /// inactive → active; `INVALID_STATUS_TRANSITION` when already active.
    pub fn activate(&self, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        self.set_active(true, "activate", now)
    }

    /// active → inactive; `INVALID_STATUS_TRANSITION` when already inactive. Inactive locations are
    /// skipped when reserving stock for orders; their stock stays.
    pub fn deactivate(&self, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        self.set_active(false, "deactivate", now)
    }

    /// How full the location is with `quantity_on_hand` units (from
    /// [`crate::LocationRepository::quantity_on_hand`]).
    pub fn utilization(&self, quantity_on_hand: i64) -> Utilization {
        let utilization_percent = self.capacity.filter(|c| *c > 0).map(|capacity| {
            // f64 is exact enough for a percentage shown with two decimals.
            let percent = quantity_on_hand as f64 / capacity as f64 * 100.0;
            (percent * 100.0).round() / 100.0
        });
        Utilization { location_id: self.id, capacity: self.capacity, quantity_on_hand, utilization_percent }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_780_000_000 + seconds).expect("valid time")
    }

    fn ua() -> CountryCode {
        CountryCode::parse("ua").expect("valid")
    }

    fn input() -> LocationInput {
        LocationInput {
            code: " KYIV-1 ".into(),
            name: "Kyiv main".into(),
            location_type: LocationType::Warehouse,
            address: Address {
                street: Some("1 Khreshchatyk".into()),
                city: Some("Kyiv".into()),
                state: None,
                postal_code: Some("01001".into()),
                country: None,
            },
            country: ua(),
            capacity: Some(1000),
        }
    }

    #[test]
    fn create_normalises() {
        let location = Location::create(input(), at(0)).expect("valid");
        assert_eq!(location.code, "KYIV-1");
        assert!(location.is_active);
        assert_eq!(location.address.country, Some(ua()), "filled from country");
        let json = serde_json::to_value(&location).expect("serializes");
        assert_eq!(json["type"], "Warehouse");
        assert_eq!(json["country"], "UA");
        assert_eq!(json["address"]["country"], "UA");
        assert_eq!(json["address"]["city"], "Kyiv");
    }

    #[test]
    fn create_rejects_each_bad_field() {
        let pl = CountryCode::parse("PL").expect("valid");
        let cases: Vec<(LocationInput, &str)> = vec![
            (LocationInput { code: " ".into(), ..input() }, "code"),
            (LocationInput { code: "c".repeat(65), ..input() }, "code"),
            (LocationInput { name: String::new(), ..input() }, "name"),
            (LocationInput { capacity: Some(-1), ..input() }, "capacity"),
            (LocationInput { address: Address { country: Some(pl), ..input().address }, ..input() }, "address.country"),
            (
                LocationInput { address: Address { postal_code: Some("9".repeat(21)), ..input().address }, ..input() },
                "address.postal_code",
            ),
        ];
        for (bad, field) in cases {
            assert_eq!(Location::create(bad, at(0)).map_err(|e| e.field()), Err(Some(field)), "{field}");
        }
        assert!(Location::create(LocationInput { capacity: None, ..input() }, at(0)).is_ok());
    }

    #[test]
    fn activate_and_deactivate() {
        let location = Location::create(input(), at(0)).expect("valid");
        assert_eq!(
            location.activate(at(1)),
            Err(WarehouseError::InvalidTransition { entity: "location", from: "active", action: "activate" })
        );
        let off = location.deactivate(at(2)).expect("active → inactive");
        assert_eq!((off.is_active, off.updated_at), (false, at(2)));
        assert_eq!(
            off.deactivate(at(3)),
            Err(WarehouseError::InvalidTransition { entity: "location", from: "inactive", action: "deactivate" })
        );
        let on = off.activate(at(4)).expect("inactive → active");
        assert!(on.is_active);
    }

    #[test]
    fn update_keeps_identity_and_activity() {
        let location = Location::create(input(), at(0)).expect("valid").deactivate(at(1)).expect("ok");
        let updated = location
            .update(LocationInput { name: "Kyiv annex".into(), location_type: LocationType::Retail, ..input() }, at(2))
            .expect("valid");
        assert_eq!((updated.id, updated.created_at, updated.is_active), (location.id, at(0), false));
        assert_eq!((updated.name.as_str(), updated.location_type), ("Kyiv annex", LocationType::Retail));
    }

    #[test]
    fn utilization_percent() {
        let location = Location::create(input(), at(0)).expect("valid");
        assert_eq!(location.utilization(250).utilization_percent, Some(25.0));
        assert_eq!(location.utilization(1).utilization_percent, Some(0.1));
        assert_eq!(location.utilization(2000).utilization_percent, Some(200.0));
        let unlimited = Location::create(LocationInput { capacity: None, ..input() }, at(0)).expect("valid");
        assert_eq!(unlimited.utilization(5).utilization_percent, None);
        let zero = Location::create(LocationInput { capacity: Some(0), ..input() }, at(0)).expect("valid");
        assert_eq!(zero.utilization(5).utilization_percent, None);
    }

    #[test]
    fn codes_parse() {
        assert_eq!(ua().as_str(), "UA");
        for bad in ["", "U", "UKR", "U1"] {
            assert!(CountryCode::parse(bad).is_err(), "{bad}");
        }
        for t in LocationType::ALL {
            assert_eq!(LocationType::parse(t.as_str()), Ok(t));
            assert_eq!(serde_json::to_value(t).expect("serializes"), serde_json::json!(t.as_str()));
        }
        assert_eq!(LocationType::parse("retail"), Ok(LocationType::Retail));
        assert!(LocationType::parse("Store").is_err());
    }
}
