//! Suppliers: who purchase orders are placed with.
//!
//! Rules: `name` 1..=255 characters after trimming; `email` under the shared rule
//! (`shared_kernel::Email`, else `INVALID_EMAIL`); `phone` already checked and normalised to E.164 by
//! the caller (the HTTP adapter owns the phone-number library, `INVALID_PHONE`), here only its length;
//! `currency` a three-letter code (whether it is an *active* one is the handler's reference-data
//! question); `lead_time_days` 0..=365; `notes` up to 5000 characters; `is_active` defaults to true.
//! Blank optional text is `None`. Deleting is soft, and refused while the supplier has open purchase
//! orders (`SUPPLIER_HAS_OPEN_ORDERS`, checked by the adapter in the delete's condition).

use std::ops::Deref;

use serde::Serialize;
use shared_kernel::{CurrencyCode, Email};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::WarehouseError;
use crate::text;

/// Longest supplier name, in characters after trimming.
pub const MAX_SUPPLIER_NAME_CHARS: usize = 255;
/// Longest phone text, in characters (the E.164 check is the caller's).
pub const MAX_PHONE_CHARS: usize = 50;
/// Longest supplier notes, in characters after trimming.
pub const MAX_SUPPLIER_NOTES_CHARS: usize = 5000;
/// Longest lead time, in days.
pub const MAX_LEAD_TIME_DAYS: i64 = 365;

/// The stored and wire shape of a supplier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SupplierRecord {
    /// The supplier's id (UUID v7).
    pub id: Uuid,
    /// Its name, 1..=[`MAX_SUPPLIER_NAME_CHARS`] characters.
    pub name: String,
    /// Where purchase orders are sent, normalised (trimmed, lower-cased).
    pub email: Option<Email>,
    /// In E.164 form.
    pub phone: Option<String>,
    /// The currency it invoices in.
    pub currency: Option<CurrencyCode>,
    /// Days between ordering and delivery, 0..=[`MAX_LEAD_TIME_DAYS`].
    pub lead_time_days: Option<i32>,
    /// Free text for people.
    pub notes: Option<String>,
    /// Whether purchase orders may be placed with it (the handler's check at creation).
    pub is_active: bool,
    /// When it was created.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When it last changed.
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// The stored row's version: 1 when created, +1 per saved change (the ETag's source).
    #[serde(skip)]
    pub version: i64,
}

/// A supplier whose fields are valid. Read its fields through `Deref`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Supplier(SupplierRecord);

impl Deref for Supplier {
    type Target = SupplierRecord;
    fn deref(&self) -> &SupplierRecord {
        &self.0
    }
}

/// `POST /suppliers`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewSupplier {
    /// Required, 1..=[`MAX_SUPPLIER_NAME_CHARS`] characters after trimming.
    pub name: String,
    /// Parsed with the shared rule; blank is `None`.
    pub email: Option<String>,
    /// Checked and normalised to E.164 by the caller; blank is `None`.
    pub phone: Option<String>,
    /// The supplier's currency.
    pub currency: Option<CurrencyCode>,
    /// 0..=[`MAX_LEAD_TIME_DAYS`].
    pub lead_time_days: Option<i64>,
    /// Up to [`MAX_SUPPLIER_NOTES_CHARS`]; blank is `None`.
    pub notes: Option<String>,
    /// Default `true`.
    pub is_active: Option<bool>,
}

/// `PUT /suppliers/{id}`: any subset of the create fields. An absent field stays; for the optional
/// ones `Some(None)` (JSON `null`) clears it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SupplierChanges {
    /// A new name.
    pub name: Option<String>,
    /// A new email, or none.
    pub email: Option<Option<String>>,
    /// A new phone (E.164, checked by the caller), or none.
    pub phone: Option<Option<String>>,
    /// A new currency, or none.
    pub currency: Option<Option<CurrencyCode>>,
    /// A new lead time, or none.
    pub lead_time_days: Option<Option<i64>>,
    /// New notes, or none.
    pub notes: Option<Option<String>>,
    /// Activate or deactivate.
    pub is_active: Option<bool>,
}

