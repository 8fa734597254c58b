//! HTTP routes, one module per area. Every path is a `web::resource`, so a
//! known path with the wrong method answers 405.

pub mod analytics;
pub mod crm;
pub mod events;
pub mod exports;
pub mod health;
pub mod identity;
pub mod imports;
pub mod operations;
pub mod orders;
pub mod query_params;
pub mod reference;
pub mod warehouse;
pub mod webhooks;
