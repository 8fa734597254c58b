//! Event names and payloads of customer management (docs/events.md): the shared contracts
//! (`event_contracts::crm`), re-exported so the context's code reads them from here. Which operation
//! emits what is written there.
//!
//! Envelopes carry the domain's instant as `occurred_at` (not the clock at build time); payload
//! timestamps are RFC 3339 UTC strings, dates `YYYY-MM-DD`.

pub use event_contracts::crm::*;
pub use event_contracts::Topic;
