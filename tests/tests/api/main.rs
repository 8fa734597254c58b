//! One integration-test binary (linking is the slow part of a build).

mod bus;
mod health;
mod identity;
mod redis_bus;
mod reference;
mod support;
mod wire;
