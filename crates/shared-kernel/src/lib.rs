//! Shared kernel: the small vocabulary every bounded context speaks.
//!
//! Nothing here performs I/O. Ports (traits) for the event bus and the
//! key-value store live here so that domain crates and adapters agree on
//! them without depending on each other.

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
