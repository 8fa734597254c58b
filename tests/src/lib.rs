//! Test support: a private database per test, cloned from a migrated
//! template, and the real actix app wired to it.
//!
//! The template's name carries a hash of `migrations/`, so a changed
//! migration gets a fresh template while parallel test processes share an
//! unchanged one. Each test database is dropped when its `TestDb` drops;
//! leftovers of crashed runs are swept when a template is made.

pub mod app;
pub mod db;
pub mod logs;
pub mod receiver;
pub mod served;

pub use app::{
    bearer, body_json, call, login, register, register_staff, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD,
    STAFF_ROLE_ID,
};
pub use db::TestDb;
pub use receiver::{Received, Receiver};
pub use served::Served;

/// Server-level URL used to create and drop test databases.
pub fn admin_url() -> String {
    std::env::var("TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

pub fn redis_url() -> String {
    std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned())
}

/// A key prefix no other test (or instance) uses.
pub fn unique_prefix(label: &str) -> String {
    format!("tally-test:{label}:{}", shared_kernel::new_id().simple())
}
