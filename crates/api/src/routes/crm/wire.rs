//! Helpers shared by the customer-management routes: error mapping, reference checks, phone numbers,
//! dates and "field present" deserialisation.

use actix_web::http::StatusCode;
use crm_domain::{Company, Customer};
use identity_domain::UserStatus;
use serde::{Deserialize, Deserializer};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::app::AppState;
use crate::http::ApiError;

// `YYYY-MM-DD` in and out (`time`'s own serde form for dates is a tuple). In a body, a year outside
// 1900..=2200 is a 400 naming the field (docs/identity.md).
pub use shared_kernel::bounds::date as day;

/// For `Option<Option<T>>` fields: absent stays `None`, `null` becomes `Some(None)`.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

pub fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

/// RFC 3339 in UTC, as every response writes instants.
pub fn timestamp(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    at.format(&time::format_description::well_known::Rfc3339).unwrap_or_else(|_| at.to_string())
}

/// A missing required body field that `Option<Option<_>>` lets through.
pub fn required(field: &str) -> ApiError {
    ApiError::field(field, "is required")
}

pub fn customer_not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "CUSTOMER_NOT_FOUND", "no such customer")
}

fn user_not_found(field: &str) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "USER_NOT_FOUND", "no such active user").on_field(field)
}

/// The customer, or 404 `CUSTOMER_NOT_FOUND`.
pub async fn existing_customer(state: &AppState, id: Uuid) -> Result<Customer, ApiError> {
    state.crm.customers.find_by_id(id).await.map_err(ApiError::from)?.ok_or_else(customer_not_found)
}

/// The company, or 404 `NOT_FOUND` naming `company_id`.
pub async fn existing_company(state: &AppState, id: Uuid) -> Result<Company, ApiError> {
    let found = state.crm.companies.find_by_id(id).await.map_err(ApiError::from)?;
    found.ok_or_else(|| ApiError::not_found("no such company").on_field("company_id"))
}

/// `id` names an active user, or 404 `USER_NOT_FOUND` naming `field`.
pub async fn ensure_active_user(state: &AppState, id: Uuid, field: &str) -> Result<(), ApiError> {
    let user = state.identity.users.find_by_id(id).await.map_err(|e| ApiError::from_domain(&e))?;
    match user {
        Some(user) if user.status == UserStatus::Active => Ok(()),
        _ => Err(user_not_found(field)),
    }
}

/// `id` names a user (any status), or 404 `USER_NOT_FOUND` naming `field`.
pub async fn ensure_user(state: &AppState, id: Uuid, field: &str) -> Result<(), ApiError> {
    let user = state.identity.users.find_by_id(id).await.map_err(|e| ApiError::from_domain(&e))?;
    user.map(|_| ()).ok_or_else(|| user_not_found(field))
}

/// A phone number in E.164 form: must start with `+` and be valid for its country code.
/// Blank means "no phone".
pub fn e164(raw: Option<&str>) -> Result<Option<String>, ApiError> {
    let Some(text) = raw.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let invalid = || {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "INVALID_PHONE",
            "phone must be a valid international number starting with +",
        )
        .on_field("phone")
    };
    if !text.starts_with('+') {
        return Err(invalid());
    }
    let number = phonenumber::parse(None, text).map_err(|_| invalid())?;
    if !phonenumber::is_valid(&number) {
        return Err(invalid());
    }
    Ok(Some(number.format().mode(phonenumber::Mode::E164).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phones_are_validated_and_normalised() {
        assert_eq!(e164(Some(" +380 44 123 4567 ")).ok().flatten().as_deref(), Some("+380441234567"));
        assert_eq!(e164(Some("+1 (415) 555-2671")).ok().flatten().as_deref(), Some("+14155552671"));
        assert_eq!(e164(Some("  ")).ok().flatten(), None);
        for bad in ["0441234567", "+1", "+999 123", "phone", "+380 12"] {
            assert_eq!(e164(Some(bad)).map_err(|e| e.code), Err("INVALID_PHONE"), "{bad}");
        }
    }
}
