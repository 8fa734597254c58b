//! Tally's HTTP adapter: wires the domain ports to their adapters, serves
//! the REST API and hosts the event dispatcher.

pub mod app;
pub mod auth;
pub mod cli;
pub mod commerce;
pub mod config;
pub mod http;
pub mod imports;
pub mod metrics;
pub mod openapi;
pub mod phone;
pub mod reference_ports;
pub mod routes;
pub mod startup;
pub mod telemetry;

pub use app::{build_app, AppState};
pub use config::Settings;
