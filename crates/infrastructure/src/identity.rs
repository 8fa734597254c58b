//! PostgreSQL adapters of the identity context.

pub mod users;

pub use users::PgUserRepository;
