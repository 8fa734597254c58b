//! Identity routes: users and tokens (more areas join here).

pub mod auth;
pub mod users;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    auth::configure(cfg);
    users::configure(cfg);
}
