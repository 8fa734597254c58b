//! The error envelope `{status: "error", error: {code, message, details?}}`
//! and the single mapping from error kinds to HTTP statuses.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use infrastructure::DbError;
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
    details: Option<&'a BTreeMap<String, String>>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into(), details: None, headers: Vec::new() }
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

    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "dependency unavailable");
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "SERVICE_UNAVAILABLE",
            "a dependency is unavailable; try again shortly",
        )
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
            error: ErrorDetail { code: self.code, message: &self.message, details: self.details.as_ref() },
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

impl From<DbError> for ApiError {
    fn from(error: DbError) -> Self {
        match error {
            DbError::Unavailable(_) => Self::unavailable(error),
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
    fn internal_errors_hide_their_cause() {
        let error = ApiError::from(DbError::Migration("relation \"secret_table\" does not exist".into()));
        assert_eq!(error.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert!(!error.message.contains("secret_table"));
        let unavailable = ApiError::from(DbError::Unavailable("timed out".into()));
        assert_eq!(unavailable.status, StatusCode::SERVICE_UNAVAILABLE);
    }
}
