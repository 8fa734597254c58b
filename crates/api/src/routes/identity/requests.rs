//! What clients send to the identity endpoints: bodies and query parameters.
//!
//! The `#[schema]`/`#[param]` bounds state the rules `identity_domain` and the handlers check, so that
//! a request valid against the document passes validation. Text is trimmed before it is checked:
//! required text has the pattern of a string with a non-blank character. The enums below exist only
//! for the document; the handlers still read `String`s.

use serde::Deserialize;
use time::Date;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Document-only: `UserStatus` as the document lists it; `UserStatus::parse` also takes any case.
#[derive(ToSchema)]
#[schema(description = "A user status (matched case-insensitively).", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum UserStatusName {
    Active,
    Suspended,
    Banned,
}

/// Document-only: `ContactType` as the document lists it; `ContactType::parse` also takes any case.
#[derive(ToSchema)]
#[schema(description = "A contact type (matched case-insensitively).", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum ContactTypeName {
    Email,
    Phone,
    Address,
}

/// Document-only: `Gender` as `ProfileFields::validate` accepts it (exact spelling), plus the
/// empty string that clears the field. Written by hand: the derive cannot name an empty value.
#[allow(dead_code)]
pub struct GenderName;

impl utoipa::PartialSchema for GenderName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("A gender; an empty string clears it."))
            .enum_values(Some(["male", "female", "other", "not_specify", ""]))
            .into()
    }
}

impl ToSchema for GenderName {}

