//! Contacts: typed values of a user (email, phone, address), each private or public, at most one
//! primary per type, and verified until its value changes (docs/contacts-and-profiles.md).

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::credentials::Email;
use crate::ports::RepoError;
use crate::IdentityError;

/// What kind of value a contact holds; fixed when the contact is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactType {
    /// An email address.
    Email,
    /// A phone number in E.164 form.
    Phone,
    /// A postal address.
    Address,
}

impl ContactType {
    /// The wire and database spelling: `email`, `phone` or `address`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Phone => "phone",
            Self::Address => "address",
        }
    }

    /// The type spelled `raw`, in any case and with surrounding blanks; `None` for anything else.
    pub fn parse(raw: &str) -> Option<Self> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "email" => Some(Self::Email),
            "phone" => Some(Self::Phone),
            "address" => Some(Self::Address),
            _ => None,
        }
    }
}

/// A postal address; after [`parse_address`], parts are trimmed, blank ones absent, and the country
/// an upper-case code.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Address {
    /// Street and number, at most 255 characters.
    pub street: Option<String>,
    /// City, at most 100 characters.
    pub city: Option<String>,
    /// State, region or province, at most 100 characters.
    pub state: Option<String>,
    /// Postal code, at most 20 characters.
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2; the adapter checks it exists in the reference data.
    pub country: String,
}

/// The value of a contact; only the one matching its type exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContactValue {
    /// A normalised email address.
    Email(Email),
    /// E.164, already validated by a phone-number library at the edge.
    Phone(String),
    /// A postal address, already through [`parse_address`].
    Address(Address),
}

impl ContactValue {
    /// The contact type this value belongs to.
    pub fn kind(&self) -> ContactType {
        match self {
            Self::Email(_) => ContactType::Email,
            Self::Phone(_) => ContactType::Phone,
            Self::Address(_) => ContactType::Address,
        }
    }

    /// Whether `contact` already holds exactly this (normalised) value.
    pub fn is_stored_in(&self, contact: &ContactRecord) -> bool {
        match self {
            Self::Email(email) => contact.email.as_deref() == Some(email.as_str()),
            Self::Phone(phone) => contact.phone.as_deref() == Some(phone.as_str()),
            Self::Address(address) => contact.address.as_ref() == Some(address),
        }
    }
}

fn optional_text(field: &'static str, value: Option<String>, max: usize) -> Result<Option<String>, IdentityError> {
    match value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()) {
        Some(v) if v.chars().count() > max => {
            Err(IdentityError::invalid(field, format!("must be at most {max} characters")))
        }
        other => Ok(other),
    }
}

/// Normalises an address: trims parts (blank ones become absent), upper-cases the country code.
/// `Invalid` names the part at fault: `address.country` when it is not two letters, or a part
/// over its length.
pub fn parse_address(raw: Address) -> Result<Address, IdentityError> {
    let country = raw.country.trim().to_ascii_uppercase();
    if country.len() != 2 || !country.chars().all(|c| c.is_ascii_uppercase()) {
        return Err(IdentityError::invalid("address.country", "must be an ISO 3166-1 alpha-2 code"));
    }
    Ok(Address {
        street: optional_text("address.street", raw.street, 255)?,
        city: optional_text("address.city", raw.city, 100)?,
        state: optional_text("address.state", raw.state, 100)?,
        postal_code: optional_text("address.postal_code", raw.postal_code, 20)?,
        country,
    })
}

/// A contact's label (`home`, `work`): trimmed free text of at most 100 characters; absent or blank
/// is the empty label.
pub fn parse_label(raw: Option<String>) -> Result<String, IdentityError> {
    Ok(optional_text("label", raw, 100)?.unwrap_or_default())
}

