//! Order management domain: the `Order` aggregate, its lines, its lifecycle and the events it raises.
//!
//! Why a separate, pure crate: every rule about orders (who may move where, how totals are kept, how
//! the warehouse's replies are folded in) lives here once, is unit-tested without a database, and is
//! shared by the HTTP handlers and the event handlers. Nothing here performs I/O or reads the clock:
//! callers pass `now`.
//!
//! How a change reaches storage: every operation is a method on `&Order` that returns an
//! [`OrderChange`] (the new state, the version it was computed from, the line touched and the events to
//! put in the outbox). The adapter writes it with one conditional `UPDATE … WHERE version = expected`
//! in one transaction, so concurrent requests are settled by the database, never by a read-then-write
//! in Rust. See [`repository`] for the contract.
//!
//! Error codes (see [`OrderError`] and [`RepoError`]): `INVALID_QUANTITY` 400, `INVALID_PRICE` 400,
//! `CURRENCY_MISMATCH` 400, `VALIDATION_ERROR` 400 (with a field; also arithmetic overflow),
//! `LINE_NOT_FOUND` 404, `ORDER_NOT_FOUND` 404, `ORDER_EMPTY` 409, `ORDER_NOT_EDITABLE` 409,
//! `ORDER_ALREADY_CANCELLED` 409, `INVALID_STATUS_TRANSITION` 409 (also: deleting an order that is not
//! pending or cancelled), `STOCK_NOT_RESERVED` 409.

pub mod change;
pub mod error;
pub mod events;
pub mod lifecycle;
pub mod line;
pub mod lines;
pub mod number;
pub mod order;
pub mod repository;
pub mod reservation;
pub mod status;
pub mod totals;

mod text;

pub use change::{LineChange, OrderChange, OrderDeletion};
pub use error::OrderError;
pub use events::{OrderEventData, OrderEventLine};
pub use line::{NewLine, OrderLine, OrderLineRecord};
pub use number::OrderNumber;
pub use order::{NewOrder, Order, OrderDraft, OrderRecord};
pub use repository::{OrderFilter, OrderRepository, RepoError};
pub use status::{OrderStatus, ReservationStatus};
pub use totals::Totals;
