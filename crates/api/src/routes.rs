//! HTTP routes, one module per area. Every path is a `web::resource`, so a
//! known path with the wrong method answers 405.

pub mod events;
pub mod health;
pub mod identity;
pub mod operations;
pub mod reference;