/// A stored contact. Only the value matching `contact_type` is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContactRecord {
    /// The contact's identity.
    pub id: Uuid,
    /// The owner; only they (through owner-scoped methods) see or change it.
    pub user_id: Uuid,
    /// Which of `email`, `phone`, `address` is set; never changes.
    pub contact_type: ContactType,
    /// The owner's label for it; may be empty.
    pub label: String,
    /// The address, for an email contact.
    pub email: Option<String>,
    /// The E.164 number, for a phone contact.
    pub phone: Option<String>,
    /// The postal address, for an address contact.
    pub address: Option<Address>,
    /// Whether it is the owner's primary contact of its type (at most one per type).
    pub is_primary: bool,
    /// Whether the value was verified; cleared when the value changes.
    pub is_verified: bool,
    /// Whether the owner lets others see it.
    pub is_public: bool,
    /// When the contact was created.
    pub created_at: OffsetDateTime,
    /// When the contact last changed.
    pub updated_at: OffsetDateTime,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

impl ContactRecord {
    /// The event `name` about this contact: the aggregate is the contact;
    /// the payload names it, its owner and its flags (never the value).
    pub fn event(&self, name: &'static str) -> EventEnvelope {
        let payload = crate::events::ContactChanged {
            contact_id: self.id,
            user_id: self.user_id,
            contact_type: self.contact_type.as_str().to_owned(),
            is_primary: self.is_primary,
            is_verified: self.is_verified,
            is_public: self.is_public,
        };
        EventEnvelope::with_payload(name, self.id, OffsetDateTime::now_utc(), &payload)
    }
}

/// A validated contact to store.
#[derive(Debug, Clone)]
pub struct NewContact {
    /// The identity chosen by the caller.
    pub id: Uuid,
    /// The owner.
    pub user_id: Uuid,
    /// The label, already through [`parse_label`].
    pub label: String,
    /// The value, whose kind is the contact's type.
    pub value: ContactValue,
    /// Make it its type's primary (un-marking the previous one).
    pub is_primary: bool,
    /// Let others see it.
    pub is_public: bool,
}

/// Validated changes; `None` leaves a field as it is. The type of a
/// contact never changes, so `value` must be of the stored type.
#[derive(Debug, Clone, Default)]
pub struct ContactChanges {
    /// A new label, already through [`parse_label`].
    pub label: Option<String>,
    /// A new value of the contact's own type.
    pub value: Option<ContactValue>,
    /// Make it (or stop it being) its type's primary.
    pub is_primary: Option<bool>,
    /// Show it to others, or hide it.
    pub is_public: Option<bool>,
}

impl ContactChanges {
    /// A new value is not the one that was verified, so
    /// changing it clears `is_verified`. Re-sending the stored value, or
    /// changing only `label`, `is_primary` or `is_public`, keeps it.
    pub fn clears_verification(&self, current: &ContactRecord) -> bool {
        self.value.as_ref().is_some_and(|value| !value.is_stored_in(current))
    }
}

/// Which of the owner's contacts `ContactRepository::list` returns; `None` fields filter nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContactFilter {
    /// Only contacts of this type.
    pub contact_type: Option<ContactType>,
    /// Only primary (`true`) or non-primary (`false`) contacts.
    pub is_primary: Option<bool>,
}

