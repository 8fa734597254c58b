//! Interaction use cases: log one, edit it (content, outcome, end, follow-up, attendees), delete it,
//! and the lists of a customer's or a company's interactions (which check that it exists).

use std::sync::Arc;

use shared_kernel::application::{settle_edit, until_settled, Attempt, Clock};
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{any_user, CrmError, CrmPorts};
use crate::enums::Outcome;
use crate::interaction::{Interaction, InteractionError, NewInteraction};
use crate::ports::{
    CompanyRepository, CustomerRepository, FollowUpFilter, InteractionFilter, InteractionRepository, InteractionView,
    UserDirectory,
};
use crate::RepoError;

/// The interaction use cases.
#[derive(Clone)]
pub struct InteractionService {
    interactions: Arc<dyn InteractionRepository>,
    customers: Arc<dyn CustomerRepository>,
    companies: Arc<dyn CompanyRepository>,
    users: Arc<dyn UserDirectory>,
    clock: Arc<dyn Clock>,
}

impl InteractionService {
    /// The service over `ports`.
    pub fn new(ports: &CrmPorts) -> Self {
        Self {
            interactions: ports.interactions.clone(),
            customers: ports.customers.clone(),
            companies: ports.companies.clone(),
            users: ports.users.clone(),
            clock: ports.clock.clone(),
        }
    }

    /// Logs an interaction: the aggregate's rules, then its customer (`CUSTOMER_NOT_FOUND`), then
    /// the company it names (`NOT_FOUND` naming `company_id`); without one it takes its customer's.
    /// Every attendee must be a user (`MissingReference` on `attendees`), asked in one read.
    #[tracing::instrument(skip_all, fields(customer_id = %input.customer_id, created_by = %input.created_by))]
    pub async fn create(&self, input: NewInteraction) -> Result<Interaction, CrmError> {
        let mut interaction = Interaction::new(input, self.clock.now())?;
        let customer = self.customers.find_by_id(interaction.customer_id).await?.ok_or(CrmError::CustomerNotFound)?;
        match interaction.company_id {
            Some(company) => {
                self.existing_company(company).await?;
            }
            None => interaction.company_id = customer.company_id,
        }
        if !interaction.attendees.is_empty() {
            let known = self.users.names(&interaction.attendees).await?;
            if interaction.attendees.iter().any(|attendee| !known.contains_key(attendee)) {
                return Err(RepoError::MissingReference { field: "attendees" }.into());
            }
        }
        Ok(self.interactions.create(&interaction).await?)
    }

    /// One page of the interactions `filter` selects, newest first, each with the names of its
    /// customer, company and creator (the creator's from the [`UserDirectory`], one read a page).
    #[tracing::instrument(skip_all)]
    pub async fn list(&self, filter: &InteractionFilter, page: PageRequest) -> Result<Page<InteractionView>, CrmError> {
        self.named(self.interactions.list(filter, page).await?).await
    }

    /// One page of the interactions that need a follow-up, as [`FollowUpFilter`] orders them, named
    /// as [`InteractionService::list`] names them.
    #[tracing::instrument(skip_all)]
    pub async fn follow_ups(
        &self,
        filter: &FollowUpFilter,
        page: PageRequest,
    ) -> Result<Page<InteractionView>, CrmError> {
        self.named(self.interactions.follow_ups(filter, page).await?).await
    }

    /// `rows` with their creators' names, in one read of the user directory.
    async fn named(&self, mut rows: Page<InteractionView>) -> Result<Page<InteractionView>, CrmError> {
        let mut creators: Vec<Uuid> = rows.items.iter().map(|row| row.interaction.created_by).collect();
        creators.sort_unstable();
        creators.dedup();
        let names = self.users.names(&creators).await?;
        for row in &mut rows.items {
            row.created_by_name = names.get(&row.interaction.created_by).cloned();
        }
        Ok(rows)
    }

    /// The live interaction `id`, or `InteractionNotFound`.
    #[tracing::instrument(skip_all, fields(interaction_id = %id))]
    pub async fn get(&self, id: Uuid) -> Result<Interaction, CrmError> {
        self.interactions.find_by_id(id).await?.ok_or(CrmError::InteractionNotFound)
    }

    /// One page of the customer's interactions; `CustomerNotFound` for an unknown customer.
    #[tracing::instrument(skip_all, fields(customer_id = %customer_id))]
    pub async fn of_customer(&self, customer_id: Uuid, page: PageRequest) -> Result<Page<InteractionView>, CrmError> {
        let customer = self.customers.find_by_id(customer_id).await?.ok_or(CrmError::CustomerNotFound)?;
        let filter = InteractionFilter { customer_id: Some(customer.id), ..InteractionFilter::default() };
        self.list(&filter, page).await
    }

