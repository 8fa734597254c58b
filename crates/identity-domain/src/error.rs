//! Errors of the identity context, each with its kind and wire code.

use shared_kernel::error::{Classified, ErrorKind};
use shared_kernel::StorageError;

/// What a use case looked for and did not find; each has its answer (404, `USER_NOT_FOUND` for a
/// user, `NOT_FOUND` for the rest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Missing {
    /// No such user (or a deleted one).
    #[error("no such user")]
    User,
    /// No such live role.
    #[error("no such role")]
    Role,
    /// No such permission.
    #[error("no such permission")]
    Permission,
    /// A grant named a missing role or a permission id that names nothing.
    #[error("no such role, or a permission id names nothing")]
    GrantTarget,
    /// The role does not grant the permission being taken away.
    #[error("the role does not hold this permission")]
    RolePermission,
    /// The user does not hold the role being taken away.
    #[error("the user does not hold this role")]
    UserRole,
    /// No such contact of the caller's (someone else's looks missing).
    #[error("no such contact")]
    Contact,
    /// No such live profile (or one the caller may not see).
    #[error("no such profile")]
    Profile,
    /// The caller has no profile yet.
    #[error("you have no profile yet")]
    OwnProfile,
    /// No such API key (of the caller's, unless an administrator asks).
    #[error("no such API key")]
    ApiKey,
}

/// Which unique name a write found taken: 409 `ALREADY_EXISTS`, with no field named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Taken {
    /// Another live role has the name.
    #[error("a role with this name already exists")]
    RoleName,
    /// Another permission has the `resource:action` pair.
    #[error("this resource:action pair already exists")]
    Permission,
    /// The user already has a live profile.
    #[error("you already have a profile")]
    Profile,
}

