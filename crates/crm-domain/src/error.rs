//! The one error shape every aggregate shares: a field that broke a rule.
//!
//! Each aggregate has its own error enum (so callers match on business cases), and each of them wraps a
//! [`FieldError`] in an `Invalid { field, message }` variant, so the HTTP layer can put the field in
//! `details` without knowing which aggregate failed.

use shared_kernel::error::{Classified, ErrorKind};

/// A value that breaks a shape rule; `field` is the wire name (`name`, `expected_close_date`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    /// The wire name of the field at fault.
    pub field: &'static str,
    /// The rule it broke, for the client (`must be at most 255 characters`).
    pub message: String,
}

impl FieldError {
    /// `field` broke the rule `message` says.
    pub fn new(field: &'static str, message: impl Into<String>) -> Self {
        Self { field, message: message.into() }
    }
}

impl Classified for FieldError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Validation
    }

    fn code(&self) -> &'static str {
        "VALIDATION_ERROR"
    }
}
