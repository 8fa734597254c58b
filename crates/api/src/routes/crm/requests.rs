//! What clients send to the customer-management endpoints: bodies and query parameters.

use crm_domain::{CustomerStatus, DealSource, DealStage, Direction, InteractionType, Outcome, Tier};
use serde::Deserialize;
use shared_kernel::CurrencyCode;
use time::{Date, OffsetDateTime};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::wire::{day, present};

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateCompanyBody {
    /// 1..=255 characters.
    pub name: String,
    /// http(s) URL, at most 500 characters.
    pub website: Option<String>,
    /// At most 100 characters.
    pub industry: Option<String>,
}

/// Absent fields stay; `null` clears `website` or `industry`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateCompanyBody {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub website: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub industry: Option<Option<String>>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CompanyListQuery {
    /// Case-insensitive substring of the name.
    pub search: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ChurnBody {
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct StatusBody {
    /// The target status; only the moves of the lifecycle are allowed.
    pub status: String,
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AssignBody {
    /// The sales rep (an active user), or `null` to unassign.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Uuid>)]
    pub assigned_to: Option<Option<Uuid>>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct TierBody {
    /// A higher tier than the current one.
    #[schema(value_type = String)]
    pub tier: Tier,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct TagsBody {
    pub tags: Vec<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateCustomerBody {
    pub name: String,
    pub email: String,
    /// International format starting with `+`; stored as E.164.
    pub phone: Option<String>,
    /// lead (default), prospect, customer or churned.
    #[schema(value_type = Option<String>)]
    pub status: Option<CustomerStatus>,
    /// free (default), basic, pro or enterprise.
    #[schema(value_type = Option<String>)]
    pub tier: Option<Tier>,
    pub source: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    pub company_id: Option<Uuid>,
    pub assigned_to: Option<Uuid>,
    /// The user account of an individual customer (not with `company_id`).
    pub user_id: Option<Uuid>,
}

/// Any subset; `phone: null` clears the phone.
#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateCustomerBody {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub phone: Option<Option<String>>,
    pub tags: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CustomerListParams {
    /// lead, prospect, customer or churned.
    pub status: Option<String>,
    /// free, basic, pro or enterprise.
    pub tier: Option<String>,
    pub assigned_to: Option<String>,
    /// Comma-separated; a customer must carry all of them.
    pub tags: Option<String>,
    /// individual or company.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    pub customer_type: Option<String>,
    /// Case-insensitive substring of name, email or phone.
    pub search: Option<String>,
    /// Comma-separated of created_at, updated_at, name, email, status, tier; `-` for descending.
    pub sort: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EmailLookupQuery {
    /// Picks the company's customer when several share the email.
    pub company_id: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct StageBody {
    /// Any stage; a closed one closes the deal today.
    #[schema(value_type = String, example = "proposal")]
    pub stage: DealStage,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct WinBody {
    #[serde(with = "day")]
    #[schema(value_type = String, format = Date)]
    pub close_date: Date,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct LoseBody {
    #[serde(with = "day")]
    #[schema(value_type = String, format = Date)]
    pub close_date: Date,
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateDealBody {
    pub customer_id: Uuid,
    /// An active user.
    pub assigned_to: Uuid,
    /// 1..=200 characters.
    pub name: String,
    /// Positive, in cents.
    pub value: i64,
    /// Default USD.
    #[schema(value_type = Option<String>, example = "USD")]
    pub currency: Option<CurrencyCode>,
    /// After today (UTC).
    #[serde(with = "day")]
    #[schema(value_type = String, format = Date)]
    pub expected_close_date: Date,
    /// inbound (default), outbound, referral or partner.
    #[schema(value_type = Option<String>)]
    pub source: Option<DealSource>,
    #[serde(default)]
    pub tags: Vec<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct BasicInfoBody {
    pub name: Option<String>,
    #[serde(default, with = "day::option")]
    #[schema(value_type = Option<String>, format = Date)]
    pub expected_close_date: Option<Date>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ValueBody {
    /// Positive, in cents.
    pub value: i64,
    /// Default: the deal's current currency.
    #[schema(value_type = Option<String>, example = "EUR")]
    pub currency: Option<CurrencyCode>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DealListQuery {
    pub stage: Option<String>,
    pub customer_id: Option<String>,
    pub assigned_to: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ContentBody {
    pub subject: String,
    pub description: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct OutcomeBody {
    /// An outcome, or `null` to clear it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, example = "successful")]
    pub outcome: Option<Option<Outcome>>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct EndBody {
    /// Not before `started_at`; years 1900..=2200.
    #[serde(with = "shared_kernel::bounds::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub ended_at: OffsetDateTime,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct FollowUpBody {
    pub follow_up_required: bool,
    /// RFC 3339, years 1900..=2200.
    #[serde(default, with = "shared_kernel::bounds::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub follow_up_date: Option<OffsetDateTime>,
    pub follow_up_notes: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AttendeeBody {
    pub attendee_id: Uuid,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateInteractionBody {
    pub customer_id: Uuid,
    /// call, email, meeting, note, sms or chat.
    #[serde(rename = "type")]
    #[schema(value_type = String, example = "call")]
    pub interaction_type: InteractionType,
    /// inbound or outbound.
    #[schema(value_type = String, example = "outbound")]
    pub direction: Direction,
    /// At most 255 characters.
    pub subject: String,
    /// RFC 3339, years 1900..=2200.
    #[serde(with = "shared_kernel::bounds::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub started_at: OffsetDateTime,
    pub description: Option<String>,
    /// Default: the customer's company.
    pub company_id: Option<Uuid>,
    /// Existing users, at most 100; duplicates are dropped.
    #[serde(default)]
    pub attendees: Vec<Uuid>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FollowUpQuery {
    /// RFC 3339 (years 1900..=2200); only follow-ups due before this instant.
    pub due_before: Option<String>,
    /// Only interactions logged by this user.
    pub created_by: Option<String>,
}