fn email(value: Option<&str>) -> Result<Option<Email>, WarehouseError> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => Ok(Some(Email::parse(text)?)),
    }
}

fn lead_time(days: Option<i64>) -> Result<Option<i32>, WarehouseError> {
    match days {
        None => Ok(None),
        Some(d) if (0..=MAX_LEAD_TIME_DAYS).contains(&d) => Ok(i32::try_from(d).ok()),
        Some(_) => Err(WarehouseError::Validation { field: "lead_time_days", message: "must be between 0 and 365" }),
    }
}

impl Supplier {
    /// A new supplier at version 1, active unless told otherwise. Checked in this order: `name`,
    /// `email` (`INVALID_EMAIL`), `phone`, `lead_time_days`, `notes` (`VALIDATION_ERROR` on the field).
    pub fn create(input: NewSupplier, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        Ok(Self(SupplierRecord {
            id: shared_kernel::new_id(),
            name: text::required(&input.name, "name", MAX_SUPPLIER_NAME_CHARS)?,
            email: email(input.email.as_deref())?,
            phone: text::optional(input.phone.as_deref(), "phone", MAX_PHONE_CHARS)?,
            currency: input.currency,
            lead_time_days: lead_time(input.lead_time_days)?,
            notes: text::optional(input.notes.as_deref(), "notes", MAX_SUPPLIER_NOTES_CHARS)?,
            is_active: input.is_active.unwrap_or(true),
            created_at: now,
            updated_at: now,
            version: 1,
        }))
    }

    /// Rebuilds a supplier from storage without re-validating.
    pub fn restore(record: SupplierRecord) -> Self {
        Self(record)
    }

    /// The stored shape, for the adapter to write.
    pub fn record(&self) -> &SupplierRecord {
        &self.0
    }

    /// The stored shape, taken out of the supplier.
    pub fn into_record(self) -> SupplierRecord {
        self.0
    }

