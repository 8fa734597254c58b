//! Customer aggregate: who we sell to, and where they stand in the lifecycle.
//!
//! Operations take `&self` and return the next state (plus history and events where the change is
//! recorded), so a failed save never leaves a half-changed value behind. Status and tier changes go
//! through `lifecycle.rs` and `tier.rs`; this file holds creation and the plain edits.

mod lifecycle;
mod tier;

pub use lifecycle::{StatusChange, StatusMove, StatusTransition};
pub use tier::TierChange;

use shared_kernel::error::{Classified, ErrorKind};
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::email::{Email, InvalidEmail};
use crate::enums::{CustomerStatus, CustomerType, Tier};
use crate::error::FieldError;
use crate::events::{self, Topic};
use crate::validate::{optional_text, required_text, tags};

/// The longest customer name, in characters after trimming.
pub const MAX_NAME_CHARS: usize = 255;
/// The longest phone text, in characters (the E.164 rule is `application::CustomerService`'s).
pub const MAX_PHONE_CHARS: usize = 50;
/// The longest `source` (where the customer came from), in characters.
pub const MAX_SOURCE_CHARS: usize = 100;

/// Why a customer operation was refused; [`Classified`] gives each case its kind and wire code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CustomerError {
    /// `VALIDATION_ERROR` 400; `field` goes into `details`.
    #[error("{field}: {message}")]
    Invalid {
        /// The request field at fault.
        field: &'static str,
        /// The rule it broke.
        message: String,
    },
    /// `INVALID_EMAIL` 400.
    #[error("email is not a valid address")]
    InvalidEmail,
    /// `INVALID_STATUS_TRANSITION` 409.
    #[error("a customer cannot move from {from} to {to}")]
    InvalidStatusTransition {
        /// The customer's current status.
        from: CustomerStatus,
        /// The status the move would reach.
        to: CustomerStatus,
    },
    /// `INVALID_TIER_CHANGE` 409: only upgrades are allowed.
    #[error("tier can only be upgraded; {from} to {to} is not an upgrade")]
    InvalidTierChange {
        /// The customer's current tier.
        from: Tier,
        /// The tier asked for, not above `from`.
        to: Tier,
    },
}

impl CustomerError {
    /// The request field at fault, for the error's `details`.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            CustomerError::Invalid { field, .. } => Some(field),
            CustomerError::InvalidEmail => Some("email"),
            CustomerError::InvalidStatusTransition { .. } | CustomerError::InvalidTierChange { .. } => None,
        }
    }
}

impl Classified for CustomerError {
    fn kind(&self) -> ErrorKind {
        match self {
            CustomerError::Invalid { .. } | CustomerError::InvalidEmail => ErrorKind::Validation,
            CustomerError::InvalidStatusTransition { .. } | CustomerError::InvalidTierChange { .. } => {
                ErrorKind::Conflict
            }
        }
    }

    fn code(&self) -> &'static str {
        match self {
            CustomerError::Invalid { .. } => "VALIDATION_ERROR",
            CustomerError::InvalidEmail => "INVALID_EMAIL",
            CustomerError::InvalidStatusTransition { .. } => "INVALID_STATUS_TRANSITION",
            CustomerError::InvalidTierChange { .. } => "INVALID_TIER_CHANGE",
        }
    }
}

impl From<FieldError> for CustomerError {
    fn from(e: FieldError) -> Self {
        CustomerError::Invalid { field: e.field, message: e.message }
    }
}

impl From<InvalidEmail> for CustomerError {
    fn from(_: InvalidEmail) -> Self {
        CustomerError::InvalidEmail
    }
}

/// A customer as stored. Build one with [`Customer::new`]; adapters fill the fields when loading rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Customer {
    /// The customer's identity.
    pub id: Uuid,
    /// The user account this customer is (one customer per user); exclusive with `company_id`.
    pub user_id: Option<Uuid>,
    /// The company this customer is a contact of; exclusive with `user_id`.
    pub company_id: Option<Uuid>,
    /// The customer's name, trimmed, 1..=[`MAX_NAME_CHARS`] characters.
    pub name: String,
    /// The normalised address; unique among live customers of the same company (or of none).
    pub email: Email,
    /// In E.164 form (`application::CustomerService` stores it so, through the `PhoneNumbers` port).
    pub phone: Option<String>,
    /// Where the customer stands in the lifecycle; changes only through the status moves.
    pub status: CustomerStatus,
    /// The subscription tier; changes only by upgrade.
    pub tier: Tier,
    /// Where the customer came from (`website`, `fair`), free text.
    pub source: Option<String>,
    /// The sales rep in charge (an active user), if any; one at a time.
    pub assigned_to: Option<Uuid>,
    /// Normalised tags (shared kernel rule: trimmed, distinct, at most 50 of 1..=50 characters).
    pub tags: Vec<String>,
    /// When the customer was created.
    pub created_at: OffsetDateTime,
    /// When the customer last changed.
    pub updated_at: OffsetDateTime,
    /// When the customer churned; set exactly while the status is `churned`.
    pub churned_at: Option<OffsetDateTime>,
    /// When the customer was soft-deleted; repositories never return deleted customers.
    pub deleted_at: Option<OffsetDateTime>,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

