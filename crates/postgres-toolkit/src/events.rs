//! Transactional outbox, inbox and dead letters, all in PostgreSQL.

pub(crate) mod dead_letters;
pub mod handoff;
pub(crate) mod inbox;
pub mod instances;
pub mod log;
pub(crate) mod outbox;
pub mod relay;

pub use dead_letters::{DeadLetter, PgDeadLetterStore};
pub use handoff::{handing_over, DirectQueue};
pub use inbox::Delivery;
pub use outbox::record_event;
pub use relay::{OutboxRelay, OutboxSignal};
