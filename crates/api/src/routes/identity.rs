//! Identity routes: users and tokens (more areas join here).

pub mod api_keys;
pub mod auth;
pub mod contacts;
mod guard;
pub mod permissions;
pub mod profiles;
pub mod requests;
pub mod responses;
pub mod roles;
pub mod users;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    auth::configure(cfg);
    api_keys::configure(cfg);
    // Before users: `/identity/users/{id}/roles` must not be shadowed.
    roles::configure(cfg);
    permissions::configure(cfg);
    users::configure(cfg);
    contacts::configure(cfg);
    profiles::configure(cfg);
}
