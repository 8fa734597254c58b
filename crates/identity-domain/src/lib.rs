//! Identity context: users, their status machine, credentials rules,
//! role and permission names with wildcard matching, contacts and profiles.
//!
//! Pure Rust: persistence is behind the traits in [`ports`], implemented by
//! the infrastructure crate.

pub mod authz;
pub mod contact;
pub mod credentials;
pub mod error;
pub mod events;
pub mod ports;
pub mod profile;
pub mod roles;
pub mod user;

pub use authz::{PermissionName, PermissionSet, RoleName, SYSTEM_ROLES};
pub use credentials::{Email, Password};
pub use error::IdentityError;
pub use user::{StatusChange, UserStatus};
