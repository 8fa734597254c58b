//! Outbound webhooks (decisions 12.5), the parts that do no I/O: which events an endpoint
//! hears (`filter`) and how a delivery is signed (`signing`, the Standard Webhooks scheme).
//! The delivery engine that uses them is the next step of issue #14.

pub mod filter;
pub mod signing;

pub use filter::{EventFilter, InvalidFilter};
pub use signing::{InvalidSecret, SigningSecret};
