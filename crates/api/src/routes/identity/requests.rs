//! What clients send to the identity endpoints: bodies and query parameters.

use serde::Deserialize;
use time::Date;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Debug, Deserialize, ToSchema)]
pub struct RegisterBody {
    pub email: String,
    pub name: String,
    /// 8..=72 bytes.
    pub password: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct LoginBody {
    pub email: String,
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
    pub current_password: String,
    pub new_password: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AddressBody {
    pub street: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    /// Required: an ISO 3166-1 alpha-2 code that exists in the reference data.
    #[schema(example = "UA")]
    pub country: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateContactBody {
    /// email, phone or address.
    #[serde(rename = "type")]
    #[schema(example = "email")]
    pub contact_type: String,
    /// Free text, at most 100 characters.
    pub label: Option<String>,
    pub is_primary: Option<bool>,
    pub is_public: Option<bool>,
    /// Required when the type is email.
    pub email: Option<String>,
    /// Required when the type is phone: `+`, country code and number.
    #[schema(example = "+380441234567")]
    pub phone: Option<String>,
    /// Required when the type is address.
    pub address: Option<AddressBody>,
}

/// Every field is optional; the type cannot change, and only the value of
/// the contact's own type may be given.
#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateContactBody {
    /// If given, must equal the contact's type.
    #[serde(rename = "type")]
    pub contact_type: Option<String>,
    pub label: Option<String>,
    pub is_primary: Option<bool>,
    pub is_public: Option<bool>,
    pub email: Option<String>,
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
    /// email, phone or address.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    pub contact_type: Option<String>,
    pub is_primary: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreatePermissionBody {
    /// Lower-case resource name or `*`.
    pub resource: String,
    /// Lower-case action name or `*`.
    pub action: String,
    pub description: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdatePermissionBody {
    pub resource: Option<String>,
    pub action: Option<String>,
    pub description: Option<String>,
}

/// Profile fields. On creation `display_name` is required; on update every
/// field is optional, and an empty string clears an optional text field.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct ProfileBody {
    /// At most 255 characters.
    pub display_name: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    /// male, female, other or not_specify.
    pub gender: Option<String>,
    /// `YYYY-MM-DD`, not in the future.
    #[serde(default, with = "shared_kernel::bounds::date::option")]
    #[schema(value_type = Option<String>, format = Date)]
    pub date_of_birth: Option<Date>,
    /// At most 500 characters.
    pub bio: Option<String>,
    /// http(s) URL, at most 500 characters.
    pub avatar_url: Option<String>,
    /// IANA zone from the reference data.
    #[schema(example = "Europe/Kyiv")]
    pub timezone: Option<String>,
    /// ISO 639-1 code from the reference data.
    #[schema(example = "uk")]
    pub language: Option<String>,
    /// ISO 3166-1 alpha-2 code from the reference data.
    #[schema(example = "UA")]
    pub country: Option<String>,
    pub website: Option<String>,
    pub linkedin_url: Option<String>,
    pub twitter_url: Option<String>,
    pub github_url: Option<String>,
    pub is_public: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct VisibilityBody {
    pub is_public: bool,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateRoleBody {
    /// `^[a-z][a-z0-9_-]{1,49}$`
    pub name: String,
    pub display_name: String,
    pub description: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateRoleBody {
    pub name: Option<String>,
    pub display_name: Option<String>,
    pub description: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct GrantBody {
    /// 1 to 200 permission ids; duplicates are dropped.
    pub permission_ids: Vec<Uuid>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AssignBody {
    pub role_id: Uuid,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UserListQuery {
    pub page: Option<i64>,
    pub page_size: Option<i64>,
    /// active, suspended or banned.
    pub status: Option<String>,
    pub is_email_verified: Option<bool>,
    /// Case-insensitive substring of email or name.
    pub search: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ReasonBody {
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct StatusBody {
    /// active, suspended or banned.
    pub status: String,
    pub reason: Option<String>,
}
