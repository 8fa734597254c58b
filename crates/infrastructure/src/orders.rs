//! PostgreSQL adapters of order management: the order repository and the subscriber that folds the
//! warehouse's replies into orders. They touch the order context's tables only: what an order names
//! in other contexts is asked through the order domain's ports (`order_domain::application::ports`).

pub(crate) mod errors;
mod rows;
pub mod schema;
mod store;

pub mod replies;
pub mod repository;

pub use replies::WarehouseRepliesHandler;
pub use repository::PgOrderRepository;
