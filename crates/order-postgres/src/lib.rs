//! PostgreSQL adapters of order management: the order repository and the subscriber that folds the
//! warehouse's replies into orders, with the `table!`s of the context's tables (`schema`) and its
//! table of constraint names ([`CONSTRAINTS`]). They touch the order context's tables only: what an
//! order names in other contexts is asked through the order domain's ports
//! (`order_domain::application::ports`), wired in the api crate.
//!
//! Depends on `postgres-toolkit` (connections, transactions, the outbox, the mapper of diesel errors),
//! its own domain crate, `shared-kernel` and `event-contracts`, never on another context's domain or
//! adapter crate (`make check-boundaries`). What it needs of another context comes through a port of its
//! domain crate that the api crate wires, or in an event's payload.

pub(crate) mod errors;
/// The request field each constraint of this context's tables guards (the schema guard checks they exist).
pub use errors::CONSTRAINTS;
mod rows;
pub mod schema;
mod store;

pub mod replies;
pub mod repository;

pub use replies::{PgReplyInbox, WarehouseRepliesHandler};
pub use repository::PgOrderRepository;
