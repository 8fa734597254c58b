//! Event names and payloads of the identity context: the shared contracts (`event_contracts::identity`),
//! re-exported so the context's code reads them from here.

pub use event_contracts::identity::*;
