//! Errors of the identity context, each with its kind and wire code.

use shared_kernel::error::{Classified, ErrorKind};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    #[error("{field}: {message}")]
    Invalid { field: &'static str, message: String },
    #[error("email is not a valid address")]
    InvalidEmail,
    #[error("phone must start with + and be a valid number for its country code")]
    InvalidPhone,
    #[error("cannot move a user from {from} to {to}")]
    InvalidStatusTransition { from: &'static str, to: &'static str },
    #[error("system roles cannot be changed this way")]
    SystemRole,
    /// Decisions §12.1, §13.2: the superadmin role, and superadmins, are a
    /// superadmin's business.
    #[error(
        "only a superadmin may grant, remove or change the superadmin role, or act on a superadmin's \
         account, tokens, keys or profile"
    )]
    SuperadminOnly,
    /// An administrator cannot lock themselves out: no status change of
    /// their own account, no removing their own admin or superadmin role.
    #[error("you cannot change your own account's status or remove your own administrator role")]
    OwnAccount,
    /// Decisions 12.6: an API key's permissions are a subset of its creator's.
    #[error("you cannot give a key the permission {0}, which you do not hold")]
    KeyBeyondCreator(String),
}

impl From<shared_kernel::InvalidEmail> for IdentityError {
    fn from(_: shared_kernel::InvalidEmail) -> Self {
        Self::InvalidEmail
    }
}

impl IdentityError {
    pub fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        Self::Invalid { field, message: message.into() }
    }

    /// The request field the error is about, for `details`.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            Self::Invalid { field, .. } => Some(field),
            Self::InvalidEmail => Some("email"),
            Self::InvalidPhone => Some("phone"),
            _ => None,
        }
    }
}

impl Classified for IdentityError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Invalid { .. } | Self::InvalidEmail | Self::InvalidPhone => ErrorKind::Validation,
            Self::InvalidStatusTransition { .. } => ErrorKind::Conflict,
            Self::SystemRole | Self::SuperadminOnly | Self::OwnAccount | Self::KeyBeyondCreator(_) => {
                ErrorKind::Forbidden
            }
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::Invalid { .. } => "VALIDATION_ERROR",
            Self::InvalidEmail => "INVALID_EMAIL",
            Self::InvalidPhone => "INVALID_PHONE",
            Self::InvalidStatusTransition { .. } => "INVALID_STATUS_TRANSITION",
            Self::SystemRole | Self::SuperadminOnly | Self::OwnAccount | Self::KeyBeyondCreator(_) => "FORBIDDEN",
        }
    }
}
