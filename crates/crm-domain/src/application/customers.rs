//! Customer use cases: create, read, edit the plain fields, assign, tag, delete. The status and tier
//! moves are in `customer_lifecycle.rs`.

use std::sync::Arc;

use shared_kernel::application::{settle_edit, Attempt, Clock};
use shared_kernel::StorageError;
use uuid::Uuid;

use super::error::or_missing;
use super::{active_user, any_user, CrmError, CrmPorts};
use crate::customer::{Customer, CustomerChanges, CustomerCreated, CustomerError, NewCustomer};
use crate::ports::{CompanyRepository, CustomerRepository, PhoneNumbers, UserDirectory};

/// The customer use cases.
#[derive(Clone)]
pub struct CustomerService {
    pub(super) customers: Arc<dyn CustomerRepository>,
    companies: Arc<dyn CompanyRepository>,
    users: Arc<dyn UserDirectory>,
    phones: Arc<dyn PhoneNumbers>,
    pub(super) clock: Arc<dyn Clock>,
}

/// A phone as sent, in E.164 form; blank (or none) is no phone, anything else `InvalidPhone`.
fn e164(phones: &dyn PhoneNumbers, raw: Option<String>) -> Result<Option<String>, CrmError> {
    match raw.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        Some(text) => phones.to_e164(text).map(Some).ok_or(CrmError::InvalidPhone),
        None => Ok(None),
    }
}

impl CustomerService {
    /// The service over `ports`.
    pub fn new(ports: &CrmPorts) -> Self {
        Self {
            customers: ports.customers.clone(),
            companies: ports.companies.clone(),
            users: ports.users.clone(),
            phones: ports.phones.clone(),
            clock: ports.clock.clone(),
        }
    }

    /// Creates a customer: the aggregate's rules first, then the references it names in this order:
    /// its company (`NOT_FOUND` naming `company_id`), its sales rep (an active user, `assigned_to`),
    /// its user account (`user_id`). The row, its first history row and `customer.created` are saved
    /// together; a taken email is `Conflict { field: "email" }`. The phone, as sent, is checked and
    /// stored in E.164 form before everything else (`InvalidPhone`; blank is no phone).
    #[tracing::instrument(skip_all, fields(company_id = ?input.company_id, user_id = ?input.user_id))]
    pub async fn create(&self, input: NewCustomer) -> Result<Customer, CrmError> {
        let created = self.checked(input).await?;
        Ok(self.customers.create(&created).await?)
    }

    /// Creates several customers (a bulk import's batch), each by [`CustomerService::create`]'s
    /// rules and answered as it would be, in `inputs`' order; those that pass are saved together
    /// (`CustomerRepository::create_many`).
    #[tracing::instrument(skip_all, fields(customers = inputs.len()))]
    pub async fn create_many(&self, inputs: Vec<NewCustomer>) -> Vec<Result<Customer, CrmError>> {
        let mut answers: Vec<Option<Result<Customer, CrmError>>> = Vec::with_capacity(inputs.len());
        let (mut ready, mut slots) = (Vec::new(), Vec::new());
        for input in inputs {
            match self.checked(input).await {
                Ok(created) => {
                    slots.push(answers.len());
                    ready.push(created);
                    answers.push(None);
                }
                Err(refused) => answers.push(Some(Err(refused))),
            }
        }
        for (slot, saved) in slots.into_iter().zip(self.customers.create_many(&ready).await) {
            answers[slot] = Some(saved.map_err(CrmError::from));
        }
        answers.into_iter().map(|answer| answer.unwrap_or(Err(CrmError::Storage(StorageError::NotFound)))).collect()
    }

    /// A new customer by the creation's rules: the phone, the aggregate's rules, then the references
    /// it names (see [`CustomerService::create`]).
    async fn checked(&self, mut input: NewCustomer) -> Result<CustomerCreated, CrmError> {
        input.phone = e164(&*self.phones, input.phone)?;
        let created = Customer::new(input, self.clock.now())?;
        let customer = &created.customer;
        if let Some(company) = customer.company_id {
            if self.companies.find_by_id(company).await?.is_none() {
                return Err(CrmError::CompanyNotFound { field: Some("company_id") });
            }
        }
        if let Some(rep) = customer.assigned_to {
            active_user(&*self.users, rep, "assigned_to").await?;
        }
        if let Some(user) = customer.user_id {
            any_user(&*self.users, user, "user_id").await?;
        }
        Ok(created)
    }

    /// The live customer `id`, or `CustomerNotFound`.
    #[tracing::instrument(skip_all, fields(customer_id = %id))]
    pub async fn get(&self, id: Uuid) -> Result<Customer, CrmError> {
        self.customers.find_by_id(id).await?.ok_or(CrmError::CustomerNotFound)
    }

    /// Edits the name, phone and tags; absent changes keep their field. A phone, as sent, is checked
    /// and put in E.164 form first, before the customer is read (`InvalidPhone`; blank clears it).
    #[tracing::instrument(skip_all, fields(customer_id = %id))]
    pub async fn update_details(&self, id: Uuid, mut changes: CustomerChanges) -> Result<Customer, CrmError> {
        changes.phone = changes.phone.map(|phone| e164(&*self.phones, phone)).transpose()?;
        let read = self.get(id).await?;
        self.edit(read, |customer, now| customer.update_details(changes.clone(), now)).await
    }

    /// Puts `rep` (an active user) in charge, or nobody: the customer is checked first, then the rep.
    #[tracing::instrument(skip_all, fields(customer_id = %id, assigned_to = ?rep))]
    pub async fn assign(&self, id: Uuid, rep: Option<Uuid>) -> Result<Customer, CrmError> {
        let read = self.get(id).await?;
        if let Some(rep) = rep {
            active_user(&*self.users, rep, "assigned_to").await?;
        }
        self.edit(read, |customer, now| Ok(customer.assign(rep, now))).await
    }

    /// Replaces the tags.
    #[tracing::instrument(skip_all, fields(customer_id = %id))]
    pub async fn set_tags(&self, id: Uuid, tags: Vec<String>) -> Result<Customer, CrmError> {
        let read = self.get(id).await?;
        self.edit(read, |customer, now| customer.set_tags(tags.clone(), now)).await
    }

    /// Soft-deletes the customer (its email is free again).
    #[tracing::instrument(skip_all, fields(customer_id = %id))]
    pub async fn delete(&self, id: Uuid) -> Result<(), CrmError> {
        let now = self.clock.now();
        self.customers.soft_delete(id, now).await.map_err(or_missing(CrmError::CustomerNotFound))
    }

    /// Saves the plain fields `decide` makes of `read` over the version it was read at; a change made
    /// meanwhile is re-read and the edit decided again, so a concurrent edit of another field (an
    /// assignment racing a rename) is never undone.
    async fn edit(
        &self,
        read: Customer,
        decide: impl Fn(&Customer, time::OffsetDateTime) -> Result<Customer, CustomerError>,
    ) -> Result<Customer, CrmError> {
        let (id, decide) = (read.id, &decide);
        settle_edit(
            read,
            || self.get(id),
            |customer| async move {
                let next = decide(&customer, self.clock.now())?;
                match self.customers.update(&next).await {
                    Err(crate::RepoError::NotFound) => Err(CrmError::CustomerNotFound),
                    saved => Attempt::of(saved),
                }
            },
        )
        .await
    }
}
