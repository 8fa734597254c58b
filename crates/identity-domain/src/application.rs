//! The identity context's use cases, in one place: each service below is a plain struct holding its
//! ports, with one `async fn` per use case. They decide; the ports store. No HTTP, no database, no
//! runtime: the api's handlers parse, call and map, and the in-memory adapters (feature `memory`)
//! run the same code offline (`examples/onboarding.rs`).
//!
//! | Service | Use cases |
//! |---|---|
//! | [`Accounts`] | register, log in, change password (revoking API keys unless kept), provision the first admin |
//! | [`Sessions`] | refresh (rotating the refresh token), revoke a token |
//! | [`UserAdministration`] | view a user, change a status, unlock |
//! | [`RoleAdministration`] | roles, their permissions, who holds which role; permissions |
//! | [`Contacts`] | a user's contacts: create, update, delete, verify, make primary |
//! | [`Profiles`] | a user's profile, its visibility, and its moderation |
//! | [`ApiKeys`] | make a key (the password asked again), list, revoke |
//!
//! Every use case that acts on someone else's account, what belongs to it, or a role applies the
//! superadmin rule first ([`guard`]): nobody locks themselves out, and superadmins and their role
//! are a superadmin's business (docs/identity.md, "Authorization").

mod accounts;
mod api_keys;
mod contacts;
pub mod guard;
mod permissions;
pub mod ports;
mod profiles;
mod roles;
mod sessions;
mod users;

use std::sync::Arc;
use std::time::Duration;

use shared_kernel::application::Clock;
use uuid::Uuid;

pub use accounts::{
    registered_event, Accounts, AdminAccount, PasswordChange, PasswordChanged, Registration, SignedIn, ADMIN_ROLES,
};
pub use api_keys::{ApiKeys, IssuedKey, KeyRequest};
pub use contacts::{AddressInput, ContactInput, Contacts};
pub use guard::Target;
pub use profiles::Profiles;
pub use roles::{grant_list, RoleAdministration, MAX_PERMISSION_IDS};
pub use sessions::{PresentedToken, Renewal, Sessions};
pub use users::UserAdministration;

use crate::api_key::ApiKeyRepository;
use crate::authz::PermissionSet;
use crate::contact::ContactRepository;
use crate::ports::UserRepository;
use crate::profile::ProfileRepository;
use crate::roles::RoleRepository;
use crate::sessions::TokenRevocations;
use ports::{AccessDirectory, KeySecrets, PasswordHasher, PhoneNumbers};

/// Who a use case acts for: the signed-in user, their current roles and permissions (read by the
/// request guard, not taken from a token).
#[derive(Debug, Clone, Copy)]
pub struct Actor<'a> {
    /// The acting user.
    pub user_id: Uuid,
    /// Their live roles' names.
    pub roles: &'a [String],
    /// The union of their roles' permissions.
    pub permissions: &'a PermissionSet,
}

impl Actor<'_> {
    /// Whether the actor holds the role `name`.
    pub fn has_role(&self, name: &str) -> bool {
        self.roles.iter().any(|r| r == name)
    }

    /// `admin` or `superadmin`.
    pub fn is_admin(&self) -> bool {
        self.has_role("admin") || self.has_role(crate::SUPERADMIN)
    }
}

/// The operator's choices the account use cases follow (docs/identity.md, "Passwords and lock-out").
#[derive(Debug, Clone, Copy)]
pub struct AccountPolicy {
    /// Whether anyone may register (`REGISTRATION=open`).
    pub registration_open: bool,
    /// Failed logins that lock an account.
    pub max_failed_logins: u32,
    /// How long a lock-out lasts.
    pub lock_for: Duration,
    /// How long a session's refresh tokens live: a family reused after a theft is revoked this long.
    pub refresh_ttl: Duration,
}

/// Every port the identity use cases need, to build them all at once ([`IdentityApplication::new`]).
#[derive(Clone)]
pub struct IdentityPorts {
    /// Accounts.
    pub users: Arc<dyn UserRepository>,
    /// Roles, permissions and who holds which role.
    pub roles: Arc<dyn RoleRepository>,
    /// Users' contacts.
    pub contacts: Arc<dyn ContactRepository>,
    /// Users' profiles.
    pub profiles: Arc<dyn ProfileRepository>,
    /// Service credentials.
    pub api_keys: Arc<dyn ApiKeyRepository>,
    /// Revoked tokens and refresh-token families.
    pub revocations: Arc<dyn TokenRevocations>,
    /// Password hashing, off the request's thread.
    pub hasher: Arc<dyn PasswordHasher>,
    /// What the request guard knows of each user.
    pub access: Arc<dyn AccessDirectory>,
    /// New API key secrets.
    pub secrets: Arc<dyn KeySecrets>,
    /// Phone number rules.
    pub phones: Arc<dyn PhoneNumbers>,
    /// The time.
    pub clock: Arc<dyn Clock>,
}

/// Every identity use-case service, built from one set of ports.
#[derive(Clone)]
pub struct IdentityApplication {
    /// Registration, login, password change.
    pub accounts: Accounts,
    /// Token refresh and revocation.
    pub sessions: Sessions,
    /// Users' status and lock-out, as an administrator.
    pub users: UserAdministration,
    /// Roles and permissions.
    pub roles: RoleAdministration,
    /// Users' contacts.
    pub contacts: Contacts,
    /// Users' profiles.
    pub profiles: Profiles,
    /// API keys.
    pub api_keys: ApiKeys,
}

impl IdentityApplication {
    /// The services over `ports`, following `policy`.
    pub fn new(ports: IdentityPorts, policy: AccountPolicy) -> Self {
        let accounts = Accounts::new(&ports, policy);
        Self {
            sessions: Sessions::new(&ports, policy),
            users: UserAdministration::new(&ports),
            roles: RoleAdministration::new(&ports),
            contacts: Contacts::new(&ports),
            profiles: Profiles::new(&ports),
            api_keys: ApiKeys::new(&ports, accounts.credentials()),
            accounts,
        }
    }
}
