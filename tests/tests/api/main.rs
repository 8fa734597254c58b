//! One integration-test binary (linking is the slow part of a build).

mod analytics;
mod bus;
mod commerce_support;
mod companies;
mod contacts;
mod crm_support;
mod customer_lists;
mod customers;
mod deals;
mod health;
mod identity;
mod interactions;
mod inventory;
mod inventory_movements;
mod locations;
mod order_flow;
mod orders;
mod products;
mod profiles;
mod rate_limits;
mod redis_bus;
mod reference;
mod roles;
mod security;
mod support;
mod wire;