/// Raw creation input; `Customer::new` validates all of it.
#[derive(Debug, Clone, Default)]
pub struct NewCustomer {
    /// The user account the customer is; not together with `company_id`.
    pub user_id: Option<Uuid>,
    /// The company the customer belongs to; not together with `user_id`.
    pub company_id: Option<Uuid>,
    /// The name, trimmed to 1..=[`MAX_NAME_CHARS`] characters.
    pub name: String,
    /// The email as sent; parsed with the shared rule.
    pub email: String,
    /// As sent; `application::CustomerService` puts it in E.164 form (its `PhoneNumbers` port) before
    /// the rules; here only its length is checked.
    pub phone: Option<String>,
    /// Any status may be given on create; default `lead`.
    pub status: Option<CustomerStatus>,
    /// Default `free`.
    pub tier: Option<Tier>,
    /// At most [`MAX_SOURCE_CHARS`] characters; blank means none.
    pub source: Option<String>,
    /// The sales rep in charge; whether the user is active is the caller's check.
    pub assigned_to: Option<Uuid>,
    /// Raw tags, normalised by the shared tag rule.
    pub tags: Vec<String>,
}

/// A new customer with the first history row (`from: None`) and `customer.created`; save all of it
/// with `CustomerRepository::create`.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomerCreated {
    /// The new customer, version 1.
    pub customer: Customer,
    /// The first status history row.
    pub history: StatusChange,
    /// `customer.created`, to record in the outbox with the row.
    pub events: Vec<EventEnvelope>,
}

/// `PUT /customers/:id`: absent fields stay; `phone: Some(None)` clears the phone.
#[derive(Debug, Clone, Default)]
pub struct CustomerChanges {
    /// A new name, 1..=[`MAX_NAME_CHARS`] characters.
    pub name: Option<String>,
    /// A new phone (`Some(Some)`), or none (`Some(None)`, or blank).
    pub phone: Option<Option<String>>,
    /// A new tag list, replacing the old one.
    pub tags: Option<Vec<String>>,
}

impl Customer {
    /// Validates `input` into a new customer (fresh id, version 1, created and updated at `now`,
    /// `churned_at = now` when created `churned`), with its first history row and `customer.created`.
    /// Refusals: `Invalid` naming `name`, `phone`, `source`, `tags` or `company_id` (both `user_id`
    /// and `company_id` given), or `InvalidEmail`.
    #[expect(clippy::new_ret_no_self, reason = "creation also yields the history row and events to store with it")]
    pub fn new(input: NewCustomer, now: OffsetDateTime) -> Result<CustomerCreated, CustomerError> {
        let name = required_text("name", &input.name, MAX_NAME_CHARS)?;
        let email = Email::parse(&input.email)?;
        let phone = optional_text("phone", input.phone, MAX_PHONE_CHARS)?;
        let source = optional_text("source", input.source, MAX_SOURCE_CHARS)?;
        let tags = tags("tags", input.tags)?;
        if input.user_id.is_some() && input.company_id.is_some() {
            return Err(FieldError::new("company_id", "a customer cannot have both user_id and company_id").into());
        }
        let status = input.status.unwrap_or_default();
        let customer = Customer {
            version: 1,
            id: shared_kernel::new_id(),
            user_id: input.user_id,
            company_id: input.company_id,
            name,
            email,
            phone,
            status,
            tier: input.tier.unwrap_or_default(),
            source,
            assigned_to: input.assigned_to,
            tags,
            created_at: now,
            updated_at: now,
            churned_at: (status == CustomerStatus::Churned).then_some(now),
            deleted_at: None,
        };
        let history = StatusChange { from: None, to: status, reason: None, at: now };
        let created = events::CustomerCreated {
            customer_id: customer.id,
            status: status.as_str().to_owned(),
            email: customer.email.clone(),
            timestamp: now,
        }
        .to_event(customer.id, now);
        Ok(CustomerCreated { customer, history, events: vec![created] })
    }