/// Contacts of a user. Every method is scoped to the owner `user_id`: a
/// contact of someone else, or a deleted one, is `RepoError::NotFound`.
/// Each change records its `identity.contact.*` event in its transaction.
///
/// Primary switches (create or update with `is_primary`, `set_primary`)
/// lock the owner's contacts of that type, un-mark the previous primary
/// (recording `identity.contact.updated` for it) and mark the new one in
/// one transaction; a unique index keeps at most one primary per type.
#[async_trait]
pub trait ContactRepository: Send + Sync {
    /// Records `identity.contact.created`. An unknown address country is
    /// `MissingReference { field: "country" }`.
    async fn create(&self, contact: NewContact) -> Result<ContactRecord, RepoError>;
    /// The owner's contacts, newest first.
    async fn list(&self, user_id: Uuid, filter: ContactFilter) -> Result<Vec<ContactRecord>, RepoError>;
    /// The owner's live contact `id`, if any.
    async fn find(&self, user_id: Uuid, id: Uuid) -> Result<Option<ContactRecord>, RepoError>;
    /// Records `identity.contact.updated`. A `value` of another type than
    /// the stored one matches nothing (`NotFound`); callers check first.
    /// When [`ContactChanges::clears_verification`] holds for the row as it
    /// is under the update's lock, the same `UPDATE` clears `is_verified`.
    async fn update(&self, user_id: Uuid, id: Uuid, changes: ContactChanges) -> Result<ContactRecord, RepoError>;
    /// Makes the contact its type's primary; records `identity.contact.updated`.
    async fn set_primary(&self, user_id: Uuid, id: Uuid) -> Result<ContactRecord, RepoError>;
    /// Marks it verified; records `identity.contact.verified` when it was not.
    async fn verify(&self, user_id: Uuid, id: Uuid) -> Result<ContactRecord, RepoError>;
    /// Soft delete; records `identity.contact.deleted`.
    async fn delete(&self, user_id: Uuid, id: Uuid) -> Result<(), RepoError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_labels() {
        let address =
            parse_address(Address { country: " ua ".into(), city: Some(" Kyiv ".into()), ..Address::default() })
                .expect("valid");
        assert_eq!((address.country.as_str(), address.city.as_deref()), ("UA", Some("Kyiv")));
        assert!(parse_address(Address { country: "UKR".into(), ..Address::default() }).is_err());
        assert!(parse_address(Address { country: "".into(), ..Address::default() }).is_err());
        assert!(parse_address(Address {
            country: "UA".into(),
            postal_code: Some("1".repeat(21)),
            ..Address::default()
        })
        .is_err());
        assert_eq!(parse_label(Some(" home ".into())), Ok("home".into()));
        assert_eq!(parse_label(None), Ok(String::new()));
        assert!(parse_label(Some("x".repeat(101))).is_err());
        assert_eq!(ContactType::parse("Phone"), Some(ContactType::Phone));
        assert_eq!(ContactType::parse("fax"), None);
        assert_eq!(ContactValue::Phone("+380441234567".into()).kind(), ContactType::Phone);
    }

    fn verified(contact_type: ContactType) -> ContactRecord {
        let at = time::macros::datetime!(2026-11-23 10:00 UTC);
        ContactRecord {
            version: 1,
            id: Uuid::nil(),
            user_id: Uuid::max(),
            contact_type,
            label: "home".into(),
            email: (contact_type == ContactType::Email).then(|| "ann@example.com".into()),
            phone: (contact_type == ContactType::Phone).then(|| "+380441234567".into()),
            address: (contact_type == ContactType::Address).then(|| Address {
                city: Some("Kyiv".into()),
                country: "UA".into(),
                ..Address::default()
            }),
            is_primary: false,
            is_verified: true,
            is_public: false,
            created_at: at,
            updated_at: at,
        }
    }

    #[test]
    fn a_changed_value_clears_verification_and_nothing_else_does() {
        let email = verified(ContactType::Email);
        let same = Email::parse(" Ann@Example.com ").expect("valid");
        let other = Email::parse("bob@example.com").expect("valid");
        let flags_only =
            ContactChanges { label: Some("work".into()), is_primary: Some(true), is_public: Some(true), value: None };
        assert!(!flags_only.clears_verification(&email));
        assert!(!ContactChanges::default().clears_verification(&email));
        let resent = ContactChanges { value: Some(ContactValue::Email(same)), ..ContactChanges::default() };
        assert!(!resent.clears_verification(&email), "the stored value, normalised, is no change");
        let changed = ContactChanges { value: Some(ContactValue::Email(other)), ..flags_only.clone() };
        assert!(changed.clears_verification(&email));

        let phone = verified(ContactType::Phone);
        let value = |p: &str| ContactChanges { value: Some(ContactValue::Phone(p.into())), ..Default::default() };
        assert!(!value("+380441234567").clears_verification(&phone));
        assert!(value("+380441234568").clears_verification(&phone));

        let address = verified(ContactType::Address);
        let stored = address.address.clone().expect("address");
        let same = ContactChanges { value: Some(ContactValue::Address(stored.clone())), ..Default::default() };
        assert!(!same.clears_verification(&address));
        for moved in [
            Address { city: Some("Lviv".into()), ..stored.clone() },
            Address { street: Some("Khreshchatyk 1".into()), ..stored.clone() },
            Address { country: "PL".into(), ..stored.clone() },
            Address { city: None, ..stored.clone() },
        ] {
            let changes = ContactChanges { value: Some(ContactValue::Address(moved)), ..Default::default() };
            assert!(changes.clears_verification(&address));
        }
    }
}
