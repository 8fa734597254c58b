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
    /// Leave any existing account exactly as it is: an admin that was since banned, locked or
    /// demoted stays so, and a stranger who registered the email is not promoted.
    Refuse,
    /// Promote it: set the password, activate, end its sessions, grant the roles.
    Promote,
}

/// The outcome of [`UserRepository::ensure_admin`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdminProvision {
    /// No account had the email: a new active admin was created, with this id.
    Created(Uuid),
    /// Already an admin (holds `admin` or `superadmin`): left as it is, whatever its status.
    AlreadyAdmin(Uuid),
    /// An existing account (this id) was promoted, as [`ExistingAccount::Promote`] allowed.
    Promoted(Uuid),
    /// The email belongs to an account that is not an admin; nothing changed.
    RefusedNotAdmin,
}

/// A stored user, password hash included (never serialised to clients).
#[derive(Debug, Clone)]
pub struct UserRecord {
    /// The user's identity, also the subject of their tokens.
    pub id: Uuid,
    /// The login address, normalised and unique among live users.
    pub email: String,
    /// The person's name as registered.
    pub name: String,
    /// The bcrypt hash of the password.
    pub password_hash: String,
    /// Where the account stands in the status machine.
    pub status: UserStatus,
    /// Whether the user proved they own `email`.
    pub is_email_verified: bool,
    /// Failed logins since the last success or unlock; the lock-out limit counts these.
    pub failed_login_count: i32,
    /// Until when logins are refused after too many failures (423 `ACCOUNT_LOCKED`); past
    /// instants mean unlocked.
    pub locked_until: Option<OffsetDateTime>,
    /// When the user last logged in successfully.
    pub last_login_at: Option<OffsetDateTime>,
    /// Carried by every token issued (claim `tv`); bumping it revokes all earlier tokens at once.
    pub token_version: i32,
    /// When the account was created.
    pub created_at: OffsetDateTime,
    /// When the account last changed.
    pub updated_at: OffsetDateTime,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

impl UserRecord {
    /// Whether failed logins lock the account out at `now` (`locked_until` still ahead).
    pub fn is_locked(&self, now: OffsetDateTime) -> bool {
        self.locked_until.is_some_and(|until| until > now)
    }
}

/// A validated user to store; the account starts `active`, unverified, with token version 0.
pub struct NewUser {
    /// The identity chosen by the caller (a fresh [`shared_kernel::new_id`]).
    pub id: Uuid,
    /// The normalised address ([`crate::Email`]); a taken one is `Conflict { field: "email" }`.
    pub email: String,
    /// The person's name.
    pub name: String,
    /// The bcrypt hash of a [`crate::Password`]; never the password itself.
    pub password_hash: String,
}

/// Which users `UserRepository::list` returns; `None` fields filter nothing.
#[derive(Debug, Clone, Default)]
pub struct UserFilter {
    /// Only users in this status.
    pub status: Option<UserStatus>,
    /// Only verified (`true`) or unverified (`false`) emails.
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
    /// The user's status now; only `active` users are let through.
    pub status: UserStatus,
    /// The user's token version now; a token carrying another one is revoked.
    pub token_version: i32,
    /// The names of the live roles the user holds.
    pub roles: Vec<String>,
    /// The union of those roles' permission names (`resource:action`, wildcards included).
    pub permissions: Vec<String>,
}

/// Users: accounts, their status, login bookkeeping and credentials. Deleted users do not exist for
/// any method. Each change records the given `events` in its own transaction.
#[async_trait]
pub trait UserRepository: Send + Sync {
    /// Inserts the user with the `user` role and records `events`; a taken email is
    /// `Conflict { field: "email" }`.
    async fn create(&self, user: NewUser, events: Vec<EventEnvelope>) -> Result<UserRecord, RepoError>;
    /// The user `id`, if any.
    async fn find_by_id(&self, id: Uuid) -> Result<Option<UserRecord>, RepoError>;
    /// The user with this email (compared trimmed and lower-cased), if any.
    async fn find_by_email(&self, email: &str) -> Result<Option<UserRecord>, RepoError>;
    /// The name of each user among `ids` (deleted users and unknown ids are absent), in one read;
    /// order free. For other contexts that show who did something.
    async fn names(&self, ids: &[Uuid]) -> Result<Vec<(Uuid, String)>, RepoError>;
    /// One page of the users `filter` selects, newest first.
    async fn list(&self, filter: &UserFilter, page: PageRequest) -> Result<Page<UserRecord>, RepoError>;
    /// Counts a failure atomically; locks for `lock_for` at `max_failures`. Concurrent failures
    /// never count past the limit, and a locked account counts nothing.
    async fn record_failed_login(
        &self,
        id: Uuid,
        max_failures: u32,
        lock_for: Duration,
    ) -> Result<FailedLogin, RepoError>;
    /// Resets the count and stamps `last_login_at`; `false` if the account
    /// is locked (a concurrent failure may have locked it).
    async fn record_successful_login(&self, id: Uuid) -> Result<bool, RepoError>;
    /// Applies a status move if the user is still in `change.from` (`Stale` otherwise, `NotFound`
    /// for a missing user); bumps the token version when the move revokes tokens.
    async fn change_status(
        &self,
        id: Uuid,
        change: StatusChange,
        events: Vec<EventEnvelope>,
    ) -> Result<UserRecord, RepoError>;
    /// Replaces the hash and bumps the token version; with `revoke_api_keys`, revokes the user's
    /// API keys in the same transaction (docs/identity.md, "Passwords and lock-out"). `NotFound` for
    /// a missing user.
    async fn change_password(
        &self,
        id: Uuid,
        password_hash: String,
        revoke_api_keys: bool,
        events: Vec<EventEnvelope>,
    ) -> Result<(), RepoError>;
    /// Lifts a lock-out: clears `locked_until` and the failure count; `NotFound` for a missing user.
    async fn unlock(&self, id: Uuid) -> Result<UserRecord, RepoError>;
    /// What the user may do right now, read fresh; `None` for a missing or deleted user.
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