    /// `individual` without a company, `company` with one.
    pub fn customer_type(&self) -> CustomerType {
        if self.company_id.is_some() {
            CustomerType::Company
        } else {
            CustomerType::Individual
        }
    }

    /// The customer with the given plain fields changed and `updated_at = now`; save with
    /// `CustomerRepository::update`. `Invalid` names the first field that breaks its rule.
    pub fn update_details(&self, changes: CustomerChanges, now: OffsetDateTime) -> Result<Customer, CustomerError> {
        let mut next = self.clone();
        if let Some(name) = changes.name {
            next.name = required_text("name", &name, MAX_NAME_CHARS)?;
        }
        if let Some(phone) = changes.phone {
            next.phone = optional_text("phone", phone, MAX_PHONE_CHARS)?;
        }
        if let Some(raw) = changes.tags {
            next.tags = tags("tags", raw)?;
        }
        next.updated_at = now;
        Ok(next)
    }

    /// `PUT /customers/:id/tags`: replaces the whole list.
    pub fn set_tags(&self, raw: Vec<String>, now: OffsetDateTime) -> Result<Customer, CustomerError> {
        self.update_details(CustomerChanges { tags: Some(raw), ..CustomerChanges::default() }, now)
    }

    /// Assigns a sales rep (replacing any previous one: one at a time), or unassigns with `None`.
    /// Whether the user exists and is active is the caller's check.
    #[must_use]
    pub fn assign(&self, sales_rep: Option<Uuid>, now: OffsetDateTime) -> Customer {
        Customer { assigned_to: sales_rep, updated_at: now, ..self.clone() }
    }

    /// Links the user account this customer belongs to (the `identity.user.registered` subscriber);
    /// `Invalid { field: "user_id" }` for a company's customer.
    pub fn link_user(&self, user_id: Uuid, now: OffsetDateTime) -> Result<Customer, CustomerError> {
        if self.company_id.is_some() {
            return Err(FieldError::new("user_id", "a customer cannot have both user_id and company_id").into());
        }
        Ok(Customer { user_id: Some(user_id), updated_at: now, ..self.clone() })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;
    use time::macros::datetime;

    pub(crate) const NOW: OffsetDateTime = datetime!(2026-03-01 10:00 UTC);
    pub(crate) const LATER: OffsetDateTime = datetime!(2026-03-02 09:30 UTC);

    pub(crate) fn input() -> NewCustomer {
        NewCustomer { name: "Ada Lovelace".into(), email: " Ada@Example.com ".into(), ..NewCustomer::default() }
    }

    pub(crate) fn customer_in(status: CustomerStatus) -> Customer {
        Customer::new(NewCustomer { status: Some(status), ..input() }, NOW).expect("valid").customer
    }

    fn field_of(result: Result<CustomerCreated, CustomerError>) -> Option<&'static str> {
        result.expect_err("rejected").field()
    }

    #[test]
    fn creates_with_defaults_history_and_event() {
        let created = Customer::new(input(), NOW).expect("valid");
        let c = &created.customer;
        assert_eq!((c.status, c.tier, c.email.as_str()), (CustomerStatus::Lead, Tier::Free, "ada@example.com"));
        assert_eq!((c.created_at, c.updated_at, c.churned_at, c.deleted_at), (NOW, NOW, None, None));
        assert_eq!(c.customer_type(), CustomerType::Individual);
        assert_eq!(created.history, StatusChange { from: None, to: CustomerStatus::Lead, reason: None, at: NOW });
        assert_eq!(created.events.len(), 1);
        let event = &created.events[0];
        assert_eq!((event.name.as_str(), event.aggregate_id, event.occurred_at), ("customer.created", c.id, NOW));
        assert_eq!(
            event.data,
            json!({"customer_id": c.id, "status": "lead", "email": "ada@example.com", "timestamp": "2026-03-01T10:00:00Z"})
        );
    }

    #[test]
    fn creates_in_a_requested_status() {
        let created = Customer::new(NewCustomer { status: Some(CustomerStatus::Churned), ..input() }, NOW);
        let created = created.expect("valid");
        assert_eq!(created.customer.churned_at, Some(NOW));
        assert_eq!(created.history.to, CustomerStatus::Churned);
        assert_eq!(created.events[0].data["status"], "churned");
    }

