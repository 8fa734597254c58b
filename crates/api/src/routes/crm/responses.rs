//! What clients see of customers, deals, interactions and companies.

use crm_domain::{Company, Customer, Deal, Interaction, InteractionView as InteractionWithNames};
use serde::Serialize;
use time::{Date, OffsetDateTime};
use utoipa::ToSchema;
use uuid::Uuid;

use super::wire::day;

#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerView {
    pub id: Uuid,
    pub user_id: Option<Uuid>,
    pub company_id: Option<Uuid>,
    /// Derived: `individual` without a company, `company` with one.
    #[serde(rename = "type")]
    #[schema(example = "individual")]
    pub customer_type: &'static str,
    pub name: String,
    pub email: String,
    /// E.164.
    pub phone: Option<String>,
    #[schema(example = "lead")]
    pub status: &'static str,
    #[schema(example = "free")]
    pub tier: &'static str,
    pub source: Option<String>,
    pub assigned_to: Option<Uuid>,
    pub tags: Vec<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub churned_at: Option<OffsetDateTime>,
}

impl From<Customer> for CustomerView {
    fn from(c: Customer) -> Self {
        Self {
            customer_type: c.customer_type().as_str(),
            id: c.id,
            user_id: c.user_id,
            company_id: c.company_id,
            name: c.name,
            email: c.email.into_string(),
            phone: c.phone,
            status: c.status.as_str(),
            tier: c.tier.as_str(),
            source: c.source,
            assigned_to: c.assigned_to,
            tags: c.tags,
            created_at: c.created_at,
            updated_at: c.updated_at,
            churned_at: c.churned_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DealView {
    pub id: Uuid,
    pub customer_id: Uuid,
    pub assigned_to: Uuid,
    pub name: String,
    /// Cents of `currency`.
    pub value: i64,
    #[schema(example = "USD")]
    pub currency: String,
    #[schema(example = "lead")]
    pub stage: &'static str,
    /// Follows from the stage: 10, 25, 50, 75, 100 or 0.
    pub probability: u8,
    #[schema(example = "inbound")]
    pub source: &'static str,
    #[serde(with = "day")]
    #[schema(value_type = String, format = Date)]
    pub expected_close_date: Date,
    #[serde(with = "day::option")]
    #[schema(value_type = Option<String>, format = Date)]
    pub actual_close_date: Option<Date>,
    pub loss_reason: Option<String>,
    pub tags: Vec<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<Deal> for DealView {
    fn from(d: Deal) -> Self {
        Self {
            id: d.id,
            customer_id: d.customer_id,
            assigned_to: d.assigned_to,
            name: d.name,
            value: d.value,
            currency: d.currency.as_str().to_owned(),
            stage: d.stage.as_str(),
            probability: d.probability,
            source: d.source.as_str(),
            expected_close_date: d.expected_close_date,
            actual_close_date: d.actual_close_date,
            loss_reason: d.loss_reason,
            tags: d.tags,
            created_at: d.created_at,
            updated_at: d.updated_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct InteractionView {
    pub id: Uuid,
    pub customer_id: Uuid,
    pub company_id: Option<Uuid>,
    #[serde(rename = "type")]
    #[schema(example = "call")]
    pub interaction_type: &'static str,
    #[schema(example = "outbound")]
    pub direction: &'static str,
    #[schema(example = "successful")]
    pub outcome: Option<&'static str>,
    pub subject: String,
    pub description: Option<String>,
    pub created_by: Uuid,
    pub attendees: Vec<Uuid>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub started_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub ended_at: Option<OffsetDateTime>,
    /// `ended_at − started_at` in whole seconds; null while in progress.
    pub duration_sec: Option<i64>,
    pub follow_up_required: bool,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub follow_up_date: Option<OffsetDateTime>,
    pub follow_up_notes: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<Interaction> for InteractionView {
    fn from(i: Interaction) -> Self {
        Self {
            id: i.id,
            customer_id: i.customer_id,
            company_id: i.company_id,
            interaction_type: i.interaction_type.as_str(),
            direction: i.direction.as_str(),
            outcome: i.outcome.map(|o| o.as_str()),
            subject: i.subject,
            description: i.description,
            created_by: i.created_by,
            attendees: i.attendees,
            started_at: i.started_at,
            ended_at: i.ended_at,
            duration_sec: i.duration_sec,
            follow_up_required: i.follow_up_required,
            follow_up_date: i.follow_up_date,
            follow_up_notes: i.follow_up_notes,
            created_at: i.created_at,
            updated_at: i.updated_at,
        }
    }
}

/// A list row: the interaction plus the names resolved by join.
#[derive(Debug, Serialize, ToSchema)]
pub struct InteractionListItem {
    #[serde(flatten)]
    pub interaction: InteractionView,
    pub customer_name: String,
    pub company_name: Option<String>,
    pub created_by_name: Option<String>,
}

impl From<InteractionWithNames> for InteractionListItem {
    fn from(v: InteractionWithNames) -> Self {
        Self {
            interaction: v.interaction.into(),
            customer_name: v.customer_name,
            company_name: v.company_name,
            created_by_name: v.created_by_name,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CompanyView {
    pub id: Uuid,
    pub name: String,
    pub website: Option<String>,
    pub industry: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<Company> for CompanyView {
    fn from(c: Company) -> Self {
        Self {
            id: c.id,
            name: c.name,
            website: c.website,
            industry: c.industry,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}
