//! Errors of the identity context, each with its kind and wire code.

use shared_kernel::error::{Classified, ErrorKind};

/// Why the identity rules refused a request; [`Classified`] gives each case its kind and wire code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    /// A field breaks a shape rule: 400 `VALIDATION_ERROR`.
    #[error("{field}: {message}")]
    Invalid {
        /// The request field at fault (`name`, `display_name`, `address.country`, ...).
        field: &'static str,
        /// What the rule is, for the client (`must be 1 to 100 characters`).
        message: String,
    },
    /// The email breaks the shared address rule: 400 `INVALID_EMAIL`.
    #[error("email is not a valid address")]
    InvalidEmail,
    /// The phone is not a valid E.164 number: 400 `INVALID_PHONE`.
    #[error("phone must start with + and be a valid number for its country code")]
    InvalidPhone,
    /// The user status machine has no such move (a banned user never comes back): 409
    /// `INVALID_STATUS_TRANSITION`.
    #[error("cannot move a user from {from} to {to}")]
    InvalidStatusTransition {
        /// The user's current status (`active`, `suspended`, `banned`).
        from: &'static str,
        /// The status asked for.
        to: &'static str,
    },
    /// A system role (see [`crate::SYSTEM_ROLES`]) cannot be deleted or renamed: 403 `FORBIDDEN`.
    #[error("system roles cannot be changed this way")]
    SystemRole,
    /// The superadmin role, and superadmins, are a superadmin's business (see
    /// [`crate::may_administer`]): 403 `FORBIDDEN`.
    #[error(
        "only a superadmin may grant, remove or change the superadmin role, or act on a superadmin's \
         account, tokens, keys or profile"
    )]
    SuperadminOnly,
    /// An administrator cannot lock themselves out: no status change of
    /// their own account, no removing their own admin or superadmin role (403 `FORBIDDEN`).
    #[error("you cannot change your own account's status or remove your own administrator role")]
    OwnAccount,
    /// An API key's permissions are a subset of its creator's (docs/identity.md, "API keys"); holds
    /// the permission name the creator lacks. 403 `FORBIDDEN`.
    #[error("you cannot give a key the permission {0}, which you do not hold")]
    KeyBeyondCreator(String),
}

impl From<shared_kernel::InvalidEmail> for IdentityError {
    fn from(_: shared_kernel::InvalidEmail) -> Self {
        Self::InvalidEmail
    }
}

impl IdentityError {
    /// An [`IdentityError::Invalid`] for `field` with the rule it broke.
    pub fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        Self::Invalid { field, message: message.into() }
    }

    /// The request field the error is about, for `details`; `None` for refusals that concern no
    /// single field.
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
