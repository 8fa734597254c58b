//! The error envelope `{status: "error", error: {code, message, details?}}`
//! and the single mapping from error kinds to HTTP statuses.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use postgres_toolkit::DbError;
use serde::Serialize;
use shared_kernel::error::{Classified, ErrorKind};
use shared_kernel::{PaginationError, StorageError};

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub details: Option<BTreeMap<String, String>>,
    /// Extra headers (e.g. `Retry-After`).
    pub headers: Vec<(&'static str, String)>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    status: &'static str,
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    code: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<std::borrow::Cow<'a, BTreeMap<String, String>>>,
}

/// The most problems `details` names; a key `_more` then says how many were left out (docs/bounded-work.md).
pub const MAX_DETAILS: usize = 50;
/// The longest field name or problem text in `details`, and the longest message, in characters: with
/// [`MAX_DETAILS`] they keep every error answer under 16 KiB, whatever the request held.
const MAX_DETAIL_CHARS: usize = 120;
const MAX_MESSAGE_CHARS: usize = 1000;

/// `text`, cut to `limit` characters (with `…` when cut).
fn clipped(text: &str, limit: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(limit) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => std::borrow::Cow::Owned(format!("{}…", &text[..end])),
    }
}

/// The details as answered: at most [`MAX_DETAILS`] problems, each clipped, and `_more` for the rest.
fn bounded(details: &BTreeMap<String, String>) -> std::borrow::Cow<'_, BTreeMap<String, String>> {
    let long = |text: &String| text.chars().nth(MAX_DETAIL_CHARS).is_some();
    let more = super::body_schema::MORE;
    let listed = details.len() - usize::from(details.contains_key(more));
    if listed <= MAX_DETAILS && !details.iter().any(|(field, problem)| long(field) || long(problem)) {
        return std::borrow::Cow::Borrowed(details);
    }
    let mut kept: BTreeMap<String, String> = details
        .iter()
        .filter(|(field, _)| field.as_str() != more)
        .take(MAX_DETAILS)
        .map(|(field, problem)| {
            (clipped(field, MAX_DETAIL_CHARS).into_owned(), clipped(problem, MAX_DETAIL_CHARS).into_owned())
        })
        .collect();
    // A `_more` of whoever made the details (the body's schema check, which stops at the limit) is kept.
    match (listed.saturating_sub(MAX_DETAILS), details.get(more)) {
        (0, Some(counted)) => kept.insert(more.to_owned(), counted.clone()),
        (0, None) => None,
        (left_out, _) => kept.insert(more.to_owned(), format!("{left_out} more problems not listed")),
    };
    std::borrow::Cow::Owned(kept)
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        let message = message.into();
        let message = match clipped(&message, MAX_MESSAGE_CHARS) {
            std::borrow::Cow::Borrowed(_) => message,
            std::borrow::Cow::Owned(cut) => cut,
        };
        Self { status, code, message, details: None, headers: Vec::new() }
    }

    pub fn with_details(mut self, details: BTreeMap<String, String>) -> Self {
        self.details = (!details.is_empty()).then_some(details);
        self
    }

    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message)
    }

    /// A validation error about one field.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        let message = message.into();
        let details = BTreeMap::from([(field.into(), message.clone())]);
        Self::validation(message).with_details(details)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "NOT_FOUND", message)
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, message)
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "UNAUTHORIZED", message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "FORBIDDEN", message)
    }

    pub fn invalid_uuid(what: &str) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "INVALID_UUID", format!("{what} must be a UUID"))
    }

    /// A failure that is ours, not the caller's: logged with its cause,
    /// answered with a generic message.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_ERROR", "an internal error occurred")
    }

    /// 503 with `Retry-After`: a dependency failed or was busy (a lock wait ran out, a queue was full).
    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %cause, "dependency unavailable");
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "SERVICE_UNAVAILABLE",
            "a dependency is unavailable; try again shortly",
        )
        .with_header("retry-after", "1")
    }

    /// A domain error, by its kind and code.
    pub fn from_domain<E: Classified + std::fmt::Display>(error: &E) -> Self {
        match error.kind() {
            ErrorKind::Internal => Self::internal(error),
            ErrorKind::Unavailable => Self::unavailable(error),
            kind => Self::new(status_of(kind), error.code(), error.to_string()),
        }
    }

    /// The envelope, fields in wire order (`status` first).
    fn body(&self) -> ErrorBody<'_> {
        ErrorBody {
            status: "error",
            error: ErrorDetail { code: self.code, message: &self.message, details: self.details.as_ref().map(bounded) },
        }
    }

    /// A domain error about one request field: `details` names the field.
    pub fn from_domain_field<E: Classified + std::fmt::Display>(error: &E, field: Option<&str>) -> Self {
        let api = Self::from_domain(error);
        match field {
            Some(field) => api.on_field(field),
            None => api,
        }
    }

    /// The same error, with `details` naming the request field it concerns.
    pub fn on_field(self, field: &str) -> Self {
        let message = self.message.clone();
        self.with_details(BTreeMap::from([(field.to_owned(), message)]))
    }

    /// A storage error where a missing record has the resource's own answer
    /// (`ORDER_NOT_FOUND`, "no such role"); everything else as `From` maps it.
    pub fn storage_or(error: StorageError, not_found: impl FnOnce() -> ApiError) -> Self {
        match error {
            StorageError::NotFound => not_found(),
            other => other.into(),
        }
    }

    pub fn body_json(&self) -> serde_json::Value {
        serde_json::to_value(self.body()).unwrap_or(serde_json::Value::Null)
    }

    /// The error as a response with `status` (framework errors keep theirs).
    pub fn to_response(&self, status: StatusCode) -> HttpResponse {
        let mut response = HttpResponse::build(status);
        for (name, value) in &self.headers {
            response.insert_header((*name, value.as_str()));
        }
        response.json(self.body())
    }
}

