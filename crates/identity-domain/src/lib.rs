//! Identity context: users, their status machine, credentials rules,
//! role and permission names with wildcard matching, contacts and profiles.
//!
//! Pure Rust: persistence is behind the traits in [`ports`], implemented by
//! the infrastructure crate.

pub mod api_key;
pub mod authz;
pub mod contact;
pub mod credentials;
pub mod error;
pub mod events;
pub mod ports;
pub mod profile;
pub mod roles;
pub mod sessions;
pub mod user;

pub use authz::{
    may_act_on_self, may_administer, AccountAction, PermissionName, PermissionSet, RoleName, SUPERADMIN, SYSTEM_ROLES,
};
pub use credentials::{Email, Password};
pub use error::IdentityError;
pub use sessions::{Rotation, TokenRef, TokenRevocations};
pub use user::{StatusChange, UserStatus};
