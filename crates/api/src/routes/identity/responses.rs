//! What the identity endpoints answer.

use serde::Serialize;
use time::{Date, OffsetDateTime};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::tokens::TokenPair;

#[derive(Debug, Serialize, ToSchema)]
pub struct SessionUser {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub status: &'static str,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Session {
    #[serde(flatten)]
    pub tokens: TokenPair,
    pub user: SessionUser,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AddressView {
    pub street: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2 code from the reference data.
    #[schema(example = "UA")]
    pub country: String,
}

/// A contact as clients see it; only the value of its `type` is set.
#[derive(Debug, Serialize, ToSchema)]
pub struct ContactView {
    pub id: Uuid,
    pub user_id: Uuid,
    #[serde(rename = "type")]
    #[schema(example = "email")]
    pub contact_type: &'static str,
    pub label: String,
    pub email: Option<String>,
    /// E.164.
    #[schema(example = "+380441234567")]
    pub phone: Option<String>,
    pub address: Option<AddressView>,
    pub is_primary: bool,
    pub is_verified: bool,
    pub is_public: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

/// A profile as clients see it.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProfileView {
    pub id: Uuid,
    pub user_id: Uuid,
    pub display_name: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    /// male, female, other or not_specify.
    #[schema(value_type = Option<String>, example = "not_specify")]
    pub gender: Option<&'static str>,
    #[serde(with = "shared_kernel::bounds::date::option")]
    #[schema(value_type = Option<String>, format = Date)]
    pub date_of_birth: Option<Date>,
    pub bio: Option<String>,
    pub avatar_url: Option<String>,
    #[schema(example = "Europe/Kyiv")]
    pub timezone: Option<String>,
    #[schema(example = "uk")]
    pub language: Option<String>,
    #[schema(example = "UA")]
    pub country: Option<String>,
    pub website: Option<String>,
    pub linkedin_url: Option<String>,
    pub twitter_url: Option<String>,
    pub github_url: Option<String>,
    pub is_public: bool,
    pub is_active: bool,
    pub is_banned: bool,
    pub is_verified: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RoleView {
    pub id: Uuid,
    pub name: String,
    pub display_name: String,
    pub description: String,
    pub is_system: bool,
    pub permissions_count: i64,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PermissionView {
    pub id: Uuid,
    pub resource: String,
    pub action: String,
    /// `resource:action`, derived.
    pub name: String,
    pub description: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

/// A user as clients see it (never the password hash).
#[derive(Debug, Serialize, ToSchema)]
pub struct UserView {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    #[schema(example = "active")]
    pub status: &'static str,
    pub is_email_verified: bool,
    pub is_locked: bool,
    pub failed_login_attempts: i32,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_login_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

/// An answer that only confirms what happened.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageView {
    pub message: String,
}

impl MessageView {
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into() }
    }
}

/// `POST|PUT /contacts/{id}/verify`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ContactVerified {
    pub message: &'static str,
    pub contact: ContactView,
}

/// `POST /roles/{id}/permissions`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PermissionsGranted {
    pub message: &'static str,
    /// How many of the named permissions the role did not hold before.
    pub granted: usize,
}

/// `PATCH /users/{id}/status`.
#[derive(Debug, Serialize, ToSchema)]
pub struct UserStatusView {
    pub message: String,
    pub id: Uuid,
    pub status: &'static str,
}
