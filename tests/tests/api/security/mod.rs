//! What an attacker would try (issue: security hardening): every module here
//! probes one way in and asserts it stays shut.

mod access;
mod api_keys;
mod bootstrap;
mod credentials;
mod holes;
mod input;
mod limits;
mod live_auth;
mod sessions;
