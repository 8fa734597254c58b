//! The ports the use cases need beyond the repositories: work that is not storage but must stay
//! out of the domain (CPU-heavy hashing, randomness, a phone-number library, the request guard's
//! cache of who may do what).

use async_trait::async_trait;
use uuid::Uuid;

use crate::credentials::Password;
use crate::user::UserStatus;
use crate::IdentityError;

/// Password hashing. bcrypt is CPU work of tens of milliseconds: the production adapter runs it
/// on a blocking pool so request workers never stall; a test adapter may be cheap.
#[async_trait]
pub trait PasswordHasher: Send + Sync {
    /// The stored form of `password`.
    async fn hash(&self, password: &Password) -> Result<String, IdentityError>;
    /// Whether `password` matches `stored`. With no stored hash (no such account) it does the same
    /// work against a stand-in and answers `false`, so an unknown email takes as long as a wrong
    /// password.
    async fn verify(&self, password: &str, stored: Option<&str>) -> Result<bool, IdentityError>;
}

/// What a session may be renewed with: the user as the request guard sees them now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionAccess {
    /// The user's status now.
    pub status: UserStatus,
    /// The user's token version now.
    pub token_version: i32,
    /// The names of the user's live roles.
    pub roles: Vec<String>,
}

/// What the request guard knows of each user (their roles, status and token version), kept in a
/// cache: use cases read it, and tell it when they change what a user may do.
#[async_trait]
pub trait AccessDirectory: Send + Sync {
    /// The user's live roles as the guard sees them; none for a missing user.
    async fn roles_of(&self, user_id: Uuid) -> Result<Vec<String>, IdentityError>;
    /// The user read fresh from storage (and kept for their next request); `None` when missing.
    async fn reload(&self, user_id: Uuid) -> Result<Option<SessionAccess>, IdentityError>;
    /// The user's roles, status or token version changed: forget what is kept of them.
    async fn forget_user(&self, user_id: Uuid);
    /// A role's or a permission's meaning changed: forget what is kept of everyone.
    async fn forget_everyone(&self);
}

/// A new API key's secret, as made by [`KeySecrets::generate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySecret {
    /// The key itself (`tly_…`), shown to its owner once.
    pub key: String,
    /// What lists show of it.
    pub shown_prefix: String,
    /// What is stored of it.
    pub hash: Vec<u8>,
}

/// Where API key secrets come from (the operating system's randomness in production).
pub trait KeySecrets: Send + Sync {
    /// A new, unguessable secret.
    fn generate(&self) -> Result<KeySecret, IdentityError>;
}

/// The phone number rule of contacts: `+`, a country code and a number valid for it.
pub trait PhoneNumbers: Send + Sync {
    /// `raw` as E.164, or [`IdentityError::InvalidPhone`].
    fn normalise(&self, raw: &str) -> Result<String, IdentityError>;
}
