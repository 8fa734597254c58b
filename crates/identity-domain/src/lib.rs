//! Identity context: who may use Tally and what they may do.
//!
//! Pure Rust, no I/O: every rule here is a function of the values passed in (the clock included), and
//! persistence is behind the repository traits (ports), implemented by the `identity-postgres` crate.
//! docs/identity.md and docs/contacts-and-profiles.md describe the behaviour seen from the API.
//!
//! # Aggregates and values
//!
//! - **User** ([`ports::UserRecord`]): an account with a unique, normalised [`Email`], a bcrypt hash of a
//!   [`Password`] (8..=72 bytes), a [`UserStatus`], a failed-login count and lock-out, and a *token
//!   version* that every issued token carries: bumping it ends all of the user's sessions.
//! - **Roles and permissions** ([`authz`], [`roles`]): a [`RoleName`] such as `manager`, five of them
//!   system roles ([`SYSTEM_ROLES`]); a [`PermissionName`] `resource:action` where either side may be
//!   `*`. A caller may do what the union of their roles' permissions ([`PermissionSet`]) allows.
//! - **API keys** ([`api_key`]): a service credential owned by a user, holding a subset of the owner's
//!   permissions, usable until revoked or expired.
//! - **Sessions** ([`sessions`]): refresh-token families; reusing a spent refresh token revokes its
//!   family.
//! - **Contacts** ([`contact`]) and **profiles** ([`profile`]): a user's typed contact values (one
//!   primary per type) and their one public-facing profile, which an administrator may verify or ban.
//!
//! # State machines
//!
//! **User status** ([`UserStatus`], [`UserStatus::move_to`]):
//!
//! | From | To | Trigger |
//! |---|---|---|
//! | `active` | `suspended` | an administrator suspends the account |
//! | `suspended` | `active` | an administrator reactivates it |
//! | `active` or `suspended` | `banned` | an administrator bans it; `banned` is final |
//!
//! Any other move is [`IdentityError::InvalidStatusTransition`] (409). Leaving `active` revokes every
//! token of the user ([`StatusChange::revokes_tokens`]).
//!
//! **Refresh token** ([`Rotation`]): a refresh token is *live* until presented once (`Rotated`: a new
//! pair is issued); presenting it again, or one of a revoked family, issues nothing (`Reused`,
//! `FamilyRevoked`) and the whole family is revoked.
//!
//! **API key** ([`api_key::ApiKeyRecord::usable`]): usable → revoked (explicitly, or by a password
//! change) or expired (when `expires_at` passes); both are final.
//!
//! **Profile moderation** ([`profile::Moderation`]): a profile may be verified and may be banned; a ban
//! outlives the profile and refuses any new one for the same user.
//!
//! # Authorization rules
//!
//! [`may_administer`] keeps everything about the `superadmin` role and its holders to superadmins;
//! [`may_act_on_self`] keeps an administrator from locking themselves out. Both return
//! [`IdentityError`] variants that the HTTP layer answers 403 `FORBIDDEN`.
//!
//! # Ports
//!
//! [`ports::UserRepository`], [`roles::RoleRepository`], [`api_key::ApiKeyRepository`],
//! [`TokenRevocations`], [`contact::ContactRepository`] and [`profile::ProfileRepository`]. They fail
//! with [`ports::RepoError`] (the shared storage error): `NotFound` for a missing, soft-deleted or
//! someone else's record, `Conflict { field }` for a taken unique value, `Stale` for a conditional
//! update that matched no row, `MissingReference { field }` for an unknown reference. Adapters settle
//! every race in the database (conditional updates on the expected status, unique indexes,
//! transactions) and write the given events to the outbox in the same transaction as the change.
//!
//! # Example
//!
//! Validating a status change and deciding who may make it, before asking the repository to apply it:
//!
//! ```
//! use identity_domain::{may_act_on_self, may_administer, AccountAction, IdentityError, UserStatus};
//!
//! // An admin suspends an ordinary user: allowed, and it ends the user's sessions.
//! may_administer(&["admin"], &["user"], AccountAction::ChangeStatus)?;
//! let change = UserStatus::Active.move_to(UserStatus::Suspended)?;
//! assert!(change.revokes_tokens());
//! assert_eq!(change.to.event_name(), "identity.user.suspended");
//!
//! // A ban is final, a superadmin is a superadmin's business, and nobody suspends themselves.
//! assert!(UserStatus::Banned.move_to(UserStatus::Active).is_err());
//! assert_eq!(
//!     may_administer(&["admin"], &["superadmin"], AccountAction::ChangeStatus),
//!     Err(IdentityError::SuperadminOnly)
//! );
//! assert_eq!(may_act_on_self(AccountAction::ChangeStatus), Err(IdentityError::OwnAccount));
//! # Ok::<(), IdentityError>(())
//! ```
//!
//! Permissions honour the `resource:*`, `*:action` and `*:*` wildcards:
//!
//! ```
//! use identity_domain::{IdentityError, PermissionName, PermissionSet};
//!
//! let caller = PermissionSet::from_names(["customers:*", "orders:read"]);
//! assert!(caller.allows("customers", "delete") && caller.allows("orders", "read"));
//! assert!(!caller.allows("orders", "create"));
//!
//! let name = PermissionName::parse("orders:read")?;
//! assert_eq!(name.name(), "orders:read");
//! assert!(PermissionName::parse("Orders").is_err());
//! # Ok::<(), IdentityError>(())
//! ```
#![deny(missing_docs)]

pub mod api_key;
pub mod application;
pub mod authz;
pub mod contact;
#[cfg(feature = "contract")]
pub mod contract;
pub mod credentials;
pub mod error;
pub mod events;
#[cfg(feature = "memory")]
pub mod memory;
pub mod ports;
pub mod profile;
pub mod roles;
pub mod sessions;
pub mod user;

pub use authz::{
    may_act_on_self, may_administer, AccountAction, PermissionName, PermissionSet, RoleName, SUPERADMIN, SYSTEM_ROLES,
};
pub use credentials::{Email, Password};
pub use error::{IdentityError, Missing, Refusal, Taken};
pub use sessions::{Rotation, TokenRef, TokenRevocations};
pub use user::{StatusChange, UserStatus};