/// A refusal of what the caller may do, beyond the superadmin rule: 403 `FORBIDDEN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// System roles stay ([`crate::SYSTEM_ROLES`]).
    #[error("system roles cannot be deleted")]
    DeleteSystemRole,
    /// System roles keep their names.
    #[error("a system role cannot be renamed")]
    RenameSystemRole,
    /// `*:*` keeps administrators in charge.
    #[error("the *:* permission cannot change")]
    ChangeAllPermission,
    /// `*:*` keeps administrators in charge.
    #[error("the *:* permission cannot be deleted")]
    DeleteAllPermission,
    /// Only an administrator revokes someone else's token.
    #[error("only your own tokens can be revoked")]
    OthersToken,
    /// Only the owner changes a profile.
    #[error("only the owner may change a profile")]
    OthersProfile,
    /// The caller's roles do not allow the read (another user's account).
    #[error("you do not have permission to do this")]
    NoPermission,
}

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
    /// Self-registration is switched off: 403 `REGISTRATION_CLOSED`.
    #[error("self-registration is closed")]
    RegistrationClosed,
    /// Registration with an email a live account has: 409 `EMAIL_ALREADY_EXISTS`.
    #[error("this email is already registered")]
    EmailTaken,
    /// No account with this email, or a wrong password: 401 `INVALID_CREDENTIALS` (the two are not
    /// told apart).
    #[error("wrong email or password")]
    InvalidCredentials,
    /// Too many failed logins lock the account for a while: 423 `ACCOUNT_LOCKED`.
    #[error("too many failed logins; the account is locked for a while")]
    AccountLocked,
    /// A suspended account's login: 403 `ACCOUNT_SUSPENDED`.
    #[error("the account is suspended")]
    AccountSuspended,
    /// A banned account's login: 403 `ACCOUNT_BANNED`.
    #[error("the account is banned")]
    AccountBanned,
    /// The token (or its family, or its user's token version) was revoked: 401 `TOKEN_REVOKED`.
    #[error("the token has been revoked")]
    TokenRevoked,
    /// A refresh token of a user that no longer exists: 401 `UNAUTHORIZED`.
    #[error("the token's user no longer exists")]
    TokenUserGone,
    /// A refresh token of a user who is not active (holds the status): 401 `UNAUTHORIZED`.
    #[error("the account is {0}")]
    AccountNotActive(&'static str),
    /// A status move lost its race to another one: 409 `INVALID_STATUS_TRANSITION`.
    #[error("the user's status changed meanwhile")]
    StatusChangedMeanwhile,
    /// The user already holds the most live keys ([`crate::api_key::MAX_LIVE_KEYS_PER_USER`]): 409
    /// `TOO_MANY_API_KEYS`.
    #[error("you hold {} live API keys; revoke one before making another", crate::api_key::MAX_LIVE_KEYS_PER_USER)]
    TooManyApiKeys,
    /// The user's profile was banned, and a ban outlives it: 409 `PROFILE_BANNED`.
    #[error("your profile was banned; a new profile cannot be created")]
    ProfileBanned,
    /// What a use case works on does not exist: 404 with the thing's code.
    #[error("{0}")]
    NotFound(Missing),
    /// A unique name is taken: 409 `ALREADY_EXISTS`.
    #[error("{0}")]
    AlreadyExists(Taken),
    /// The caller may not do this: 403 `FORBIDDEN`.
    #[error("{0}")]
    Refused(Refusal),
    /// A port failed (docs/conventions.md, "Storage failures"): answered as storage errors are.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// Hashing a password or making a key's secret failed (a bug, or no randomness): 500
    /// `INTERNAL_ERROR`; the text is for the log only.
    #[error("a credential could not be made: {0}")]
    Credential(String),
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
            Self::SystemRole
            | Self::SuperadminOnly
            | Self::OwnAccount
            | Self::KeyBeyondCreator(_)
            | Self::RegistrationClosed
            | Self::AccountSuspended
            | Self::AccountBanned
            | Self::Refused(_) => ErrorKind::Forbidden,
            Self::InvalidCredentials | Self::TokenRevoked | Self::TokenUserGone | Self::AccountNotActive(_) => {
                ErrorKind::Unauthenticated
            }
            Self::AccountLocked => ErrorKind::Locked,
            Self::EmailTaken
            | Self::StatusChangedMeanwhile
            | Self::TooManyApiKeys
            | Self::ProfileBanned
            | Self::AlreadyExists(_) => ErrorKind::Conflict,
            Self::NotFound(_) => ErrorKind::NotFound,
            Self::Storage(error) => error.kind(),
            Self::Credential(_) => ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::Invalid { .. } => "VALIDATION_ERROR",
            Self::InvalidEmail => "INVALID_EMAIL",
            Self::InvalidPhone => "INVALID_PHONE",
            Self::InvalidStatusTransition { .. } => "INVALID_STATUS_TRANSITION",
            Self::SystemRole
            | Self::SuperadminOnly
            | Self::OwnAccount
            | Self::KeyBeyondCreator(_)
            | Self::Refused(_) => "FORBIDDEN",
            Self::RegistrationClosed => "REGISTRATION_CLOSED",
            Self::EmailTaken => "EMAIL_ALREADY_EXISTS",
            Self::InvalidCredentials => "INVALID_CREDENTIALS",
            Self::AccountLocked => "ACCOUNT_LOCKED",
            Self::AccountSuspended => "ACCOUNT_SUSPENDED",
            Self::AccountBanned => "ACCOUNT_BANNED",
            Self::TokenRevoked => "TOKEN_REVOKED",
            Self::TokenUserGone | Self::AccountNotActive(_) => "UNAUTHORIZED",
            Self::StatusChangedMeanwhile => "INVALID_STATUS_TRANSITION",
            Self::TooManyApiKeys => "TOO_MANY_API_KEYS",
            Self::ProfileBanned => "PROFILE_BANNED",
            Self::NotFound(Missing::User) => "USER_NOT_FOUND",
            Self::NotFound(_) => "NOT_FOUND",
            Self::AlreadyExists(_) => "ALREADY_EXISTS",
            Self::Storage(error) => error.code(),
            Self::Credential(_) => "INTERNAL_ERROR",
        }
    }
}
