//! Repository ports of the identity context. The PostgreSQL adapter settles
//! every race in SQL (conditional updates, unique indexes, transactions) and
//! writes the given events to the outbox in the same transaction.

use std::time::Duration;

use async_trait::async_trait;
use shared_kernel::{EventEnvelope, Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::user::{StatusChange, UserStatus};

/// The shared storage error (`shared_kernel::StorageError`): the identity
/// ports' failures mean what they mean in every context.
pub use shared_kernel::StorageError as RepoError;

/// What to do when the first admin's email belongs to an existing account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExistingAccount {
    /// Leave any existing account exactly as it is (decisions §13.2): an admin that was since
    /// banned, locked or demoted stays so, and a stranger who registered the email is not promoted.
    Refuse,
    /// Promote it: set the password, activate, end its sessions, grant the roles.
    Promote,
}

/// The outcome of [`UserRepository::ensure_admin`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdminProvision {
    Created(Uuid),
    /// Already an admin (holds `admin` or `superadmin`): left as it is, whatever its status.
    AlreadyAdmin(Uuid),
    Promoted(Uuid),
    /// The email belongs to an account that is not an admin; nothing changed.
    RefusedNotAdmin,
}

/// A stored user, password hash included (never serialised to clients).
#[derive(Debug, Clone)]
pub struct UserRecord {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub password_hash: String,
    pub status: UserStatus,
    pub is_email_verified: bool,
    pub failed_login_count: i32,
    pub locked_until: Option<OffsetDateTime>,
    pub last_login_at: Option<OffsetDateTime>,
    pub token_version: i32,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

impl UserRecord {
    pub fn is_locked(&self, now: OffsetDateTime) -> bool {
        self.locked_until.is_some_and(|until| until > now)
    }
}

pub struct NewUser {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub password_hash: String,
}

#[derive(Debug, Clone, Default)]
pub struct UserFilter {
    pub status: Option<UserStatus>,
    pub is_email_verified: Option<bool>,
    /// Case-insensitive substring of email or name.
    pub search: Option<String>,
}

/// What a failed login did to the account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailedLogin {
    /// Counted; the account is still open.
    Counted,
    /// This failure reached the limit and locked the account.
    LockedNow,
    /// The account was already locked; nothing was counted.
    AlreadyLocked,
}

/// Who a token's subject is right now: checked on every request.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AccessProfile {
    pub status: UserStatus,
    pub token_version: i32,
    pub roles: Vec<String>,
    pub permissions: Vec<String>,
}

#[async_trait]
pub trait UserRepository: Send + Sync {
    /// Inserts the user with the `user` role and records `events`.
    async fn create(&self, user: NewUser, events: Vec<EventEnvelope>) -> Result<UserRecord, RepoError>;
    async fn find_by_id(&self, id: Uuid) -> Result<Option<UserRecord>, RepoError>;
    async fn find_by_email(&self, email: &str) -> Result<Option<UserRecord>, RepoError>;
    async fn list(&self, filter: &UserFilter, page: PageRequest) -> Result<Page<UserRecord>, RepoError>;
    /// Counts a failure atomically; locks for `lock_for` at `max_failures`.
    async fn record_failed_login(
        &self,
        id: Uuid,
        max_failures: u32,
        lock_for: Duration,
    ) -> Result<FailedLogin, RepoError>;
    /// Resets the count and stamps `last_login_at`; `false` if the account
    /// is locked (a concurrent failure may have locked it).
    async fn record_successful_login(&self, id: Uuid) -> Result<bool, RepoError>;
    /// Applies a status move if the user is still in `change.from`; bumps
    /// the token version when the move revokes tokens.
    async fn change_status(
        &self,
        id: Uuid,
        change: StatusChange,
        events: Vec<EventEnvelope>,
    ) -> Result<UserRecord, RepoError>;
    /// Replaces the hash and bumps the token version; with `revoke_api_keys`, revokes the user's
    /// API keys in the same transaction (decisions §13.2).
    async fn change_password(
        &self,
        id: Uuid,
        password_hash: String,
        revoke_api_keys: bool,
        events: Vec<EventEnvelope>,
    ) -> Result<(), RepoError>;
    async fn unlock(&self, id: Uuid) -> Result<UserRecord, RepoError>;
    async fn access_profile(&self, id: Uuid) -> Result<Option<AccessProfile>, RepoError>;
    /// Creates an active user with `email` holding the admin `roles` when no such
    /// user exists. An existing account is changed only when `existing` is
    /// `Promote` (then it is activated, given the roles, its password set and its
    /// sessions ended); with `Refuse` nothing changes, and the outcome says whether
    /// it is an admin.
    async fn ensure_admin(
        &self,
        user: NewUser,
        roles: &[&str],
        existing: ExistingAccount,
        events: Vec<EventEnvelope>,
    ) -> Result<AdminProvision, RepoError>;
}
