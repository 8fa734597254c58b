//! The OpenAPI 3 document, generated from the handlers' annotations.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::routes::identity::{api_keys, auth, contacts, permissions, profiles, roles, users};
use crate::routes::{analytics, events, exports, health, imports, operations, reference, webhooks};

mod commerce;
mod contract;

pub(crate) use contract::PINNED_FORMATS;
mod crm;
mod retries;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT access token, or an API key tly_…")
                    .build(),
            ),
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
        api_keys::create_key, api_keys::list_keys, api_keys::revoke_key,
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
        webhooks::create_endpoint, webhooks::list_endpoints, webhooks::get_endpoint, webhooks::update_endpoint,
        webhooks::delete_endpoint, webhooks::rotate_secret, webhooks::deliveries::send_test,
        webhooks::deliveries::list_deliveries, webhooks::deliveries::get_delivery, webhooks::deliveries::retry_delivery,
        imports::upload_file, imports::list_jobs, imports::get_job, imports::list_errors, imports::cancel_job,
        exports::export_customers, exports::export_companies, exports::export_deals, exports::export_interactions,
        exports::export_orders, exports::export_products, exports::export_inventory, exports::export_stock_movements,
    ),
    modifiers(&BearerAuth),
    tags(
        (name = "health", description = "Liveness of the service and its dependencies"),
        (name = "operations", description = "Metrics"),
        (name = "reference data", description = "Countries, currencies, languages, timezones"),
        (name = "events", description = "Recorded events and dead letters (events:read; retry needs events:update)"),
        (name = "identity", description = "Users, tokens, contacts, profiles, roles and permissions"),
        (name = "analytics", description = "Customer analytics (analytics:read); money in REPORTING_CURRENCY"),
        (name = "webhooks", description = "Signed outbound webhooks (Standard Webhooks) and their delivery log (webhooks:*)"),
        (name = "exports", description = "Every record a list's filters select, streamed as CSV or JSONL from one snapshot (the resource's read)"),
        (name = "imports", description = "Bulk imports of CSV or JSONL files as jobs (imports:*; docs/imports-and-exports.md)"),
    )
)]
struct ApiDoc;

/// What the handlers' annotations describe, every context merged.
fn annotated() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.merge(commerce::CommerceDoc::openapi());
    doc.merge(crm::CrmDoc::openapi());
    doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
    doc
}

/// The published contract: the annotated document with the wire conventions
/// applied (`contract::finish`). Built once; the app and the tests share it.
pub fn document() -> &'static serde_json::Value {
    static DOCUMENT: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| {
        let mut document = serde_json::to_value(annotated()).expect("the OpenAPI document serializes");
        contract::finish(&mut document);
        document
    });
    &DOCUMENT
}

/// [`document`] as JSON text, serialized once: what `GET /api/v1/openapi.json` answers.
pub fn document_text() -> &'static str {
    static TEXT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| document().to_string());
    &TEXT
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

    fn operations() -> Vec<(String, String, serde_json::Value)> {
        let document = super::document();
        let mut found = Vec::new();
        for (path, item) in document["paths"].as_object().expect("paths") {
            for (method, operation) in item.as_object().expect("path item") {
                found.push((method.clone(), path.clone(), operation.clone()));
            }
        }
        found
    }

    #[test]
    fn operation_ids_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for (method, path, operation) in operations() {
            let id = operation["operationId"].as_str().unwrap_or_else(|| panic!("{method} {path} has no operationId"));
            assert!(seen.insert(id.to_owned()), "operationId {id} is used twice ({method} {path})");
        }
    }

    /// Security in the document is the gate's table: a documented operation
    /// the table does not know would be refused to everyone.
    #[test]
    fn every_operation_is_in_the_route_table() {
        for (method, path, operation) in operations() {
            let access = super::contract::table_access(&method, &path)
                .unwrap_or_else(|| panic!("{method} {path} is documented but not in auth::route_access::ROUTES"));
            let public = operation.get("security") == Some(&serde_json::json!([]));
            assert_eq!(public, !access.needs_token(), "{method} {path}: security disagrees with the route table");
        }
    }

    /// What a generator needs: a description on every answer, the success
    /// envelope around every JSON success body, the error envelope on every error.
    #[test]
    fn every_response_is_described_and_enveloped() {
        let document = super::document();
        let schemas = &document["components"]["schemas"];
        for (method, path, operation) in operations() {
            for (status, response) in operation["responses"].as_object().expect("responses") {
                let what = format!("{method} {path} {status}");
                assert!(response["description"].as_str().is_some_and(|d| !d.is_empty()), "{what}: no description");
                let Some(schema) = response.pointer("/content/application~1json/schema") else {
                    assert!(!status.starts_with('4') && !status.starts_with('5'), "{what}: error without a body");
                    continue;
                };
                let resolved = match schema["$ref"].as_str() {
                    Some(reference) => &schemas[reference.trim_start_matches("#/components/schemas/")],
                    None => schema,
                };
                let kind = if status.starts_with('2') { "success" } else { "error" };
                if path.starts_with("/health") {
                    continue;
                }
                assert_eq!(resolved["properties"]["status"]["enum"][0], kind, "{what}: not in the {kind} envelope");
            }
        }
    }

    #[test]
    fn paginated_lists_carry_pagination() {
        let document = super::document();
        let schemas = &document["components"]["schemas"];
        for (method, path, operation) in operations() {
            let paged = operation["parameters"].as_array().is_some_and(|p| p.iter().any(|p| p["name"] == "page_size"));
            let Some(reference) = operation.pointer("/responses/200/content/application~1json/schema/$ref") else {
                continue;
            };
            let schema = &schemas[reference.as_str().unwrap_or("").trim_start_matches("#/components/schemas/")];
            let has_pagination = schema["required"].as_array().is_some_and(|r| r.contains(&"pagination".into()));
            assert_eq!(paged, has_pagination, "{method} {path}: page parameters and the list envelope disagree");
        }
    }

    /// The whole published contract, so any change to it shows up in review as a snapshot diff.
    #[test]
    fn openapi_document_matches_the_snapshot() {
        let mut document = super::document().clone();
        // The crate version moves with releases, not with the contract.
        document["info"]["version"] = "[version]".into();
        let _hint = UpdateHint;
        insta::with_settings!({
            description => format!("The OpenAPI document of /api/v1/openapi.json. To accept a change: {UPDATE}"),
            omit_expression => true,
        }, {
            insta::assert_json_snapshot!("openapi_document", document);
        });
    }
}
