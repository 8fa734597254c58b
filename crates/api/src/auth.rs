//! Authentication and authorization: tokens, passwords, the `Caller`
//! extractor every protected handler takes, and its permission cache.

pub mod api_keys;
pub mod cache;
pub mod caller;
pub mod listener;
pub mod live;
pub mod passwords;
pub mod route_access;
pub mod tokens;
mod verified;

pub use caller::Caller;
pub use tokens::{TokenKind, TokenService};
