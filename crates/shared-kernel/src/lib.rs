//! Shared kernel: the small vocabulary every bounded context of Tally speaks.
//!
//! Nothing here performs I/O. The crate holds no aggregate and no state machine of its own; it gives
//! every context (identity, customer management, orders, warehouse) the same value types, the same
//! failure meanings and the same ports, so that domain crates and adapters agree on them without
//! depending on each other.
//!
//! # Values
//!
//! - [`Email`]: an address under the one rule of every context: trimmed, lower-cased, checked
//!   (docs/conventions.md, "Email addresses"). A value of the type is always valid.
//! - [`Money`] and [`CurrencyCode`]: an amount in integer minor units (cents) of one ISO 4217 currency;
//!   arithmetic is checked and never mixes currencies or wraps.
//! - [`PageRequest`], [`Page`] and [`Total`]: 1-indexed pages of 1..=100 items (20 by default), and the
//!   numbers a list envelope reports.
//! - [`bounds`]: the bounds on client input (years 1900..=2200, array lengths, search length) and the
//!   serde adapters that apply them while a body is parsed; [`tags`]: the tag-list rule.
//! - [`new_id`]: time-ordered UUID v7 identifiers; [`EventEnvelope`]: the event shape that travels
//!   through the outbox and the bus (docs/events.md).
//!
//! # Failures
//!
//! Each context's errors implement [`error::Classified`]: a transport-independent [`ErrorKind`] and a
//! stable wire code; only the HTTP adapter turns a kind into a status. Every repository port of every
//! context fails with [`StorageError`], whose six meanings (not found, conflict on a named constraint,
//! stale compare-and-set, missing reference, unavailable, unknown) are listed in
//! docs/conventions.md ("Storage failures: one type, one mapping").
//!
//! # Ports
//!
//! [`ports`] holds the traits that infrastructure implements: [`ports::EventBus`] and
//! [`ports::EventHandler`] (at-least-once publish/subscribe between contexts; handlers must be
//! idempotent), [`ports::KeyValueStore`] (revocations, caches and counters with TTLs; `set_if_absent`
//! is atomic) and [`ports::HealthCheck`], what a dependency's probe reports.
//!
//! # Examples
//!
//! Parsing an email address normalises it, and refuses what is not an address:
//!
//! ```
//! use shared_kernel::{Email, InvalidEmail};
//!
//! let email = Email::parse("  Ada.Lovelace+crm@Example.COM ")?;
//! assert_eq!(email.as_str(), "ada.lovelace+crm@example.com");
//! assert_eq!(Email::parse("ada@localhost"), Err(InvalidEmail)); // one label is not a domain
//! # Ok::<(), InvalidEmail>(())
//! ```
//!
//! Money adds up only within one currency, and never overflows silently:
//!
//! ```
//! use shared_kernel::{CurrencyCode, Money, MoneyError};
//!
//! let usd = CurrencyCode::parse("usd")?;
//! let line = Money::new(1_250, usd).checked_mul(3)?; // 3 × 12.50 USD
//! let total = line.checked_add(Money::new(500, usd))?;
//! assert_eq!(total, Money::new(4_250, usd));
//!
//! let eur = Money::zero(CurrencyCode::parse("EUR")?);
//! assert!(matches!(total.checked_add(eur), Err(MoneyError::CurrencyMismatch(_, _))));
//! assert_eq!(Money::new(i64::MAX, usd).checked_add(total), Err(MoneyError::Overflow));
//! # Ok::<(), MoneyError>(())
//! ```
//!
//! A page request validates the raw query values and gives SQL its `OFFSET` and `LIMIT`; a page
//! reports how many pages the list has:
//!
//! ```
//! use shared_kernel::{Page, PageRequest, PaginationError};
//!
//! let request = PageRequest::new(Some(3), Some(25))?;
//! assert_eq!((request.offset(), request.limit()), (50, 25));
//! assert_eq!(PageRequest::new(None, None)?, PageRequest::default()); // page 1 of 20
//! assert_eq!(PageRequest::new(Some(1), Some(101)), Err(PaginationError::PageSize));
//!
//! let page = Page::new(vec!["row 51", "row 52"], 52, request);
//! assert_eq!((page.total_pages(), page.total_exact), (3, true));
//! # Ok::<(), PaginationError>(())
//! ```
#![deny(missing_docs)]

pub mod application;
pub mod bounds;
pub mod email;
pub mod error;
pub mod event;
pub mod id;
pub mod money;
pub mod pagination;
pub mod ports;
pub mod storage;
pub mod tags;

pub use email::{Email, InvalidEmail};
pub use error::ErrorKind;
pub use event::{EventEnvelope, PayloadError};
pub use id::new_id;
pub use money::{CurrencyCode, Money, MoneyError};
pub use pagination::{Page, PageRequest, PaginationError, Total};
pub use storage::StorageError;
