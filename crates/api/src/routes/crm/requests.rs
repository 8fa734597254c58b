//! What clients send to the customer-management endpoints: bodies and query parameters.
//!
//! The `#[schema]`/`#[param]` bounds state the rules `crm_domain` and the handlers check, so that a
//! request valid against the document passes validation. Text is trimmed before it is checked
//! (`crm_domain::validate`): required text has the pattern of a string with a non-blank character.
//! The `*Name` enums and `CustomerSortKey` exist only for the document: bodies deserialize into the
//! `crm_domain` enums (exact snake_case spelling), query strings are parsed in any case.

use crm_domain::{CustomerStatus, DealSource, DealStage, Direction, InteractionType, Outcome, Tier};
use serde::Deserialize;
use shared_kernel::CurrencyCode;
use time::{Date, OffsetDateTime};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::wire::{day, present};

/// Document-only: `CustomerStatus`; query strings (and `PATCH …/status`) also take any case.
#[derive(ToSchema)]
#[schema(description = "Where a customer stands in the lifecycle.", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum CustomerStatusName {
    Lead,
    Prospect,
    Customer,
    Churned,
}

/// Document-only: `Tier`; query strings also take any case.
#[derive(ToSchema)]
#[schema(description = "Subscription tier, from lowest to highest.", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum TierName {
    Free,
    Basic,
    Pro,
    Enterprise,
}

/// Document-only: `CustomerType` (a query filter, matched case-insensitively).
#[derive(ToSchema)]
#[schema(description = "`company` has a company_id, `individual` has none.", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum CustomerTypeName {
    Individual,
    Company,
}

/// Document-only: the single keys `CustomerSort::parse` takes (exact spelling). It also takes a
/// comma-separated list of them, each field at most once, which the document does not list.
#[derive(ToSchema)]
#[schema(description = "A sort key; a leading `-` sorts descending.")]
#[allow(dead_code)]
pub enum CustomerSortKey {
    #[schema(rename = "created_at")]
    CreatedAt,
    #[schema(rename = "-created_at")]
    CreatedAtDesc,
    #[schema(rename = "updated_at")]
    UpdatedAt,
    #[schema(rename = "-updated_at")]
    UpdatedAtDesc,
    #[schema(rename = "name")]
    Name,
    #[schema(rename = "-name")]
    NameDesc,
    #[schema(rename = "email")]
    Email,
    #[schema(rename = "-email")]
    EmailDesc,
    #[schema(rename = "status")]
    Status,
    #[schema(rename = "-status")]
    StatusDesc,
    #[schema(rename = "tier")]
    Tier,
    #[schema(rename = "-tier")]
    TierDesc,
}

/// Document-only: `DealStage`; query strings and paths also take any case.
#[derive(ToSchema)]
#[schema(description = "Pipeline stage of a deal.", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum DealStageName {
    Lead,
    Qualified,
    Proposal,
    Negotiation,
    ClosedWon,
    ClosedLost,
}

/// Document-only: `DealSource`.
#[derive(ToSchema)]
#[schema(description = "Where a deal came from.", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum DealSourceName {
    Inbound,
    Outbound,
    Referral,
    Partner,
}

/// Document-only: `InteractionType`; paths also take any case.
#[derive(ToSchema)]
#[schema(description = "What kind of interaction.", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum InteractionTypeName {
    Call,
    Email,
    Meeting,
    Note,
    Sms,
    Chat,
}

/// Document-only: `Direction`.
#[derive(ToSchema)]
#[schema(description = "Who started the interaction.", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum DirectionName {
    Inbound,
    Outbound,
}

/// Document-only: `Outcome`.
#[derive(ToSchema)]
#[schema(description = "How an interaction went.", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum OutcomeName {
    Successful,
    Failed,
    NoAnswer,
    Voicemail,
    Busy,
    Scheduled,
    NotInterested,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateCompanyBody {
    /// 1..=255 characters once trimmed.
    #[schema(min_length = 1, max_length = 255, format = "non-blank")]
    pub name: String,
    /// http(s) URL, at most 500 characters.
    #[schema(
        max_length = 500,
        pattern = r"^https?://[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?([/?#][^\s\u0000-\u001F\u007F-\u009F]*)?$"
    )]
    pub website: Option<String>,
    /// At most 100 characters.
    #[schema(max_length = 100)]
    pub industry: Option<String>,
}