/// The only place an error kind becomes an HTTP status.
pub fn status_of(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::Validation => StatusCode::BAD_REQUEST,
        ErrorKind::Unauthenticated => StatusCode::UNAUTHORIZED,
        ErrorKind::Forbidden => StatusCode::FORBIDDEN,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Conflict => StatusCode::CONFLICT,
        ErrorKind::Locked => StatusCode::LOCKED,
        ErrorKind::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.message)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        self.to_response(self.status)
    }
}

/// The one mapping of storage failures: status and code by meaning, and the
/// field a conflict or a missing reference concerns in `details`.
impl From<StorageError> for ApiError {
    fn from(error: StorageError) -> Self {
        let field = error.field().filter(|field| *field != "resource");
        Self::from_domain_field(&error, field)
    }
}

/// A warehouse port's failure: storage as above, a refusal as the domain says.
impl From<warehouse_domain::RepoError> for ApiError {
    fn from(error: warehouse_domain::RepoError) -> Self {
        match error {
            warehouse_domain::RepoError::Storage(error) => error.into(),
            warehouse_domain::RepoError::Refused(error) => Self::from_domain_field(&error, error.field()),
        }
    }
}

/// An order use case's failure: storage as above, anything else by its code, with `details` naming
/// the field it concerns.
impl From<order_domain::application::OrderUseCaseError> for ApiError {
    fn from(error: order_domain::application::OrderUseCaseError) -> Self {
        match error {
            order_domain::application::OrderUseCaseError::Storage(error) => error.into(),
            other => Self::from_domain_field(&other, other.field()),
        }
    }
}

impl From<DbError> for ApiError {
    fn from(error: DbError) -> Self {
        match error {
            DbError::Unavailable(_) => Self::unavailable(error),
            // A statement's failure means what the storage mapping says (a lock wait that ran out: 503).
            DbError::Query(_) => StorageError::from(error).into(),
            other => Self::internal(other),
        }
    }
}

impl From<PaginationError> for ApiError {
    fn from(error: PaginationError) -> Self {
        let field = match error {
            PaginationError::Page => "page",
            PaginationError::PageSize => "page_size",
        };
        Self::field(field, error.to_string())
    }
}

/// A customer-management use case's failure: storage as above, the rest by its code and field.
impl From<crm_domain::application::CrmError> for ApiError {
    fn from(error: crm_domain::application::CrmError) -> Self {
        match error {
            crm_domain::application::CrmError::Storage(error) => error.into(),
            other => Self::from_domain_field(&other, other.field()),
        }
    }
}

/// An identity use case's failure: storage as above, a refusal by its kind and code, with `details`
/// naming the field a validation error concerns.
impl From<identity_domain::IdentityError> for ApiError {
    fn from(error: identity_domain::IdentityError) -> Self {
        match error {
            identity_domain::IdentityError::Storage(error) => error.into(),
            other => Self::from_domain_field(&other, other.field()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_shape() {
        let error = ApiError::field("email", "is required");
        assert_eq!(
            error.body_json(),
            serde_json::json!({"status": "error", "error": {"code": "VALIDATION_ERROR", "message": "is required", "details": {"email": "is required"}}})
        );
        let plain = ApiError::not_found("no such thing").body_json();
        assert!(plain["error"].get("details").is_none());
    }

    #[test]
    fn details_are_bounded() {
        let many: BTreeMap<String, String> =
            (0..500_000).map(|at| (format!("permissions[{at}]"), "x".repeat(300))).collect();
        let error = ApiError::validation("bad").with_details(many);
        let body = serde_json::to_vec(&error.body_json()).expect("json");
        assert!(body.len() < 16 * 1024, "{} bytes", body.len());
        let details = &error.body_json()["error"]["details"];
        assert_eq!(details.as_object().map(|d| d.len()), Some(MAX_DETAILS + 1));
        assert_eq!(details["_more"], "499950 more problems not listed");
        let long = ApiError::validation("m".repeat(100_000));
        assert!(serde_json::to_vec(&long.body_json()).expect("json").len() < 16 * 1024);
    }

    #[test]
    fn internal_errors_hide_their_cause() {
        let error = ApiError::from(DbError::Migration("relation \"secret_table\" does not exist".into()));
        assert_eq!(error.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert!(!error.message.contains("secret_table"));
        let unavailable = ApiError::from(DbError::Unavailable("timed out".into()));
        assert_eq!(unavailable.status, StatusCode::SERVICE_UNAVAILABLE);
    }
}