    /// One page of the company's interactions; `NOT_FOUND` naming `company_id` for an unknown company.
    #[tracing::instrument(skip_all, fields(company_id = %company_id))]
    pub async fn of_company(&self, company_id: Uuid, page: PageRequest) -> Result<Page<InteractionView>, CrmError> {
        self.existing_company(company_id).await?;
        let filter = InteractionFilter { company_id: Some(company_id), ..InteractionFilter::default() };
        self.list(&filter, page).await
    }

    /// Replaces the subject and description.
    #[tracing::instrument(skip_all, fields(interaction_id = %id))]
    pub async fn update_content(
        &self,
        id: Uuid,
        subject: String,
        description: Option<String>,
    ) -> Result<Interaction, CrmError> {
        let read = self.get(id).await?;
        self.edit(read, |i, now| i.update_content(&subject, description.clone(), now).map(Some)).await
    }

    /// Sets (or clears) the outcome.
    #[tracing::instrument(skip_all, fields(interaction_id = %id))]
    pub async fn set_outcome(&self, id: Uuid, outcome: Option<Outcome>) -> Result<Interaction, CrmError> {
        let read = self.get(id).await?;
        self.edit(read, |i, now| Ok(Some(i.set_outcome(outcome, now)))).await
    }

    /// Sets the follow-up fields.
    #[tracing::instrument(skip_all, fields(interaction_id = %id))]
    pub async fn set_follow_up(
        &self,
        id: Uuid,
        required: bool,
        date: Option<OffsetDateTime>,
        notes: Option<String>,
    ) -> Result<Interaction, CrmError> {
        let read = self.get(id).await?;
        self.edit(read, |i, now| Ok(Some(i.set_follow_up(required, date, notes.clone(), now)))).await
    }

    /// Adds a user (of any standing) as an attendee: the interaction is checked first, then the user;
    /// one who already attends is not added twice.
    #[tracing::instrument(skip_all, fields(interaction_id = %id, attendee_id = %attendee))]
    pub async fn add_attendee(&self, id: Uuid, attendee: Uuid) -> Result<Interaction, CrmError> {
        let read = self.get(id).await?;
        any_user(&*self.users, attendee, "attendee_id").await?;
        self.edit(read, |i, now| i.add_attendee(attendee, now)).await
    }

    /// Removes an attendee (`NOT_FOUND` when they do not attend).
    #[tracing::instrument(skip_all, fields(interaction_id = %id, attendee_id = %attendee))]
    pub async fn remove_attendee(&self, id: Uuid, attendee: Uuid) -> Result<Interaction, CrmError> {
        let read = self.get(id).await?;
        self.edit(read, |i, now| i.remove_attendee(attendee, now).map(Some)).await
    }

    /// Ends the interaction at `ended_at`; ended meanwhile by another writer, the decision is taken
    /// again and answers `INTERACTION_ALREADY_ENDED`.
    #[tracing::instrument(skip_all, fields(interaction_id = %id))]
    pub async fn end(&self, id: Uuid, ended_at: OffsetDateTime) -> Result<Interaction, CrmError> {
        until_settled(|| async move {
            let interaction = self.get(id).await?;
            let ended = interaction.end(ended_at, self.clock.now())?;
            saved_or(self.interactions.save_end(&ended).await)
        })
        .await
    }

    /// Soft-deletes the interaction (`NotFound` storage error when missing).
    #[tracing::instrument(skip_all, fields(interaction_id = %id))]
    pub async fn delete(&self, id: Uuid) -> Result<(), CrmError> {
        Ok(self.interactions.soft_delete(id, self.clock.now()).await?)
    }

    async fn existing_company(&self, id: Uuid) -> Result<(), CrmError> {
        match self.companies.find_by_id(id).await? {
            Some(_) => Ok(()),
            None => Err(CrmError::CompanyNotFound { field: Some("company_id") }),
        }
    }

    /// Saves the edit `decide` makes of `read` over the version it was read at; a change made
    /// meanwhile is re-read and the edit decided again, so concurrent edits (two attendees added at
    /// once, an outcome set while the content changes) all land. `decide` answers `None` when nothing
    /// changes.
    async fn edit(
        &self,
        read: Interaction,
        decide: impl Fn(&Interaction, OffsetDateTime) -> Result<Option<Interaction>, InteractionError>,
    ) -> Result<Interaction, CrmError> {
        let (id, decide) = (read.id, &decide);
        settle_edit(
            read,
            || self.get(id),
            |interaction| async move {
                let Some(next) = decide(&interaction, self.clock.now())? else {
                    return Ok(Attempt::Done(interaction));
                };
                saved_or(self.interactions.update(&next).await)
            },
        )
        .await
    }
}

/// A conditional save of the interaction as an attempt; its absence is `InteractionNotFound`.
fn saved_or(saved: Result<Interaction, RepoError>) -> Result<Attempt<Interaction>, CrmError> {
    match saved {
        Err(RepoError::NotFound) => Err(CrmError::InteractionNotFound),
        saved => Attempt::of(saved),
    }
}
