//! PostgreSQL adapters of the identity context.

pub mod api_keys;
pub mod auth_notices;
pub mod contacts;
pub mod profiles;
pub mod revocations;
pub mod roles;
pub mod users;

use diesel::result::Error as DieselError;
use identity_domain::ports::RepoError;

use crate::storage::Constraints;

pub use api_keys::PgApiKeyRepository;
pub use contacts::PgContactRepository;
pub use profiles::PgProfileRepository;
pub use revocations::{KvTokenRevocations, PgTokenRevocations};
pub use roles::PgRoleRepository;
pub use users::PgUserRepository;

/// The request field each constraint of `migrations/…_identity` guards.
pub(crate) static CONSTRAINTS: Constraints = Constraints::new(&[
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
pub(crate) fn woken<T>(pool: &crate::DbPool, written: Result<T, RepoError>) -> Result<T, RepoError> {
    if written.is_ok() {
        pool.wake_relay();
    }
    written
}
