//! The OpenAPI 3 document, generated from the handlers' annotations.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::routes::identity::{auth, users};
use crate::routes::{events, health, operations, reference};

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).bearer_format("JWT").build()),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Tally API", description = "Customers, sales pipeline, orders and stock behind a JSON REST API. \
        Success: `{status: \"success\", data}`; lists add `pagination`; errors: `{status: \"error\", error: {code, message, details?}}`."),
    paths(
        health::health, health::health_db, health::health_kvstore, health::health_bus,
        operations::metrics,
        reference::list_countries, reference::countries_by_region, reference::get_country,
        reference::list_currencies, reference::active_currencies, reference::get_currency,
        reference::list_languages, reference::active_languages, reference::get_language,
        reference::list_timezones, reference::timezones_by_region, reference::get_timezone,
        events::events, events::dead_letters, events::retry_dead_letter,
        auth::register, auth::login, auth::refresh, auth::revoke, auth::change_password,
        users::me, users::list_users, users::get_user, users::suspend, users::ban, users::set_status, users::unlock,
    ),
    modifiers(&BearerAuth),
    tags(
        (name = "health", description = "Liveness of the service and its dependencies"),
        (name = "operations", description = "Metrics"),
        (name = "reference data", description = "Countries, currencies, languages, timezones"),
        (name = "events", description = "Recorded events and dead letters (events:read; retry needs events:update)"),
        (name = "identity", description = "Users, tokens, contacts, profiles, roles and permissions"),
    )
)]
struct ApiDoc;

/// The whole document; later contexts merge their own into it here.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
    doc
}
