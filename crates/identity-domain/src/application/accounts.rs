//! Accounts: registration, login, and a password change; and the password check those and a new
//! API key share (docs/identity.md, "Passwords and lock-out").

use std::sync::Arc;

use event_contracts::Topic;
use shared_kernel::application::Clock;
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use tracing::instrument;
use uuid::Uuid;

use super::ports::{AccessDirectory, PasswordHasher};
use super::{AccountPolicy, IdentityPorts};
use crate::credentials::{Email, Password};
use crate::events::{UserPasswordChanged, UserRegistered};
use crate::ports::{AdminProvision, ExistingAccount, FailedLogin, NewUser, RepoError, UserRecord, UserRepository};
use crate::user::UserStatus;
use crate::{IdentityError, Missing};

/// What a registration sends, as sent: the use case checks it.
#[derive(Debug, Clone)]
pub struct Registration {
    /// The login address.
    pub email: String,
    /// The person's name, 1..=255 characters after trimming.
    pub name: String,
    /// The password, 8..=72 bytes.
    pub password: String,
}

/// A user who proved who they are, and the roles their tokens name.
#[derive(Debug, Clone)]
pub struct SignedIn {
    /// The account.
    pub user: UserRecord,
    /// The account's live roles.
    pub roles: Vec<String>,
}

/// A password change as sent.
#[derive(Debug, Clone)]
pub struct PasswordChange {
    /// The password now, asked again.
    pub current_password: String,
    /// The new one, 8..=72 bytes.
    pub new_password: String,
    /// Keep the user's API keys working (by default a password change revokes them).
    pub keep_api_keys: bool,
}

/// What a password change did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PasswordChanged {
    /// Whether the user's API keys were revoked with it.
    pub api_keys_revoked: bool,
}

/// The first admin as the operator names it (`ADMIN_EMAIL`, `tally create-admin`), as given.
#[derive(Debug, Clone)]
pub struct AdminAccount {
    /// The login address.
    pub email: String,
    /// The password, 8..=72 bytes.
    pub password: String,
    /// The person's name; blank or absent means "Administrator".
    pub name: Option<String>,
}

/// The roles the first admin holds.
pub const ADMIN_ROLES: [&str; 2] = ["admin", "superadmin"];

/// `identity.user.registered` for a new account (self-registered or the first admin).
pub fn registered_event(user_id: Uuid, email: &Email, name: &str, at: OffsetDateTime) -> EventEnvelope {
    UserRegistered { user_id, email: email.clone(), name: name.to_owned() }.to_event(user_id, at)
}

/// The check a login makes, shared by every use case that asks for the password again.
#[derive(Clone)]
pub(crate) struct Credentials {
    users: Arc<dyn UserRepository>,
    hasher: Arc<dyn PasswordHasher>,
    clock: Arc<dyn Clock>,
    policy: AccountPolicy,
}

impl Credentials {
    /// Counts a wrong password toward the lock-out; the refusal to answer.
    async fn failed(&self, user_id: Uuid) -> IdentityError {
        let outcome =
            self.users.record_failed_login(user_id, self.policy.max_failed_logins, self.policy.lock_for).await;
        match outcome {
            Ok(FailedLogin::AlreadyLocked) => IdentityError::AccountLocked,
            Ok(FailedLogin::Counted | FailedLogin::LockedNow) => IdentityError::InvalidCredentials,
            Err(error) => error.into(),
        }
    }

    /// The user's account once `password` proves it is theirs, under the login's lock-out (a wrong
    /// password counts as a failed login).
    pub(crate) async fn confirm(&self, user_id: Uuid, password: &str) -> Result<UserRecord, IdentityError> {
        let user = self.users.find_by_id(user_id).await?.ok_or(IdentityError::NotFound(Missing::User))?;
        if user.is_locked(self.clock.now()) {
            return Err(IdentityError::AccountLocked);
        }
        if !self.hasher.verify(password, Some(&user.password_hash)).await? {
            return Err(self.failed(user.id).await);
        }
        Ok(user)
    }
}

/// Registration, login and password change.
#[derive(Clone)]
pub struct Accounts {
    credentials: Credentials,
    access: Arc<dyn AccessDirectory>,
}

impl Accounts {
    /// The service over `ports`, following `policy`.
    pub fn new(ports: &IdentityPorts, policy: AccountPolicy) -> Self {
        Self {
            credentials: Credentials {
                users: ports.users.clone(),
                hasher: ports.hasher.clone(),
                clock: ports.clock.clone(),
                policy,
            },
            access: ports.access.clone(),
        }
    }

    pub(crate) fn credentials(&self) -> Credentials {
        self.credentials.clone()
    }