    /// The supplier with `changes` applied (same rules and order as [`Supplier::create`]),
    /// `updated_at = now` and the next version; save it with
    /// [`crate::purchasing::SupplierRepository::update`], conditional on this supplier's version.
    pub fn update(&self, changes: SupplierChanges, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        let mut next = self.0.clone();
        if let Some(name) = changes.name {
            next.name = text::required(&name, "name", MAX_SUPPLIER_NAME_CHARS)?;
        }
        if let Some(value) = changes.email {
            next.email = email(value.as_deref())?;
        }
        if let Some(value) = changes.phone {
            next.phone = text::optional(value.as_deref(), "phone", MAX_PHONE_CHARS)?;
        }
        if let Some(value) = changes.currency {
            next.currency = value;
        }
        if let Some(value) = changes.lead_time_days {
            next.lead_time_days = lead_time(value)?;
        }
        if let Some(value) = changes.notes {
            next.notes = text::optional(value.as_deref(), "notes", MAX_SUPPLIER_NOTES_CHARS)?;
        }
        if let Some(active) = changes.is_active {
            next.is_active = active;
        }
        next.updated_at = now;
        next.version = self.version.saturating_add(1);
        Ok(Self(next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_780_000_000 + seconds).expect("valid time")
    }

    fn input() -> NewSupplier {
        NewSupplier {
            name: "  Acme Supplies ".into(),
            email: Some(" Orders@Acme.EXAMPLE ".into()),
            phone: Some("+14155550100".into()),
            currency: Some(CurrencyCode::parse("usd").expect("valid")),
            lead_time_days: Some(14),
            notes: Some("   ".into()),
            is_active: None,
        }
    }

    #[test]
    fn create_normalises_and_defaults_active() {
        let supplier = Supplier::create(input(), at(0)).expect("valid");
        assert_eq!(supplier.name, "Acme Supplies");
        assert_eq!(supplier.email.as_ref().map(Email::as_str), Some("orders@acme.example"));
        assert_eq!((supplier.lead_time_days, supplier.notes.as_deref(), supplier.is_active), (Some(14), None, true));
        assert_eq!((supplier.created_at, supplier.updated_at, supplier.version), (at(0), at(0), 1));
        let json = serde_json::to_value(&supplier).expect("serializes");
        assert_eq!(json["currency"], "USD");
        assert_eq!(json["email"], "orders@acme.example");
        assert!(json.get("version").is_none());
        let inactive = Supplier::create(NewSupplier { is_active: Some(false), ..input() }, at(0)).expect("valid");
        assert!(!inactive.is_active);
    }

    #[test]
    fn create_refuses_each_bad_field() {
        let code = |input: NewSupplier| {
            Supplier::create(input, at(0)).map_err(|e| (shared_kernel::error::Classified::code(&e), e.field()))
        };
        let cases: Vec<(NewSupplier, &str, &str)> = vec![
            (NewSupplier { name: " ".into(), ..input() }, "VALIDATION_ERROR", "name"),
            (NewSupplier { name: "n".repeat(256), ..input() }, "VALIDATION_ERROR", "name"),
            (NewSupplier { email: Some("not an address".into()), ..input() }, "INVALID_EMAIL", "email"),
            (NewSupplier { phone: Some("+1".repeat(26)), ..input() }, "VALIDATION_ERROR", "phone"),
            (NewSupplier { lead_time_days: Some(-1), ..input() }, "VALIDATION_ERROR", "lead_time_days"),
            (NewSupplier { lead_time_days: Some(366), ..input() }, "VALIDATION_ERROR", "lead_time_days"),
            (NewSupplier { notes: Some("n".repeat(5001)), ..input() }, "VALIDATION_ERROR", "notes"),
        ];
        for (bad, expected_code, field) in cases {
            assert_eq!(code(bad).map(|_| ()), Err((expected_code, Some(field))), "{field}");
        }
        for days in [0, 365] {
            assert!(Supplier::create(NewSupplier { lead_time_days: Some(days), ..input() }, at(0)).is_ok());
        }
        assert!(Supplier::create(NewSupplier { name: "n".repeat(255), ..NewSupplier::default() }, at(0)).is_ok());
    }

    #[test]
    fn update_changes_only_what_is_sent() {
        let supplier = Supplier::create(input(), at(0)).expect("valid");
        let same = supplier.update(SupplierChanges::default(), at(5)).expect("nothing to check");
        assert_eq!(
            (same.name.as_str(), same.email.clone(), same.updated_at),
            ("Acme Supplies", supplier.email.clone(), at(5))
        );
        assert_eq!(same.version, 2);
        let changed = supplier
            .update(
                SupplierChanges {
                    name: Some("Acme".into()),
                    email: Some(None),
                    lead_time_days: Some(Some(0)),
                    is_active: Some(false),
                    ..SupplierChanges::default()
                },
                at(6),
            )
            .expect("valid");
        assert_eq!((changed.name.as_str(), changed.email.as_ref(), changed.lead_time_days), ("Acme", None, Some(0)));
        assert_eq!((changed.id, changed.created_at, changed.is_active), (supplier.id, at(0), false));
        assert_eq!(changed.phone, supplier.phone, "absent fields stay");
        let refused =
            supplier.update(SupplierChanges { email: Some(Some("x@".into())), ..SupplierChanges::default() }, at(7));
        assert_eq!(refused, Err(WarehouseError::InvalidEmail));
        let refused =
            supplier.update(SupplierChanges { name: Some(String::new()), ..SupplierChanges::default() }, at(7));
        assert_eq!(refused.map_err(|e| e.field()), Err(Some("name")));
    }
}
