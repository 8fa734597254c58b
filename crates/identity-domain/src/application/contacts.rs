//! A user's contacts (docs/contacts-and-profiles.md): typed values, one primary per type; someone
//! else's contact does not exist for the caller.

use std::sync::Arc;

use tracing::instrument;
use uuid::Uuid;

use super::ports::PhoneNumbers;
use super::IdentityPorts;
use crate::contact::{
    parse_address, parse_label, Address, ContactChanges, ContactFilter, ContactRecord, ContactRepository, ContactType,
    ContactValue, NewContact,
};
use crate::credentials::Email;
use crate::ports::RepoError;
use crate::{IdentityError, Missing};

/// A postal address as sent.
#[derive(Debug, Clone, Default)]
pub struct AddressInput {
    /// Street and number.
    pub street: Option<String>,
    /// City.
    pub city: Option<String>,
    /// State, region or province.
    pub state: Option<String>,
    /// Postal code.
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2; required.
    pub country: Option<String>,
}

/// A contact as sent, to create (type and value required) or to change (anything may be absent).
#[derive(Debug, Clone, Default)]
pub struct ContactInput {
    /// `email`, `phone` or `address`; a contact's type never changes.
    pub contact_type: Option<String>,
    /// The owner's label for it.
    pub label: Option<String>,
    /// The value of an email contact.
    pub email: Option<String>,
    /// The value of a phone contact.
    pub phone: Option<String>,
    /// The value of an address contact.
    pub address: Option<AddressInput>,
    /// Make it (or stop it being) its type's primary.
    pub is_primary: Option<bool>,
    /// Show it to others, or hide it.
    pub is_public: Option<bool>,
}

/// The type spelled `raw`; `Invalid { field: "type" }` otherwise.
pub fn parse_type(raw: &str) -> Result<ContactType, IdentityError> {
    ContactType::parse(raw).ok_or_else(|| IdentityError::invalid("type", "must be email, phone or address"))
}

fn value_field(kind: ContactType) -> &'static str {
    match kind {
        ContactType::Email => "email",
        ContactType::Phone => "phone",
        ContactType::Address => "address",
    }
}

fn repo_error(error: RepoError) -> IdentityError {
    match error {
        RepoError::NotFound => IdentityError::NotFound(Missing::Contact),
        RepoError::MissingReference { field: "country" } => {
            IdentityError::invalid("address.country", "must be a country code from the reference data")
        }
        other => other.into(),
    }
}

/// Contacts of the calling user.
#[derive(Clone)]
pub struct Contacts {
    contacts: Arc<dyn ContactRepository>,
    phones: Arc<dyn PhoneNumbers>,
}

impl Contacts {
    /// The service over `ports`.
    pub fn new(ports: &IdentityPorts) -> Self {
        Self { contacts: ports.contacts.clone(), phones: ports.phones.clone() }
    }

    /// The value of a contact of `kind`: values of other types are refused, the own one parsed;
    /// `None` when not given.
    fn value_of(&self, kind: ContactType, input: &mut ContactInput) -> Result<Option<ContactValue>, IdentityError> {
        for (field, given, of) in [
            ("email", input.email.is_some(), ContactType::Email),
            ("phone", input.phone.is_some(), ContactType::Phone),
            ("address", input.address.is_some(), ContactType::Address),
        ] {
            if given && of != kind {
                return Err(IdentityError::invalid(
                    field,
                    format!("does not apply to a contact of type {}", kind.as_str()),
                ));
            }
        }
        Ok(match kind {
            ContactType::Email => input.email.take().map(|e| Email::parse(&e)).transpose()?.map(ContactValue::Email),
            ContactType::Phone => {
                input.phone.take().map(|p| self.phones.normalise(&p)).transpose()?.map(ContactValue::Phone)
            }
            ContactType::Address => match input.address.take() {
                None => None,
                Some(a) => {
                    let country = a.country.ok_or_else(|| IdentityError::invalid("address.country", "is required"))?;
                    let address =
                        Address { street: a.street, city: a.city, state: a.state, postal_code: a.postal_code, country };
                    Some(ContactValue::Address(parse_address(address)?))
                }
            },
        })
    }

