//! Identity routes: thin adapters over `identity_domain::application` (parse, call, map).

pub mod api_keys;
pub mod auth;
pub mod contacts;
pub mod permissions;
pub mod profiles;
pub mod requests;
pub mod responses;
pub mod roles;
pub mod users;

use actix_web::web;
use identity_domain::application::Actor;

use crate::auth::Caller;

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

/// Who a use case acts for: the caller, with the roles and permissions the gate read.
pub(crate) fn actor(caller: &Caller) -> Actor<'_> {
    Actor { user_id: caller.user_id, roles: &caller.roles, permissions: &caller.permissions }
}
