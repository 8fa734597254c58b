//! PostgreSQL adapters of the identity context: users, roles and permissions, contacts, profiles,
//! API keys and token revocations, with the `table!`s of identity's tables (`schema`) and its table
//! of constraint names ([`CONSTRAINTS`]).
//!
//! Depends on `postgres-toolkit` (connections, transactions, the outbox, the mapper of diesel errors),
//! its own domain crate, `shared-kernel` and `event-contracts`, never on another context's domain or
//! adapter crate (`make check-boundaries`). What it needs of another context comes through a port of its
//! domain crate that the api crate wires, or in an event's payload.

pub mod api_keys;
pub mod auth_notices;
pub mod contacts;
pub mod profiles;
pub mod revocations;
pub mod roles;
pub mod schema;
pub mod users;

use diesel::result::Error as DieselError;
use identity_domain::ports::RepoError;

use postgres_toolkit::storage::Constraints;

pub use api_keys::PgApiKeyRepository;
pub use contacts::PgContactRepository;
pub use profiles::PgProfileRepository;
pub use revocations::{KvTokenRevocations, PgTokenRevocations};
pub use roles::PgRoleRepository;
pub use users::PgUserRepository;

/// The request field each constraint of `migrations/…_identity` guards.
pub static CONSTRAINTS: Constraints = Constraints::new(&[
    ("users_email_key", "email"),
    ("roles_name_key", "name"),
    ("permissions_name_key", "name"),
    ("permissions_resource_action_key", "name"),
    ("contacts_one_primary_key", "is_primary"),
    ("contacts_user_id_fkey", "user_id"),
    ("contacts_country_fkey", "country"),
    ("profiles_user_key", "user_id"),
    ("profiles_user_id_fkey", "user_id"),
    ("profiles_country_fkey", "country"),
    ("profiles_language_fkey", "language"),
    ("profiles_timezone_fkey", "timezone"),
    ("user_roles_user_id_fkey", "user_id"),
    ("user_roles_role_id_fkey", "role_id"),
    ("role_permissions_role_id_fkey", "role_id"),
    ("role_permissions_permission_id_fkey", "permission_ids"),
    ("api_keys_user_id_fkey", "user_id"),
]);

pub(crate) fn from_diesel(error: DieselError) -> RepoError {
    CONSTRAINTS.map(error)
}

/// A write's outcome, once the relay was woken for the events it recorded (it claims them from the
/// outbox; docs/events.md).
pub(crate) fn woken<T>(pool: &postgres_toolkit::DbPool, written: Result<T, RepoError>) -> Result<T, RepoError> {
    if written.is_ok() {
        pool.wake_relay();
    }
    written
}
