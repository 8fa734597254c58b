//! PostgreSQL adapters of order management: the order repository, the reference checks of order
//! creation, and the subscriber that folds the warehouse's replies into orders.

pub(crate) mod errors;
mod rows;
pub mod schema;
mod store;

pub mod references;
pub mod replies;
pub mod repository;

pub use replies::WarehouseRepliesHandler;
pub use repository::PgOrderRepository;