    #[test]
    fn name_limit_is_255_characters() {
        let ok = Customer::new(NewCustomer { name: "é".repeat(255), ..input() }, NOW);
        assert_eq!(ok.expect("valid").customer.name.chars().count(), 255);
        assert_eq!(field_of(Customer::new(NewCustomer { name: "a".repeat(256), ..input() }, NOW)), Some("name"));
        assert_eq!(field_of(Customer::new(NewCustomer { name: "  ".into(), ..input() }, NOW)), Some("name"));
    }

    #[test]
    fn phone_and_source_limits() {
        let ok = NewCustomer { phone: Some("1".repeat(50)), source: Some("s".repeat(100)), ..input() };
        assert!(Customer::new(ok, NOW).is_ok());
        let phone = NewCustomer { phone: Some("1".repeat(51)), ..input() };
        assert_eq!(field_of(Customer::new(phone, NOW)), Some("phone"));
        let source = NewCustomer { source: Some("s".repeat(101)), ..input() };
        assert_eq!(field_of(Customer::new(source, NOW)), Some("source"));
        let blank = Customer::new(NewCustomer { phone: Some(" ".into()), source: Some("".into()), ..input() }, NOW);
        let blank = blank.expect("valid").customer;
        assert_eq!((blank.phone, blank.source), (None, None));
    }

    #[test]
    fn email_is_validated() {
        let bad = Customer::new(NewCustomer { email: "not-an-email".into(), ..input() }, NOW);
        let error = bad.expect_err("rejected");
        assert_eq!(
            (error.code(), error.kind(), error.field()),
            ("INVALID_EMAIL", ErrorKind::Validation, Some("email"))
        );
    }

    #[test]
    fn tags_are_normalised() {
        let created =
            Customer::new(NewCustomer { tags: vec![" vip ".into(), "vip".into(), "b2b".into()], ..input() }, NOW);
        assert_eq!(created.expect("valid").customer.tags, vec!["vip", "b2b"]);
        let too_long = NewCustomer { tags: vec!["x".repeat(51)], ..input() };
        assert_eq!(field_of(Customer::new(too_long, NOW)), Some("tags"));
    }

    #[test]
    fn user_and_company_are_exclusive() {
        let both = NewCustomer { user_id: Some(Uuid::nil()), company_id: Some(Uuid::max()), ..input() };
        let error = Customer::new(both, NOW).expect_err("rejected");
        assert_eq!((error.code(), error.field()), ("VALIDATION_ERROR", Some("company_id")));
        let company = Customer::new(NewCustomer { company_id: Some(Uuid::max()), ..input() }, NOW).expect("valid");
        assert_eq!(company.customer.customer_type(), CustomerType::Company);
        assert_eq!(company.customer.link_user(Uuid::nil(), LATER).expect_err("rejected").field(), Some("user_id"));
    }

    #[test]
    fn edits_validate_and_touch_updated_at() {
        let customer = customer_in(CustomerStatus::Lead);
        let changes =
            CustomerChanges { name: Some(" Ada King ".into()), phone: Some(Some("+380441234567".into())), tags: None };
        let edited = customer.update_details(changes, LATER).expect("valid");
        assert_eq!((edited.name.as_str(), edited.phone.as_deref()), ("Ada King", Some("+380441234567")));
        assert_eq!((edited.updated_at, edited.created_at), (LATER, NOW));
        let cleared = edited.update_details(CustomerChanges { phone: Some(None), ..Default::default() }, LATER);
        assert_eq!(cleared.expect("valid").phone, None);
        let bad = customer.update_details(CustomerChanges { name: Some("a".repeat(256)), ..Default::default() }, LATER);
        assert_eq!(bad.expect_err("rejected").field(), Some("name"));
        let tagged = customer.set_tags(vec!["a".into(), " a ".into()], LATER).expect("valid");
        assert_eq!(tagged.tags, vec!["a"]);
        assert!(customer.set_tags(vec!["".into()], LATER).is_err());
    }

    #[test]
    fn assigns_and_unassigns_one_rep() {
        let customer = customer_in(CustomerStatus::Lead);
        let rep = Uuid::max();
        let assigned = customer.assign(Some(rep), LATER);
        assert_eq!((assigned.assigned_to, assigned.updated_at), (Some(rep), LATER));
        assert_eq!(assigned.assign(None, LATER).assigned_to, None);
        let linked = customer.link_user(rep, LATER).expect("individual");
        assert_eq!(linked.user_id, Some(rep));
    }
}
