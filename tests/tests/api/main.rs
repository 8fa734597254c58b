//! One integration-test binary (linking is the slow part of a build).

mod bus;
mod health;
mod redis_bus;
mod reference;
mod support;
mod wire;