    /// Adds a contact of the owner's. Checked in this order: the type, the value (of that type, and
    /// given), the label; an unknown country is `Invalid { field: "address.country" }`.
    #[instrument(skip_all, fields(user_id = %owner))]
    pub async fn create(&self, owner: Uuid, mut input: ContactInput) -> Result<ContactRecord, IdentityError> {
        let kind = parse_type(input.contact_type.as_deref().unwrap_or_default())?;
        let value = self.value_of(kind, &mut input)?.ok_or_else(|| {
            IdentityError::invalid(value_field(kind), format!("is required for a contact of type {}", kind.as_str()))
        })?;
        let label = parse_label(input.label)?;
        let contact = NewContact {
            id: shared_kernel::new_id(),
            user_id: owner,
            label,
            value,
            is_primary: input.is_primary.unwrap_or(false),
            is_public: input.is_public.unwrap_or(false),
        };
        self.contacts.create(contact).await.map_err(repo_error)
    }

    /// The owner's contacts, newest first, filtered by a type spelled `contact_type` (blank: any).
    #[instrument(skip_all, fields(user_id = %owner))]
    pub async fn list(
        &self,
        owner: Uuid,
        contact_type: Option<&str>,
        is_primary: Option<bool>,
    ) -> Result<Vec<ContactRecord>, IdentityError> {
        let contact_type = contact_type.map(str::trim).filter(|t| !t.is_empty()).map(parse_type).transpose()?;
        self.contacts.list(owner, ContactFilter { contact_type, is_primary }).await.map_err(repo_error)
    }

    /// The owner's contact `id`.
    #[instrument(skip_all, fields(user_id = %owner, contact_id = %id))]
    pub async fn find(&self, owner: Uuid, id: Uuid) -> Result<ContactRecord, IdentityError> {
        self.contacts.find(owner, id).await.map_err(repo_error)?.ok_or(IdentityError::NotFound(Missing::Contact))
    }

    /// Changes the owner's contact. Checked in this order: the contact exists; a type sent is its
    /// own; the label; the value. A new value clears the verification.
    #[instrument(skip_all, fields(user_id = %owner, contact_id = %id))]
    pub async fn update(&self, owner: Uuid, id: Uuid, mut input: ContactInput) -> Result<ContactRecord, IdentityError> {
        let kind = self.find(owner, id).await?.contact_type;
        if let Some(raw) = input.contact_type.as_deref() {
            if parse_type(raw)? != kind {
                return Err(IdentityError::invalid("type", "the type of a contact cannot change"));
            }
        }
        let label = input.label.take().map(|l| parse_label(Some(l))).transpose()?;
        let changes = ContactChanges {
            label,
            value: self.value_of(kind, &mut input)?,
            is_primary: input.is_primary,
            is_public: input.is_public,
        };
        self.contacts.update(owner, id, changes).await.map_err(repo_error)
    }

    /// Deletes the owner's contact.
    #[instrument(skip_all, fields(user_id = %owner, contact_id = %id))]
    pub async fn delete(&self, owner: Uuid, id: Uuid) -> Result<(), IdentityError> {
        self.contacts.delete(owner, id).await.map_err(repo_error)
    }

    /// Marks the owner's contact verified (the code is not checked yet).
    #[instrument(skip_all, fields(user_id = %owner, contact_id = %id))]
    pub async fn verify(&self, owner: Uuid, id: Uuid) -> Result<ContactRecord, IdentityError> {
        self.contacts.verify(owner, id).await.map_err(repo_error)
    }

    /// Makes the owner's contact the primary of its type.
    #[instrument(skip_all, fields(user_id = %owner, contact_id = %id))]
    pub async fn set_primary(&self, owner: Uuid, id: Uuid) -> Result<ContactRecord, IdentityError> {
        self.contacts.set_primary(owner, id).await.map_err(repo_error)
    }
}
