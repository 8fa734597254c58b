//! [`ContactRepository`] in memory.

use async_trait::async_trait;
use uuid::Uuid;

use super::{InMemoryIdentity, State};
use crate::contact::{
    ContactChanges, ContactFilter, ContactRecord, ContactRepository, ContactType, ContactValue, NewContact,
};
use crate::events::{CONTACT_CREATED, CONTACT_DELETED, CONTACT_UPDATED, CONTACT_VERIFIED};
use crate::ports::RepoError;

/// The country no reference data knows, for tests of `MissingReference`.
pub(super) const UNKNOWN_COUNTRY: &str = "XX";

fn set_value(record: &mut ContactRecord, value: ContactValue) {
    match value {
        ContactValue::Email(email) => record.email = Some(email.into_string()),
        ContactValue::Phone(phone) => record.phone = Some(phone),
        ContactValue::Address(address) => record.address = Some(address),
    }
}

impl State {
    fn owned_contact(&mut self, owner: Uuid, id: Uuid) -> Result<&mut ContactRecord, RepoError> {
        match self.contacts.get_mut(&id) {
            Some((contact, false)) if contact.user_id == owner => Ok(contact),
            _ => Err(RepoError::NotFound),
        }
    }

    /// Un-marks the owner's primary of `kind` other than `keep`, recording its update.
    fn unmark_primary(&mut self, owner: Uuid, kind: ContactType, keep: Uuid) {
        let mut unmarked = Vec::new();
        for (contact, deleted) in self.contacts.values_mut() {
            if !*deleted
                && contact.user_id == owner
                && contact.contact_type == kind
                && contact.is_primary
                && contact.id != keep
            {
                contact.is_primary = false;
                contact.version += 1;
                unmarked.push(contact.event(CONTACT_UPDATED));
            }
        }
        self.events.extend(unmarked);
    }
}

fn check_country(value: Option<&ContactValue>) -> Result<(), RepoError> {
    match value {
        Some(ContactValue::Address(address)) if address.country == UNKNOWN_COUNTRY => {
            Err(RepoError::MissingReference { field: "country" })
        }
        _ => Ok(()),
    }
}

#[async_trait]
impl ContactRepository for InMemoryIdentity {
    async fn create(&self, contact: NewContact) -> Result<ContactRecord, RepoError> {
        check_country(Some(&contact.value))?;
        let now = self.now();
        let mut state = self.lock();
        if !state.users.contains_key(&contact.user_id) {
            return Err(RepoError::MissingReference { field: "user_id" });
        }
        let mut record = ContactRecord {
            id: contact.id,
            user_id: contact.user_id,
            contact_type: contact.value.kind(),
            label: contact.label,
            email: None,
            phone: None,
            address: None,
            is_primary: contact.is_primary,
            is_verified: false,
            is_public: contact.is_public,
            created_at: now,
            updated_at: now,
            version: 1,
        };
        set_value(&mut record, contact.value);
        if record.is_primary {
            state.unmark_primary(record.user_id, record.contact_type, record.id);
        }
        state.contacts.insert(record.id, (record.clone(), false));
        state.events.push(record.event(CONTACT_CREATED));
        Ok(record)
    }

    async fn list(&self, user_id: Uuid, filter: ContactFilter) -> Result<Vec<ContactRecord>, RepoError> {
        let mut contacts: Vec<ContactRecord> = self
            .lock()
            .contacts
            .values()
            .filter(|(c, deleted)| !deleted && c.user_id == user_id)
            .map(|(c, _)| c)
            .filter(|c| filter.contact_type.is_none_or(|t| c.contact_type == t))
            .filter(|c| filter.is_primary.is_none_or(|p| c.is_primary == p))
            .cloned()
            .collect();
        contacts.sort_by_key(|r| std::cmp::Reverse((r.created_at, r.id)));
        Ok(contacts)
    }

    async fn find(&self, user_id: Uuid, id: Uuid) -> Result<Option<ContactRecord>, RepoError> {
        Ok(self.lock().owned_contact(user_id, id).ok().map(|c| c.clone()))
    }

    async fn update(&self, user_id: Uuid, id: Uuid, changes: ContactChanges) -> Result<ContactRecord, RepoError> {
        check_country(changes.value.as_ref())?;
        let now = self.now();
        let mut state = self.lock();
        let current = state.owned_contact(user_id, id)?.clone();
        if changes.value.as_ref().is_some_and(|v| v.kind() != current.contact_type) {
            return Err(RepoError::NotFound);
        }
        if changes.is_primary == Some(true) {
            state.unmark_primary(user_id, current.contact_type, id);
        }
        let clears = changes.clears_verification(&current);
        let contact = state.owned_contact(user_id, id)?;
        if let Some(label) = changes.label {
            contact.label = label;
        }
        if let Some(value) = changes.value {
            set_value(contact, value);
        }
        if let Some(primary) = changes.is_primary {
            contact.is_primary = primary;
        }
        if let Some(public) = changes.is_public {
            contact.is_public = public;
        }
        if clears {
            contact.is_verified = false;
        }
        contact.version += 1;
        contact.updated_at = now;
        let contact = contact.clone();
        state.events.push(contact.event(CONTACT_UPDATED));
        Ok(contact)
    }

    async fn set_primary(&self, user_id: Uuid, id: Uuid) -> Result<ContactRecord, RepoError> {
        let changes = ContactChanges { is_primary: Some(true), ..ContactChanges::default() };
        ContactRepository::update(self, user_id, id, changes).await
    }

    async fn verify(&self, user_id: Uuid, id: Uuid) -> Result<ContactRecord, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let contact = state.owned_contact(user_id, id)?;
        if contact.is_verified {
            return Ok(contact.clone());
        }
        contact.is_verified = true;
        contact.version += 1;
        contact.updated_at = now;
        let contact = contact.clone();
        state.events.push(contact.event(CONTACT_VERIFIED));
        Ok(contact)
    }

    async fn delete(&self, user_id: Uuid, id: Uuid) -> Result<(), RepoError> {
        let mut state = self.lock();
        let contact = state.owned_contact(user_id, id)?.clone();
        if let Some(entry) = state.contacts.get_mut(&id) {
            entry.1 = true;
        }
        state.events.push(contact.event(CONTACT_DELETED));
        Ok(())
    }
}
