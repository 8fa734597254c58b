//! The OpenAPI 3 document, generated from the handlers' annotations.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::routes::identity::{auth, contacts, permissions, profiles, roles, users};
use crate::routes::{analytics, events, health, operations, reference};

mod commerce;
mod crm;

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
        contacts::create_contact, contacts::list_contacts, contacts::get_contact, contacts::update_contact,
        contacts::delete_contact, contacts::verify_contact, contacts::verify_contact_put, contacts::set_primary_contact,
        profiles::create_profile, profiles::get_my_profile, profiles::update_my_profile, profiles::get_profile,
        profiles::update_profile, profiles::delete_profile, profiles::set_visibility, profiles::verify_profile,
        profiles::ban_profile, profiles::list_public_profiles,
        roles::create_role, roles::list_roles, roles::get_role, roles::role_by_name, roles::update_role, roles::delete_role,
        roles::grant_permissions, roles::role_permissions, roles::revoke_permission,
        roles::assign_role, roles::user_roles, roles::unassign_role,
        permissions::create_permission, permissions::list_permissions, permissions::get_permission,
        permissions::permission_by_name, permissions::update_permission, permissions::delete_permission,
        analytics::customer_overview, analytics::customer_lifecycle, analytics::customer_segmentation,
        analytics::deal_pipeline, analytics::deal_conversions, analytics::sales_rep_performance,
        analytics::revenue_time_series, analytics::interaction_insights,
    ),
    modifiers(&BearerAuth),
    tags(
        (name = "health", description = "Liveness of the service and its dependencies"),
        (name = "operations", description = "Metrics"),
        (name = "reference data", description = "Countries, currencies, languages, timezones"),
        (name = "events", description = "Recorded events and dead letters (events:read; retry needs events:update)"),
        (name = "identity", description = "Users, tokens, contacts, profiles, roles and permissions"),
        (name = "analytics", description = "Customer analytics (analytics:read); money in REPORTING_CURRENCY"),
    )
)]
struct ApiDoc;

/// The whole document; later contexts merge their own into it here.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.merge(commerce::CommerceDoc::openapi());
    doc.merge(crm::CrmDoc::openapi());
    doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
    doc
}

#[cfg(test)]
mod tests {
    const UPDATE: &str = "INSTA_UPDATE=always cargo test -p api openapi";

    /// Says how to accept an intended change when the snapshot assertion fails (insta's own hint
    /// names `cargo insta`, which this project does not use).
    struct UpdateHint;

    impl Drop for UpdateHint {
        fn drop(&mut self) {
            if std::thread::panicking() {
                eprintln!(
                    "\nThe OpenAPI document differs from crates/api/src/snapshots/api__openapi__tests__openapi_document.snap.\n\
                     If the change is intended, accept it with `{UPDATE}` and commit the updated snapshot."
                );
            }
        }
    }

    /// The whole published contract, so any change to it shows up in review as a snapshot diff.
    #[test]
    fn openapi_document_matches_the_snapshot() {
        let mut document = super::document();
        // The crate version moves with releases, not with the contract.
        document.info.version = "[version]".to_owned();
        let _hint = UpdateHint;
        insta::with_settings!({
            description => format!("The OpenAPI document of /api/v1/openapi.json. To accept a change: {UPDATE}"),
            omit_expression => true,
        }, {
            insta::assert_json_snapshot!("openapi_document", document);
        });
    }
}
