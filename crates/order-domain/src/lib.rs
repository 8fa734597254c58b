//! Order management domain: the `Order` aggregate, its lines, its lifecycle and the events it raises.
//!
//! Why a separate, pure crate: every rule about orders (who may move where, how totals are kept, how
//! the warehouse's replies are folded in) lives here once, is unit-tested without a database, and is
//! shared by the HTTP handlers and the event handlers. Nothing here performs I/O; the aggregate
//! never reads the clock (callers pass `now`), the use cases read it through their `Clock` port. How Tally runs these rules against PostgreSQL and the warehouse is described in
//! `docs/orders-and-warehouse.md`.
//!
//! # The aggregate
//!
//! An [`Order`] is a customer's order in one currency: a header (customer, currency, tax, discount,
//! notes), its [`OrderLine`]s (a product, a quantity > 0 and a unit price ≥ 0 in cents, with the
//! product's name and SKU copied at add time) and [`Totals`] kept consistent with the lines:
//! `subtotal = Σ quantity × unit_price`, `total = max(0, subtotal + tax − discount)`. Every sum is
//! checked: a figure beyond `i64` is refused, never wrapped. An order is created through an
//! [`OrderDraft`], which gets its [`OrderNumber`] (`ORD-<year>-<6 digits>`, one counter per year)
//! from the repository.
//!
//! # Order status
//!
//! | trigger | from | to | event raised |
//! |---|---|---|---|
//! | [`OrderDraft::into_order`] | — | pending | `order.created` |
//! | [`Order::confirm`] | pending, with ≥ 1 line | confirmed | `order.confirmed` |
//! | [`Order::process`] | confirmed | processing | — |
//! | [`Order::fulfill`] | processing, reservation `reserved` | fulfilled | `order.fulfilled` |
//! | [`Order::cancel`] | pending, confirmed, processing | cancelled | `order.cancelled` |
//! | [`Order::delete`] | pending, cancelled | (soft-deleted) | — |
//!
//! Lines change ([`Order::add_line`], [`Order::change_line_quantity`], [`Order::remove_line`]) only
//! while the order is pending. Fulfilled and cancelled are final.
//!
//! # Reservation status
//!
//! What the warehouse holds for the order, as far as this context has heard; it only moves forward
//! and never changes the order status:
//!
//! | trigger | from | to |
//! |---|---|---|
//! | [`Order::confirm`] | none | pending |
//! | `warehouse.stock_reserved` → [`Order::mark_reserved`] | pending (order confirmed or processing) | reserved |
//! | `warehouse.reservation_failed` → [`Order::mark_reservation_failed`] | pending (order confirmed or processing) | failed |
//! | `warehouse.stock_released` → [`Order::mark_released`] | pending, reserved, failed (order cancelled) | released |
//! | `warehouse.stock_committed` → [`Order::mark_committed`] | reserved (order fulfilled) | committed |
//!
//! A reply in any other state is a duplicate or stale and returns `None`: nothing to save.
//!
//! # How a change reaches storage
//!
//! Every operation is a method on `&Order` that returns an [`OrderChange`] (the new state, the version
//! and status it was computed from, the line touched and the events to put in the outbox). The
//! adapter writes it with one conditional `UPDATE … WHERE version = expected AND status = expected` in
//! one transaction, so concurrent requests are settled by the database, never by a read-then-write in
//! Rust. On `Stale` the caller reloads the order and runs the operation again, so the loser of a race
//! gets the precise domain error. See [`repository`] for the port ([`OrderRepository`]) and
//! [`change`] for what the adapter writes.
//!
//! ```
//! use order_domain::{NewLine, NewOrder, OrderDraft, OrderError, OrderNumber, OrderStatus, ReservationStatus, Totals};
//! use shared_kernel::CurrencyCode;
//! use time::macros::datetime;
//! use uuid::Uuid;
//!
//! let usd = CurrencyCode::parse("USD").expect("an ISO 4217 code");
//! let now = datetime!(2026-03-01 10:00 UTC);
//!
//! // Create: validate the input, then take the number the repository allocated for that year.
//! let input = NewOrder { customer_id: Uuid::from_u128(7), company_id: None, currency: usd, tax: 100, discount: 0, notes: None };
//! let draft = OrderDraft::new(input, now).expect("valid input");
//! let number = OrderNumber::new(draft.year(), 1).expect("in range");
//! let (order, events) = draft.into_order(number).expect("the draft's year");
//! assert_eq!(order.order_number, "ORD-2026-000001");
//! assert_eq!((order.status, events[0].name.as_str()), (OrderStatus::Pending, "order.created"));
//!
//! // Add a line: 3 × 2.50 USD; the totals follow.
//! let line = NewLine {
//!     product_id: Uuid::from_u128(42),
//!     quantity: 3,
//!     unit_price: 250,
//!     currency: usd,
//!     description: Some("Widget".into()),
//!     sku: Some("W-1".into()),
//! };
//! let change = order.add_line(line, now).expect("pending, valid line");
//! assert_eq!(change.expected_version, 1);
//! let order = change.order; // after `OrderRepository::save(&change)` succeeded
//! assert_eq!(order.totals(), Totals { subtotal: 750, tax: 100, discount: 0, total: 850 });
//!
//! // Confirm: the warehouse is asked to reserve through `order.confirmed`.
//! let change = order.confirm(now).expect("pending with a line");
//! assert_eq!(change.events[0].name, "order.confirmed");
//! let order = change.order;
//! assert_eq!(order.reservation_status, ReservationStatus::Pending);
//!
//! // The warehouse's reply, then processing and fulfilment.
//! let order = order.mark_reserved(now).expect("awaiting a reply").order;
//! assert!(order.mark_reserved(now).is_none(), "a redelivered reply changes nothing");
//! let order = order.process(now).expect("confirmed").order;
//! let change = order.fulfill(now).expect("processing with stock reserved");
//! assert_eq!(change.order.status, OrderStatus::Fulfilled);
//!
//! // Refusals are domain errors with stable codes.
//! let refused = order.remove_line(order.lines[0].id, now);
//! assert_eq!(refused, Err(OrderError::NotEditable { status: OrderStatus::Processing }));
//! assert_eq!(order.cancel(now).expect("processing").order.cancel(now), Err(OrderError::AlreadyCancelled));
//! ```
//!
//! # Without a database
//!
//! Feature `memory` adds `memory::InMemoryOrderRepository`, an [`OrderRepository`] in process memory
//! with the PostgreSQL adapter's behaviour (per-year numbers, compare-and-set saves and deletes
//! answering `Stale` / `NotFound`, soft deletion, the list's filters and order), which also keeps the
//! events each write carried (`events()`, `take_events()`). Another service or a test depends on
//! `order-domain = { workspace = true, features = ["memory"] }` and passes it wherever a
//! `&dyn OrderRepository` is wanted.
//!
//! Feature `contract` (implies `memory`) adds `contract`, the port's contract suite: one async
//! function per promise, each panicking on a breach, and `contract::run_all(&repo, customer_id,
//! product_id)`. Any adapter runs it from its own test (the ids must name rows its store accepts):
//! `tests/memory_contract.rs` runs it on the in-memory adapter, `tests/tests/api/order_contract.rs`
//! on the PostgreSQL one.
//!
//! A whole order life (create, lines, confirm, the warehouse's reply, process, fulfil) with the
//! in-memory adapter, printing each step and its events, offline:
//! `cargo run -p order-domain --features memory --example order_lifecycle`.
//!
//! # Use cases
//!
//! [`application::OrderService`] holds every use case (create, the status moves, delete, the line
//! edits, folding the warehouse's reply) over the repository and three small ports to the other
//! contexts ([`application::ports`]); the HTTP handlers and the example call it.
//!
//! Error codes (see [`OrderError`] and [`RepoError`]): `INVALID_QUANTITY` 400, `INVALID_PRICE` 400,
//! `CURRENCY_MISMATCH` 400, `VALIDATION_ERROR` 400 (with a field; also arithmetic overflow),
//! `LINE_NOT_FOUND` 404, `ORDER_NOT_FOUND` 404, `ORDER_EMPTY` 409, `ORDER_NOT_EDITABLE` 409,
//! `ORDER_ALREADY_CANCELLED` 409, `INVALID_STATUS_TRANSITION` 409 (also: deleting an order that is not
//! pending or cancelled), `STOCK_NOT_RESERVED` 409.

#![deny(missing_docs)]

pub mod application;
pub mod change;
#[cfg(feature = "contract")]
pub mod contract;
pub mod error;
pub mod events;
pub mod lifecycle;
pub mod line;
pub mod lines;
#[cfg(feature = "memory")]
pub mod memory;
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
pub use repository::{FoldReply, OrderFilter, OrderRepository, ReplyInbox, RepoError};
pub use status::{OrderStatus, ReservationStatus};
pub use totals::Totals;
