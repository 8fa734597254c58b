//! PostgreSQL adapters of the identity context.

pub mod contacts;
pub mod profiles;
pub mod revocations;
pub mod roles;
pub mod users;

pub use contacts::PgContactRepository;
pub use profiles::PgProfileRepository;
pub use revocations::{KvTokenRevocations, PgTokenRevocations};
pub use roles::PgRoleRepository;
pub use users::PgUserRepository;