/// Absent fields stay; `null` clears `website` or `industry`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateCompanyBody {
    /// 1..=255 characters once trimmed.
    #[schema(min_length = 1, max_length = 255, format = "non-blank")]
    pub name: Option<String>,
    /// http(s) URL, at most 500 characters.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 500, pattern = r"^https?://[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?([/?#][^\s\u0000-\u001F\u007F-\u009F]*)?$")]
    pub website: Option<Option<String>>,
    /// At most 100 characters.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 100)]
    pub industry: Option<Option<String>>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CompanyListQuery {
    /// Case-insensitive substring of the name.
    #[serde(default, deserialize_with = "crate::routes::query_params::bounded_search")]
    #[param(max_length = 200)]
    pub search: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ChurnBody {
    pub reason: Option<String>,
}

/// `PATCH /customers/{id}/status`. Its schema is named `CustomerStatusBody`: identity has a
/// `StatusBody` of its own.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = CustomerStatusBody, description = "A customer's target status.")]
pub struct StatusBody {
    /// The target status (any case); only the moves of the lifecycle are allowed.
    #[schema(value_type = CustomerStatusName)]
    pub status: String,
    pub reason: Option<String>,
}

/// `POST|PUT /customers/{id}/assign`. Its schema is named `CustomerAssignBody`: identity has an
/// `AssignBody` of its own.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = CustomerAssignBody, description = "A customer's sales rep.")]
pub struct AssignBody {
    /// The sales rep (an active user), or `null` to unassign; required either way.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Uuid>, required = true)]
    pub assigned_to: Option<Option<Uuid>>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct TierBody {
    /// A higher tier than the current one.
    #[schema(value_type = TierName)]
    pub tier: Tier,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct TagsBody {
    /// At most 50 tags of 1..=50 characters once trimmed; duplicates are dropped.
    #[schema(min_length = 1, max_length = 50, format = "non-blank")]
    pub tags: Vec<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateCustomerBody {
    /// 1..=255 characters once trimmed.
    #[schema(min_length = 1, max_length = 255, format = "non-blank")]
    pub name: String,
    #[schema(format = Email, max_length = 255)]
    pub email: String,
    /// `+`, country code and a number valid for it (checked with a phone-number library); stored
    /// as E.164. Blank means none.
    #[schema(example = "+380441234567")]
    pub phone: Option<String>,
    /// Default lead.
    #[schema(value_type = Option<CustomerStatusName>)]
    pub status: Option<CustomerStatus>,
    /// Default free.
    #[schema(value_type = Option<TierName>)]
    pub tier: Option<Tier>,
    /// At most 100 characters; blank means none.
    #[schema(max_length = 100)]
    pub source: Option<String>,
    /// At most 50 tags of 1..=50 characters once trimmed; duplicates are dropped.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 50, format = "non-blank")]
    pub tags: Vec<String>,
    /// An existing company (not with `user_id`).
    pub company_id: Option<Uuid>,
    /// An active user.
    pub assigned_to: Option<Uuid>,
    /// The user account of an individual customer (not with `company_id`).
    pub user_id: Option<Uuid>,
}

/// Any subset; `phone: null` clears the phone.
#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateCustomerBody {
    /// 1..=255 characters once trimmed.
    #[schema(min_length = 1, max_length = 255, format = "non-blank")]
    pub name: Option<String>,
    /// `+`, country code and a number valid for it (checked with a phone-number library); blank
    /// or `null` clears it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, example = "+380441234567")]
    pub phone: Option<Option<String>>,
    /// Replaces the list: at most 50 tags of 1..=50 characters once trimmed.
    #[schema(min_length = 1, max_length = 50, format = "non-blank")]
    pub tags: Option<Vec<String>>,
}

/// The query `GET /customers` reads (as `crm_domain::CustomerQuery`); blank values mean no filter.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CustomerListParams {
    #[param(inline, value_type = Option<CustomerStatusName>)]
    pub status: Option<String>,
    #[param(inline, value_type = Option<TierName>)]
    pub tier: Option<String>,
    /// The sales rep's user id.
    #[param(format = Uuid)]
    pub assigned_to: Option<String>,
    /// Comma-separated, at most 50 tags of at most 50 characters; a customer must carry all of them.
    #[param(pattern = "^[^,]{0,50}(,[^,]{0,50}){0,49}$", example = "vip,b2b")]
    pub tags: Option<String>,
    #[serde(rename = "type")]
    #[param(rename = "type", inline, value_type = Option<CustomerTypeName>)]
    pub customer_type: Option<String>,
    /// Case-insensitive substring of name, email or phone.
    #[param(max_length = 200)]
    pub search: Option<String>,
    /// Default `-created_at`. The document lists single keys; the server also takes several,
    /// comma-separated, each field at most once (`-created_at,name`).
    #[param(inline, value_type = Option<CustomerSortKey>)]
    pub sort: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EmailLookupQuery {
    /// Picks the company's customer when several share the email.
    #[param(format = Uuid)]
    pub company_id: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct StageBody {
    /// Any stage; a closed one closes the deal today.
    #[schema(value_type = DealStageName, example = "proposal")]
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
    /// 1..=200 characters once trimmed.
    #[schema(min_length = 1, max_length = 200, format = "non-blank")]
    pub name: String,
    /// Positive, in cents.
    #[schema(minimum = 1)]
    pub value: i64,
    /// An active ISO 4217 code from the reference data; default USD.
    #[schema(value_type = Option<String>, format = "currency-code", example = "USD")]
    pub currency: Option<CurrencyCode>,
    /// After today (UTC); years 1900..=2200.
    #[serde(with = "day")]
    #[schema(value_type = String, format = Date)]
    pub expected_close_date: Date,
    /// Default inbound.
    #[schema(value_type = Option<DealSourceName>)]
    pub source: Option<DealSource>,
    /// At most 50 tags of 1..=50 characters once trimmed; duplicates are dropped.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 50, format = "non-blank")]
    pub tags: Vec<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct BasicInfoBody {
    /// 1..=200 characters once trimmed.
    #[schema(min_length = 1, max_length = 200, format = "non-blank")]
    pub name: Option<String>,
    /// After today (UTC); years 1900..=2200.
    #[serde(default, with = "day::option")]
    #[schema(value_type = Option<String>, format = Date)]
    pub expected_close_date: Option<Date>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ValueBody {
    /// Positive, in cents.
    #[schema(minimum = 1)]
    pub value: i64,
    /// An active ISO 4217 code from the reference data; default: the deal's current currency.
    #[schema(value_type = Option<String>, format = "currency-code", example = "EUR")]
    pub currency: Option<CurrencyCode>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DealListQuery {
    #[param(inline, value_type = Option<DealStageName>)]
    pub stage: Option<String>,
    #[param(format = Uuid)]
    pub customer_id: Option<String>,
    /// The sales rep's user id.
    #[param(format = Uuid)]
    pub assigned_to: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ContentBody {
    /// 1..=255 characters once trimmed.
    #[schema(min_length = 1, max_length = 255, format = "non-blank")]
    pub subject: String,
    pub description: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct OutcomeBody {
    /// An outcome, or `null` to clear it; required either way.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<OutcomeName>, required = true, example = "successful")]
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
    #[serde(rename = "type")]
    #[schema(value_type = InteractionTypeName, example = "call")]
    pub interaction_type: InteractionType,
    #[schema(value_type = DirectionName, example = "outbound")]
    pub direction: Direction,
    /// 1..=255 characters once trimmed.
    #[schema(min_length = 1, max_length = 255, format = "non-blank")]
    pub subject: String,
    /// RFC 3339, years 1900..=2200.
    #[serde(with = "shared_kernel::bounds::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub started_at: OffsetDateTime,
    pub description: Option<String>,
    /// Default: the customer's company.
    pub company_id: Option<Uuid>,
    /// Existing users, at most 100 as sent; duplicates are dropped.
    #[serde(default)]
    #[schema(max_items = 100)]
    pub attendees: Vec<Uuid>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FollowUpQuery {
    /// RFC 3339 (years 1900..=2200); only follow-ups due before this instant.
    #[param(format = DateTime)]
    pub due_before: Option<String>,
    /// Only interactions logged by this user.
    #[param(format = Uuid)]
    pub created_by: Option<String>,
}

/// The create use case's input: the one mapping `POST /customers` and a customer import's rows share.
impl From<CreateCustomerBody> for crm_domain::NewCustomer {
    fn from(body: CreateCustomerBody) -> Self {
        Self {
            phone: body.phone,
            user_id: body.user_id,
            company_id: body.company_id,
            name: body.name,
            email: body.email,
            status: body.status,
            tier: body.tier,
            source: body.source,
            assigned_to: body.assigned_to,
            tags: body.tags,
        }
    }
}

/// The create use case's input: the one mapping `POST /companies` and a company import's rows share.
impl From<CreateCompanyBody> for crm_domain::NewCompany {
    fn from(body: CreateCompanyBody) -> Self {
        Self { name: body.name, website: body.website, industry: body.industry }
    }
}