#[derive(Debug, Deserialize, ToSchema)]
pub struct RegisterBody {
    #[schema(format = Email, max_length = 255)]
    pub email: String,
    /// 1..=255 characters once trimmed.
    #[schema(min_length = 1, max_length = 255, format = "non-blank")]
    pub name: String,
    /// 8..=72 bytes (UTF-8).
    #[schema(min_length = 8, max_length = 72)]
    pub password: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct LoginBody {
    /// Not checked for form: an address stored under an older rule still signs in.
    pub email: String,
    /// Not checked for length: a wrong password is 401, whatever it looks like.
    pub password: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct RefreshBody {
    pub refresh_token: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct RevokeBody {
    /// The access or refresh token to revoke.
    pub token: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct PasswordBody {
    /// Checked like a login's password (a wrong one counts toward the lock-out).
    pub current_password: String,
    /// 8..=72 bytes (UTF-8).
    #[schema(min_length = 8, max_length = 72)]
    pub new_password: String,
    /// `true` keeps the caller's API keys working; by default the change revokes them (docs/identity.md).
    #[serde(default)]
    pub keep_api_keys: bool,
}

/// A contact's postal address. Its schema is named `ContactAddressBody`: the warehouse has an
/// `AddressBody` of its own with other rules.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = ContactAddressBody, description = "A contact's postal address.")]
pub struct AddressBody {
    #[schema(max_length = 255)]
    pub street: Option<String>,
    #[schema(max_length = 100)]
    pub city: Option<String>,
    #[schema(max_length = 100)]
    pub state: Option<String>,
    #[schema(max_length = 20)]
    pub postal_code: Option<String>,
    /// An ISO 3166-1 alpha-2 code that exists in the reference data.
    #[schema(value_type = String, required = true, format = "country-code", example = "UA")]
    pub country: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateContactBody {
    #[serde(rename = "type")]
    #[schema(value_type = ContactTypeName, example = "email")]
    pub contact_type: String,
    /// Free text, at most 100 characters.
    #[schema(max_length = 100)]
    pub label: Option<String>,
    pub is_primary: Option<bool>,
    pub is_public: Option<bool>,
    /// Required when the type is email, refused otherwise.
    #[schema(format = Email, max_length = 255)]
    pub email: Option<String>,
    /// Required when the type is phone, refused otherwise: `+`, country code and a number valid for
    /// it (checked with a phone-number library); stored as E.164.
    #[schema(example = "+380441234567")]
    pub phone: Option<String>,
    /// Required when the type is address, refused otherwise.
    pub address: Option<AddressBody>,
}

/// Every field is optional; the type cannot change, and only the value of
/// the contact's own type may be given.
#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateContactBody {
    /// If given, must equal the contact's type.
    #[serde(rename = "type")]
    #[schema(value_type = Option<ContactTypeName>)]
    pub contact_type: Option<String>,
    /// Free text, at most 100 characters.
    #[schema(max_length = 100)]
    pub label: Option<String>,
    pub is_primary: Option<bool>,
    pub is_public: Option<bool>,
    #[schema(format = Email, max_length = 255)]
    pub email: Option<String>,
    /// `+`, country code and a number valid for it (checked with a phone-number library).
    #[schema(example = "+380441234567")]
    pub phone: Option<String>,
    pub address: Option<AddressBody>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct VerifyContactBody {
    /// Accepted but not checked: no delivery channel exists yet.
    pub verification_code: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContactListQuery {
    #[serde(rename = "type")]
    #[param(rename = "type", inline, value_type = Option<ContactTypeName>)]
    pub contact_type: Option<String>,
    pub is_primary: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreatePermissionBody {
    /// Lower-case resource name or `*`.
    #[schema(pattern = r"^(\*|[a-z][a-z0-9_]{0,49})$", example = "customers")]
    pub resource: String,
    /// Lower-case action name or `*`.
    #[schema(pattern = r"^(\*|[a-z][a-z0-9_]{0,49})$", example = "read")]
    pub action: String,
    pub description: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdatePermissionBody {
    /// Lower-case resource name or `*`.
    #[schema(pattern = r"^(\*|[a-z][a-z0-9_]{0,49})$")]
    pub resource: Option<String>,
    /// Lower-case action name or `*`.
    #[schema(pattern = r"^(\*|[a-z][a-z0-9_]{0,49})$")]
    pub action: Option<String>,
    pub description: Option<String>,
}

/// Profile fields. On creation `display_name` is required; on update every
/// field is optional, and an empty string clears an optional text field.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct ProfileBody {
    /// Required on creation; 1..=255 characters once trimmed, never empty.
    #[schema(min_length = 1, max_length = 255, format = "non-blank")]
    pub display_name: Option<String>,
    #[schema(max_length = 100)]
    pub first_name: Option<String>,
    #[schema(max_length = 100)]
    pub last_name: Option<String>,
    #[schema(value_type = Option<GenderName>)]
    pub gender: Option<String>,
    /// `YYYY-MM-DD`, years 1900..=2200, not in the future.
    #[serde(default, with = "shared_kernel::bounds::date::option")]
    #[schema(value_type = Option<String>, format = Date)]
    pub date_of_birth: Option<Date>,
    #[schema(max_length = 500)]
    pub bio: Option<String>,
    /// http(s) URL, at most 500 characters.
    #[schema(max_length = 500, pattern = r"^(https?://[^\s/?#]+\S*)?$")]
    pub avatar_url: Option<String>,
    /// IANA zone from the reference data (exact spelling).
    #[schema(max_length = 50, pattern = r"^([A-Za-z]+(/[A-Za-z0-9_+-]+)+)?$", example = "Europe/Kyiv")]
    pub timezone: Option<String>,
    /// ISO 639-1 code from the reference data.
    #[schema(pattern = r"^(\s*[A-Za-z]{2}\s*)?$", example = "uk")]
    pub language: Option<String>,
    /// ISO 3166-1 alpha-2 code from the reference data.
    #[schema(pattern = r"^(\s*[A-Za-z]{2}\s*)?$", example = "UA")]
    pub country: Option<String>,
    /// http(s) URL, at most 500 characters.
    #[schema(max_length = 500, pattern = r"^(https?://[^\s/?#]+\S*)?$")]
    pub website: Option<String>,
    /// http(s) URL, at most 500 characters.
    #[schema(max_length = 500, pattern = r"^(https?://[^\s/?#]+\S*)?$")]
    pub linkedin_url: Option<String>,
    /// http(s) URL, at most 500 characters.
    #[schema(max_length = 500, pattern = r"^(https?://[^\s/?#]+\S*)?$")]
    pub twitter_url: Option<String>,
    /// http(s) URL, at most 500 characters.
    #[schema(max_length = 500, pattern = r"^(https?://[^\s/?#]+\S*)?$")]
    pub github_url: Option<String>,
    pub is_public: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct VisibilityBody {
    pub is_public: bool,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateRoleBody {
    #[schema(pattern = "^[a-z][a-z0-9_-]{1,49}$", example = "sales-rep")]
    pub name: String,
    /// 1..=100 characters once trimmed.
    #[schema(min_length = 1, max_length = 100, format = "non-blank")]
    pub display_name: String,
    pub description: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateRoleBody {
    /// A system role keeps its name.
    #[schema(pattern = "^[a-z][a-z0-9_-]{1,49}$")]
    pub name: Option<String>,
    /// 1..=100 characters once trimmed.
    #[schema(min_length = 1, max_length = 100, format = "non-blank")]
    pub display_name: Option<String>,
    pub description: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct GrantBody {
    /// 1 to 200 permission ids as sent; duplicates are dropped.
    #[schema(min_items = 1, max_items = 200)]
    pub permission_ids: Vec<Uuid>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AssignBody {
    pub role_id: Uuid,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UserListQuery {
    /// 1-based page number (default 1).
    #[param(minimum = 1, maximum = 4294967295_u32)]
    pub page: Option<i64>,
    /// Items per page, 1..=100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<i64>,
    #[param(inline, value_type = Option<UserStatusName>)]
    pub status: Option<String>,
    pub is_email_verified: Option<bool>,
    /// Case-insensitive substring of email or name.
    #[serde(default, deserialize_with = "crate::routes::query_params::bounded_search")]
    #[param(max_length = 200)]
    pub search: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ReasonBody {
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct StatusBody {
    #[schema(value_type = UserStatusName)]
    pub status: String,
    pub reason: Option<String>,
}