    /// Creates an active account holding the `user` role. Refused, in this order: registration
    /// closed; the email, name or password invalid; the email taken (`EmailTaken`).
    #[instrument(skip_all, fields(user_id = tracing::field::Empty))]
    pub async fn register(&self, input: Registration) -> Result<SignedIn, IdentityError> {
        let c = &self.credentials;
        if !c.policy.registration_open {
            return Err(IdentityError::RegistrationClosed);
        }
        let email = Email::parse(&input.email)?;
        let name = input.name.trim();
        if name.is_empty() || name.chars().count() > 255 {
            return Err(IdentityError::invalid("name", "must be 1 to 255 characters"));
        }
        let password = Password::parse("password", &input.password)?;
        let password_hash = c.hasher.hash(&password).await?;
        let id = shared_kernel::new_id();
        let event = registered_event(id, &email, name, c.clock.now());
        let user = NewUser { id, email: email.into_string(), name: name.to_owned(), password_hash };
        let user = c.users.create(user, vec![event]).await.map_err(|error| match error {
            RepoError::Conflict { .. } => IdentityError::EmailTaken,
            other => other.into(),
        })?;
        tracing::Span::current().record("user_id", tracing::field::display(user.id));
        Ok(SignedIn { user, roles: vec!["user".to_owned()] })
    }

    /// Makes sure `account` is an admin holding [`ADMIN_ROLES`]: creates it (active, with
    /// `identity.user.registered`) when no user has its email. An existing account changes only
    /// when `existing` is `Promote` (activated, given the roles, its password set, its sessions
    /// ended); with `Refuse` nothing changes and the answer says whether it is an admin, so a
    /// restart never re-activates, re-grants or re-passwords an admin banned or demoted since
    /// (docs/identity.md, "First admin and secrets"). The email and password are checked first.
    #[instrument(skip_all)]
    pub async fn provision_admin(
        &self,
        account: AdminAccount,
        existing: ExistingAccount,
    ) -> Result<AdminProvision, IdentityError> {
        let c = &self.credentials;
        let email = Email::parse(&account.email)?;
        let password = Password::parse("password", &account.password)?;
        let password_hash = c.hasher.hash(&password).await?;
        let id = shared_kernel::new_id();
        let name = account.name.as_deref().map(str::trim).filter(|n| !n.is_empty()).unwrap_or("Administrator");
        let registered = registered_event(id, &email, name, c.clock.now());
        let user = NewUser { id, email: email.into_string(), name: name.to_owned(), password_hash };
        let outcome = c.users.ensure_admin(user, &ADMIN_ROLES, existing, vec![registered]).await?;
        match outcome {
            AdminProvision::Created(admin) | AdminProvision::AlreadyAdmin(admin) | AdminProvision::Promoted(admin) => {
                self.access.forget_user(admin).await;
            }
            AdminProvision::RefusedNotAdmin => {}
        }
        Ok(outcome)
    }

    /// Signs a user in. Refused, in this order: a locked account (`AccountLocked`, before any
    /// password work); a wrong password or unknown email (`InvalidCredentials`, counted toward the
    /// lock-out); a suspended or banned account; a lock-out a concurrent failure just set.
    #[instrument(skip_all)]
    pub async fn login(&self, email: &str, password: &str) -> Result<SignedIn, IdentityError> {
        let c = &self.credentials;
        // An address stored under an older, looser rule still signs in: look it up as stored.
        let lookup = Email::parse(email).map_or_else(|_| email.trim().to_lowercase(), Email::into_string);
        let user = c.users.find_by_email(&lookup).await?;
        if user.as_ref().is_some_and(|u| u.is_locked(c.clock.now())) {
            return Err(IdentityError::AccountLocked);
        }
        // Same hashing work whether or not the user exists.
        let matches = c.hasher.verify(password, user.as_ref().map(|u| u.password_hash.as_str())).await?;
        let Some(user) = user else {
            return Err(IdentityError::InvalidCredentials);
        };
        if !matches {
            return Err(c.failed(user.id).await);
        }
        match user.status {
            UserStatus::Suspended => return Err(IdentityError::AccountSuspended),
            UserStatus::Banned => return Err(IdentityError::AccountBanned),
            UserStatus::Active => {}
        }
        // A concurrent failure may have locked the account meanwhile.
        if !c.users.record_successful_login(user.id).await? {
            return Err(IdentityError::AccountLocked);
        }
        let roles = self.access.roles_of(user.id).await?;
        Ok(SignedIn { user, roles })
    }

    /// Replaces the actor's password once the current one is confirmed; every earlier token stops
    /// working, and the user's API keys too unless `keep_api_keys`. The new password is checked
    /// before the current one.
    #[instrument(skip_all, fields(user_id = %user_id))]
    pub async fn change_password(
        &self,
        user_id: Uuid,
        change: PasswordChange,
    ) -> Result<PasswordChanged, IdentityError> {
        let c = &self.credentials;
        let new_password = Password::parse("new_password", &change.new_password)?;
        let user = c.confirm(user_id, &change.current_password).await?;
        let hash = c.hasher.hash(&new_password).await?;
        let event = UserPasswordChanged { user_id: user.id }.to_event(user.id, c.clock.now());
        let revoke_keys = !change.keep_api_keys;
        c.users.change_password(user.id, hash, revoke_keys, vec![event]).await?;
        self.access.forget_user(user.id).await;
        Ok(PasswordChanged { api_keys_revoked: revoke_keys })
    }
}
