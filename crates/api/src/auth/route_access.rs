//! Every route's guard and rate-limit policy in one table, keyed by the
//! pattern actix matched (never by the raw path text). The middleware in
//! `http::route_policy` enforces it before any handler or body extractor
//! runs; `docs/identity.md` carries the same table (a test keeps them equal).

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::http::rate_limit::Policy;

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Health, metrics and the docs page: no token, no rate limit (metrics has its own token).
    Operations,
    /// Anyone; limited by the public policy.
    Public,
    /// Anyone, with the credential route's own limit (login, register, refresh).
    Credentials(Policy),
    /// Any valid access token; the handler confines the caller to their own data.
    Token,
    /// The `admin` or `superadmin` role.
    Admin,
    /// `resource:action`, honouring `resource:*` and `*:*`.
    Permission(&'static str, &'static str),
}

impl Access {
    /// Whether the caller must present a valid access token.
    pub fn needs_token(self) -> bool {
        matches!(self, Self::Token | Self::Admin | Self::Permission(..))
    }

    /// The rate-limit policy, `None` for operations endpoints.
    pub fn limit(self) -> Option<Policy> {
        match self {
            Self::Operations => None,
            Self::Public => Some(Policy::Public),
            Self::Credentials(policy) => Some(policy),
            Self::Token | Self::Admin | Self::Permission(..) => Some(Policy::Authenticated),
        }
    }

    /// How the guard reads in the documentation table.
    pub fn describe(self) -> String {
        match self {
            Self::Operations => "none (operations)".to_owned(),
            Self::Public => "public".to_owned(),
            Self::Credentials(policy) => format!("public ({} limit)", policy.name()),
            Self::Token => "access token (own data only)".to_owned(),
            Self::Admin => "role admin or superadmin".to_owned(),
            Self::Permission(resource, action) => format!("`{resource}:{action}`"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteRule {
    pub method: &'static str,
    pub pattern: &'static str,
    pub access: Access,
}

const fn rule(method: &'static str, pattern: &'static str, access: Access) -> RouteRule {
    RouteRule { method, pattern, access }
}

const GET: &str = "GET";
const POST: &str = "POST";
const PUT: &str = "PUT";
const PATCH: &str = "PATCH";
const DELETE: &str = "DELETE";

use Access::{Admin, Credentials, Operations, Permission, Public, Token};

/// Every route of the app. A route missing here is refused to everyone with a
/// token (deny by default) and fails the router walk in the security tests.
pub const ROUTES: &[RouteRule] = &[
    rule(GET, "/api/v1/customer-mgmt/analytics/customers/lifecycle", Permission("analytics", "read")),
    rule(GET, "/api/v1/customer-mgmt/analytics/customers/overview", Permission("analytics", "read")),
    rule(GET, "/api/v1/customer-mgmt/analytics/customers/segmentation", Permission("analytics", "read")),
    rule(GET, "/api/v1/customer-mgmt/analytics/deals/conversions", Permission("analytics", "read")),
    rule(GET, "/api/v1/customer-mgmt/analytics/deals/pipeline", Permission("analytics", "read")),
    rule(GET, "/api/v1/customer-mgmt/analytics/interactions/insights", Permission("analytics", "read")),
    rule(GET, "/api/v1/customer-mgmt/analytics/revenue/time-series", Permission("analytics", "read")),
    rule(GET, "/api/v1/customer-mgmt/analytics/sales-reps/performance", Permission("analytics", "read")),
    rule(GET, "/api/v1/customer-mgmt/companies", Permission("companies", "read")),
    rule(POST, "/api/v1/customer-mgmt/companies", Permission("companies", "create")),
    rule(GET, "/api/v1/customer-mgmt/companies/{id}", Permission("companies", "read")),
    rule(PUT, "/api/v1/customer-mgmt/companies/{id}", Permission("companies", "update")),
    rule(DELETE, "/api/v1/customer-mgmt/companies/{id}", Permission("companies", "delete")),
    rule(GET, "/api/v1/customer-mgmt/customers", Permission("customers", "read")),
    rule(POST, "/api/v1/customer-mgmt/customers", Permission("customers", "create")),
    rule(GET, "/api/v1/customer-mgmt/customers/email/{email}", Permission("customers", "read")),
    rule(GET, "/api/v1/customer-mgmt/customers/{id}", Permission("customers", "read")),
    rule(PUT, "/api/v1/customer-mgmt/customers/{id}", Permission("customers", "update")),
    rule(DELETE, "/api/v1/customer-mgmt/customers/{id}", Permission("customers", "delete")),
    rule(POST, "/api/v1/customer-mgmt/customers/{id}/assign", Permission("customers", "update")),
    rule(PUT, "/api/v1/customer-mgmt/customers/{id}/assign", Permission("customers", "update")),
    rule(POST, "/api/v1/customer-mgmt/customers/{id}/churn", Permission("customers", "update")),
    rule(POST, "/api/v1/customer-mgmt/customers/{id}/convert", Permission("customers", "update")),
    rule(POST, "/api/v1/customer-mgmt/customers/{id}/qualify", Permission("customers", "update")),
    rule(POST, "/api/v1/customer-mgmt/customers/{id}/reactivate", Permission("customers", "update")),
    rule(PATCH, "/api/v1/customer-mgmt/customers/{id}/status", Permission("customers", "update")),
    rule(PUT, "/api/v1/customer-mgmt/customers/{id}/tags", Permission("customers", "update")),
    rule(PUT, "/api/v1/customer-mgmt/customers/{id}/tier", Permission("customers", "update")),
    rule(GET, "/api/v1/customer-mgmt/deals", Permission("deals", "read")),
    rule(POST, "/api/v1/customer-mgmt/deals", Permission("deals", "create")),
    rule(GET, "/api/v1/customer-mgmt/deals/stage/{stage}", Permission("deals", "read")),
    rule(GET, "/api/v1/customer-mgmt/deals/stats/pipeline", Permission("deals", "read")),
    rule(GET, "/api/v1/customer-mgmt/deals/stats/won", Permission("deals", "read")),
    rule(GET, "/api/v1/customer-mgmt/deals/{id}", Permission("deals", "read")),
    rule(DELETE, "/api/v1/customer-mgmt/deals/{id}", Permission("deals", "delete")),
    rule(PUT, "/api/v1/customer-mgmt/deals/{id}/basic-info", Permission("deals", "update")),
    rule(POST, "/api/v1/customer-mgmt/deals/{id}/lose", Permission("deals", "update")),
    rule(PUT, "/api/v1/customer-mgmt/deals/{id}/stage", Permission("deals", "update")),
    rule(PUT, "/api/v1/customer-mgmt/deals/{id}/value", Permission("deals", "update")),
    rule(POST, "/api/v1/customer-mgmt/deals/{id}/win", Permission("deals", "update")),
    rule(GET, "/api/v1/customer-mgmt/interactions", Permission("interactions", "read")),
    rule(POST, "/api/v1/customer-mgmt/interactions", Permission("interactions", "create")),
    rule(GET, "/api/v1/customer-mgmt/interactions/company/{id}", Permission("interactions", "read")),
    rule(GET, "/api/v1/customer-mgmt/interactions/created-by/{id}", Permission("interactions", "read")),
    rule(GET, "/api/v1/customer-mgmt/interactions/customer/{id}", Permission("interactions", "read")),
    rule(GET, "/api/v1/customer-mgmt/interactions/follow-ups", Permission("interactions", "read")),
    rule(GET, "/api/v1/customer-mgmt/interactions/type/{type}", Permission("interactions", "read")),
    rule(GET, "/api/v1/customer-mgmt/interactions/{id}", Permission("interactions", "read")),
    rule(DELETE, "/api/v1/customer-mgmt/interactions/{id}", Permission("interactions", "delete")),
    rule(POST, "/api/v1/customer-mgmt/interactions/{id}/attendees", Permission("interactions", "update")),
    rule(
        DELETE,
        "/api/v1/customer-mgmt/interactions/{id}/attendees/{attendee_id}",
        Permission("interactions", "update"),
    ),
    rule(PUT, "/api/v1/customer-mgmt/interactions/{id}/content", Permission("interactions", "update")),
    rule(PUT, "/api/v1/customer-mgmt/interactions/{id}/end", Permission("interactions", "update")),
    rule(PUT, "/api/v1/customer-mgmt/interactions/{id}/follow-up", Permission("interactions", "update")),
    rule(PUT, "/api/v1/customer-mgmt/interactions/{id}/outcome", Permission("interactions", "update")),
    rule(GET, "/api/v1/events", Permission("events", "read")),
    rule(GET, "/api/v1/events/dead-letters", Permission("events", "read")),
    rule(POST, "/api/v1/events/dead-letters/{id}/retry", Permission("events", "update")),
    rule(POST, "/api/v1/identity/auth/refresh", Credentials(Policy::Refresh)),
    rule(POST, "/api/v1/identity/auth/revoke", Token),
    // API keys are managed with a user's access token only (the gate refuses keys on Token routes).
    rule(GET, "/api/v1/identity/api-keys", Token),
    rule(POST, "/api/v1/identity/api-keys", Token),
    rule(DELETE, "/api/v1/identity/api-keys/{id}", Token),
    rule(GET, "/api/v1/identity/contacts", Token),
    rule(POST, "/api/v1/identity/contacts", Token),
    rule(GET, "/api/v1/identity/contacts/{id}", Token),
    rule(PUT, "/api/v1/identity/contacts/{id}", Token),
    rule(DELETE, "/api/v1/identity/contacts/{id}", Token),
    rule(PUT, "/api/v1/identity/contacts/{id}/primary", Token),
    rule(POST, "/api/v1/identity/contacts/{id}/verify", Token),
    rule(PUT, "/api/v1/identity/contacts/{id}/verify", Token),
    rule(GET, "/api/v1/identity/permissions", Admin),
    rule(POST, "/api/v1/identity/permissions", Admin),
    rule(GET, "/api/v1/identity/permissions/name/{name}", Admin),
    rule(GET, "/api/v1/identity/permissions/{id}", Admin),
    rule(PUT, "/api/v1/identity/permissions/{id}", Admin),
    rule(DELETE, "/api/v1/identity/permissions/{id}", Admin),
    rule(POST, "/api/v1/identity/profiles", Token),
    rule(GET, "/api/v1/identity/profiles/me", Token),
    rule(PUT, "/api/v1/identity/profiles/me", Token),
    rule(GET, "/api/v1/identity/profiles/{id}", Token),
    rule(PUT, "/api/v1/identity/profiles/{id}", Token),
    rule(DELETE, "/api/v1/identity/profiles/{id}", Token),
    rule(PUT, "/api/v1/identity/profiles/{id}/ban", Admin),
    rule(PUT, "/api/v1/identity/profiles/{id}/verify", Admin),
    rule(PUT, "/api/v1/identity/profiles/{id}/visibility", Token),
    rule(GET, "/api/v1/identity/public/profiles", Public),
    rule(GET, "/api/v1/identity/roles", Admin),
    rule(POST, "/api/v1/identity/roles", Admin),
    rule(GET, "/api/v1/identity/roles/name/{name}", Admin),
    rule(GET, "/api/v1/identity/roles/{id}", Admin),
    rule(PUT, "/api/v1/identity/roles/{id}", Admin),
    rule(DELETE, "/api/v1/identity/roles/{id}", Admin),
    rule(GET, "/api/v1/identity/roles/{id}/permissions", Admin),
    rule(POST, "/api/v1/identity/roles/{id}/permissions", Admin),
    rule(DELETE, "/api/v1/identity/roles/{id}/permissions/{permission_id}", Admin),
    rule(GET, "/api/v1/identity/users", Admin),
    rule(POST, "/api/v1/identity/users/login", Credentials(Policy::Login)),
    rule(GET, "/api/v1/identity/users/me", Token),
    rule(PUT, "/api/v1/identity/users/me/password", Token),
    rule(POST, "/api/v1/identity/users/register", Credentials(Policy::Register)),
    rule(GET, "/api/v1/identity/users/{id}", Token),
    rule(PUT, "/api/v1/identity/users/{id}/ban", Admin),
    rule(GET, "/api/v1/identity/users/{id}/roles", Admin),
    rule(POST, "/api/v1/identity/users/{id}/roles", Admin),
    rule(DELETE, "/api/v1/identity/users/{id}/roles/{role_id}", Admin),
    rule(PATCH, "/api/v1/identity/users/{id}/status", Admin),
    rule(PUT, "/api/v1/identity/users/{id}/suspend", Admin),
    rule(POST, "/api/v1/identity/users/{id}/unlock", Admin),
    rule(GET, "/api/v1/openapi.json", Public),
    rule(GET, "/api/v1/order-mgmt/orders", Permission("orders", "read")),
    rule(POST, "/api/v1/order-mgmt/orders", Permission("orders", "create")),
    rule(GET, "/api/v1/order-mgmt/orders/customer/{customer_id}", Permission("orders", "read")),
    rule(GET, "/api/v1/order-mgmt/orders/number/{order_number}", Permission("orders", "read")),
    rule(GET, "/api/v1/order-mgmt/orders/status/{status}", Permission("orders", "read")),
    rule(GET, "/api/v1/order-mgmt/orders/{id}", Permission("orders", "read")),
    rule(DELETE, "/api/v1/order-mgmt/orders/{id}", Permission("orders", "delete")),
    rule(POST, "/api/v1/order-mgmt/orders/{id}/cancel", Permission("orders", "update")),
    rule(POST, "/api/v1/order-mgmt/orders/{id}/confirm", Permission("orders", "update")),
    rule(POST, "/api/v1/order-mgmt/orders/{id}/fulfill", Permission("orders", "update")),
    rule(POST, "/api/v1/order-mgmt/orders/{id}/lines", Permission("orders", "update")),
    rule(PUT, "/api/v1/order-mgmt/orders/{id}/lines/{line_id}", Permission("orders", "update")),
    rule(DELETE, "/api/v1/order-mgmt/orders/{id}/lines/{line_id}", Permission("orders", "update")),
    rule(POST, "/api/v1/order-mgmt/orders/{id}/process", Permission("orders", "update")),
    rule(GET, "/api/v1/shared/countries", Public),
    rule(GET, "/api/v1/shared/countries/region/{region}", Public),
    rule(GET, "/api/v1/shared/countries/{code}", Public),
    rule(GET, "/api/v1/shared/currencies", Public),
    rule(GET, "/api/v1/shared/currencies/active", Public),
    rule(GET, "/api/v1/shared/currencies/{code}", Public),
    rule(GET, "/api/v1/shared/languages", Public),
    rule(GET, "/api/v1/shared/languages/active", Public),
    rule(GET, "/api/v1/shared/languages/{code}", Public),
    rule(GET, "/api/v1/shared/timezones", Public),
    rule(GET, "/api/v1/shared/timezones/region/{region}", Public),
    rule(GET, "/api/v1/shared/timezones/{code:.+}", Public),
    rule(GET, "/api/v1/warehouse/inventory", Permission("inventory", "read")),
    rule(POST, "/api/v1/warehouse/inventory", Permission("inventory", "create")),
    rule(GET, "/api/v1/warehouse/inventory/low-stock", Permission("inventory", "read")),
    rule(GET, "/api/v1/warehouse/inventory/{id}", Permission("inventory", "read")),
    rule(PUT, "/api/v1/warehouse/inventory/{id}", Permission("inventory", "update")),
    rule(DELETE, "/api/v1/warehouse/inventory/{id}", Permission("inventory", "delete")),
    rule(POST, "/api/v1/warehouse/inventory/{id}/adjust", Permission("inventory", "update")),
    rule(POST, "/api/v1/warehouse/inventory/{id}/commit", Permission("inventory", "update")),
    rule(POST, "/api/v1/warehouse/inventory/{id}/damage", Permission("inventory", "update")),
    rule(POST, "/api/v1/warehouse/inventory/{id}/receive", Permission("inventory", "update")),
    rule(POST, "/api/v1/warehouse/inventory/{id}/release", Permission("inventory", "update")),
    rule(POST, "/api/v1/warehouse/inventory/{id}/reserve", Permission("inventory", "update")),
    rule(POST, "/api/v1/warehouse/inventory/{id}/return", Permission("inventory", "update")),
    rule(POST, "/api/v1/warehouse/inventory/{id}/transfer", Permission("inventory", "update")),
    rule(GET, "/api/v1/warehouse/locations", Permission("locations", "read")),
    rule(POST, "/api/v1/warehouse/locations", Permission("locations", "create")),
    rule(GET, "/api/v1/warehouse/locations/active", Permission("locations", "read")),
    rule(GET, "/api/v1/warehouse/locations/code/{code}", Permission("locations", "read")),
    rule(GET, "/api/v1/warehouse/locations/country/{country}", Permission("locations", "read")),
    rule(GET, "/api/v1/warehouse/locations/type/{type}", Permission("locations", "read")),
    rule(GET, "/api/v1/warehouse/locations/{id}", Permission("locations", "read")),
    rule(PUT, "/api/v1/warehouse/locations/{id}", Permission("locations", "update")),
    rule(DELETE, "/api/v1/warehouse/locations/{id}", Permission("locations", "delete")),
    rule(POST, "/api/v1/warehouse/locations/{id}/activate", Permission("locations", "update")),
    rule(POST, "/api/v1/warehouse/locations/{id}/deactivate", Permission("locations", "update")),
    rule(GET, "/api/v1/warehouse/locations/{id}/inventory", Permission("inventory", "read")),
    rule(GET, "/api/v1/warehouse/locations/{id}/stock-movements", Permission("stock_movements", "read")),
    rule(GET, "/api/v1/warehouse/locations/{id}/utilization", Permission("locations", "read")),
    rule(GET, "/api/v1/warehouse/products", Permission("products", "read")),
    rule(POST, "/api/v1/warehouse/products", Permission("products", "create")),
    rule(GET, "/api/v1/warehouse/products/brand/{brand}", Permission("products", "read")),
    rule(GET, "/api/v1/warehouse/products/brands", Permission("products", "read")),
    rule(GET, "/api/v1/warehouse/products/categories", Permission("products", "read")),
    rule(GET, "/api/v1/warehouse/products/category/{category}", Permission("products", "read")),
    rule(GET, "/api/v1/warehouse/products/sku/{sku}", Permission("products", "read")),
    rule(GET, "/api/v1/warehouse/products/status/{status}", Permission("products", "read")),
    rule(GET, "/api/v1/warehouse/products/{id}", Permission("products", "read")),
    rule(PUT, "/api/v1/warehouse/products/{id}", Permission("products", "update")),
    rule(DELETE, "/api/v1/warehouse/products/{id}", Permission("products", "delete")),
    rule(POST, "/api/v1/warehouse/products/{id}/activate", Permission("products", "update")),
    rule(GET, "/api/v1/warehouse/products/{id}/availability", Permission("inventory", "read")),
    rule(POST, "/api/v1/warehouse/products/{id}/discontinue", Permission("products", "update")),
    rule(GET, "/api/v1/warehouse/products/{id}/inventory", Permission("inventory", "read")),
    rule(GET, "/api/v1/warehouse/products/{id}/stock-movements", Permission("stock_movements", "read")),
    rule(GET, "/api/v1/warehouse/stock-movements", Permission("stock_movements", "read")),
    rule(POST, "/api/v1/warehouse/stock-movements", Permission("stock_movements", "create")),
    rule(GET, "/api/v1/warehouse/stock-movements/inventory/{id}", Permission("stock_movements", "read")),
    rule(GET, "/api/v1/warehouse/stock-movements/recent", Permission("stock_movements", "read")),
    rule(GET, "/api/v1/warehouse/stock-movements/reference/{reference_id}", Permission("stock_movements", "read")),
    rule(GET, "/api/v1/warehouse/stock-movements/type/{type}", Permission("stock_movements", "read")),
    rule(GET, "/api/v1/warehouse/stock-movements/{id}", Permission("stock_movements", "read")),
    rule(GET, "/api/v1/warehouse/suppliers", Permission("suppliers", "read")),
    rule(POST, "/api/v1/warehouse/suppliers", Permission("suppliers", "create")),
    rule(GET, "/api/v1/warehouse/suppliers/{id}", Permission("suppliers", "read")),
    rule(PUT, "/api/v1/warehouse/suppliers/{id}", Permission("suppliers", "update")),
    rule(DELETE, "/api/v1/warehouse/suppliers/{id}", Permission("suppliers", "delete")),
    rule(GET, "/api/v1/warehouse/purchase-orders", Permission("purchase_orders", "read")),
    rule(POST, "/api/v1/warehouse/purchase-orders", Permission("purchase_orders", "create")),
    rule(POST, "/api/v1/warehouse/purchase-orders/from-suggestions", Permission("purchase_orders", "create")),
    rule(GET, "/api/v1/warehouse/purchase-orders/number/{po_number}", Permission("purchase_orders", "read")),
    rule(GET, "/api/v1/warehouse/purchase-orders/{id}", Permission("purchase_orders", "read")),
    rule(POST, "/api/v1/warehouse/purchase-orders/{id}/cancel", Permission("purchase_orders", "update")),
    rule(POST, "/api/v1/warehouse/purchase-orders/{id}/close", Permission("purchase_orders", "update")),
    rule(POST, "/api/v1/warehouse/purchase-orders/{id}/lines", Permission("purchase_orders", "update")),
    rule(PUT, "/api/v1/warehouse/purchase-orders/{id}/lines/{line_id}", Permission("purchase_orders", "update")),
    rule(DELETE, "/api/v1/warehouse/purchase-orders/{id}/lines/{line_id}", Permission("purchase_orders", "update")),
    rule(POST, "/api/v1/warehouse/purchase-orders/{id}/receive", Permission("purchase_orders", "update")),
    rule(POST, "/api/v1/warehouse/purchase-orders/{id}/submit", Permission("purchase_orders", "update")),
    rule(GET, "/api/v1/warehouse/reorder-suggestions", Permission("purchase_orders", "read")),
    rule(GET, "/api/v1/warehouse/transfers", Permission("transfers", "read")),
    rule(POST, "/api/v1/warehouse/transfers", Permission("transfers", "create")),
    rule(GET, "/api/v1/warehouse/transfers/{id}", Permission("transfers", "read")),
    rule(POST, "/api/v1/warehouse/transfers/{id}/cancel", Permission("transfers", "update")),
    rule(POST, "/api/v1/warehouse/transfers/{id}/receive", Permission("transfers", "update")),
    rule(POST, "/api/v1/warehouse/transfers/{id}/ship", Permission("transfers", "update")),
    rule(GET, "/docs", Operations),
    rule(GET, "/docs/{_:.*}", Operations),
    rule(GET, "/health", Operations),
    rule(GET, "/health/bus", Operations),
    rule(GET, "/health/db", Operations),
    rule(GET, "/health/kvstore", Operations),
    rule(GET, "/metrics", Operations),
    rule(GET, "/api/v1/exports/customers", Permission("customers", "read")),
    rule(GET, "/api/v1/exports/companies", Permission("companies", "read")),
    rule(GET, "/api/v1/exports/deals", Permission("deals", "read")),
    rule(GET, "/api/v1/exports/interactions", Permission("interactions", "read")),
    rule(GET, "/api/v1/exports/orders", Permission("orders", "read")),
    rule(GET, "/api/v1/exports/products", Permission("products", "read")),
    rule(GET, "/api/v1/exports/inventory", Permission("inventory", "read")),
    rule(GET, "/api/v1/exports/stock-movements", Permission("stock_movements", "read")),
    rule(GET, "/api/v1/imports", Permission("imports", "read")),
    rule(POST, "/api/v1/imports/{resource:[a-z]+}", Permission("imports", "create")),
    rule(GET, "/api/v1/imports/{id}", Permission("imports", "read")),
    rule(POST, "/api/v1/imports/{id}/cancel", Permission("imports", "create")),
    rule(GET, "/api/v1/imports/{id}/errors", Permission("imports", "read")),
    rule(GET, "/api/v1/webhooks", Permission("webhooks", "read")),
    rule(POST, "/api/v1/webhooks", Permission("webhooks", "create")),
    rule(GET, "/api/v1/webhooks/{id}", Permission("webhooks", "read")),
    rule(PUT, "/api/v1/webhooks/{id}", Permission("webhooks", "update")),
    rule(DELETE, "/api/v1/webhooks/{id}", Permission("webhooks", "delete")),
    rule(GET, "/api/v1/webhooks/{id}/deliveries", Permission("webhooks", "read")),
    rule(GET, "/api/v1/webhooks/{id}/deliveries/{delivery_id}", Permission("webhooks", "read")),
    rule(POST, "/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry", Permission("webhooks", "update")),
    rule(POST, "/api/v1/webhooks/{id}/rotate-secret", Permission("webhooks", "update")),
    rule(POST, "/api/v1/webhooks/{id}/test", Permission("webhooks", "update")),
];

static BY_ROUTE: LazyLock<HashMap<(&'static str, &'static str), Access>> =
    LazyLock::new(|| ROUTES.iter().map(|r| ((r.method, r.pattern), r.access)).collect());

/// The rule for a matched pattern and method, if the table has one.
pub fn access_for(method: &str, pattern: &str) -> Option<Access> {
    BY_ROUTE.get(&(method, pattern)).copied()
}

/// Whether the route answers with a credential anyone may ask for (register, login, refresh):
/// such answers are never kept for a replay, so `Idempotency-Key` is ignored there and a retry
/// runs again (docs/identity.md).
pub fn answers_with_credentials(req: &actix_web::dev::ServiceRequest) -> bool {
    let pattern = crate::http::route_policy::matched_pattern(req);
    let access = pattern.as_deref().and_then(|pattern| access_for(req.method().as_str(), pattern));
    matches!(access, Some(Credentials(_)))
}

/// Whether the request is an import upload, whose body is streamed to storage as it arrives
/// rather than read whole first (docs/imports-and-exports.md).
pub fn streams_body(req: &actix_web::dev::ServiceRequest) -> bool {
    req.method() == actix_web::http::Method::POST
        && crate::http::route_policy::matched_pattern(req).as_deref() == Some(crate::routes::imports::UPLOAD_PATTERN)
}

/// The `Allow` header of a 405 for this pattern (RFC 9110 §15.5.6): the
/// methods the table lists for it, in the table's order.
pub fn allowed_methods(pattern: &str) -> String {
    let methods: Vec<&str> = ROUTES.iter().filter(|r| r.pattern == pattern).map(|r| r.method).collect();
    methods.join(", ")
}

/// The Markdown table of `docs/identity.md`.
pub fn markdown_table() -> String {
    let mut out = String::from("| Method | Route | Guard |\n|---|---|---|\n");
    for r in ROUTES {
        out.push_str(&format!("| {} | `{}` | {} |\n", r.method, r.pattern, r.access.describe()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_appears_once() {
        assert_eq!(BY_ROUTE.len(), ROUTES.len(), "a (method, pattern) pair is listed twice");
    }

    #[test]
    fn business_routes_need_a_permission() {
        let business = [
            "/api/v1/customer-mgmt/",
            "/api/v1/order-mgmt/",
            "/api/v1/warehouse/",
            "/api/v1/events",
            "/api/v1/webhooks",
            "/api/v1/imports",
            "/api/v1/exports",
        ];
        for r in ROUTES.iter().filter(|r| business.iter().any(|p| r.pattern.starts_with(p))) {
            assert!(matches!(r.access, Permission(..)), "{} {} must check a permission", r.method, r.pattern);
        }
    }

    #[test]
    fn only_known_routes_are_public() {
        for r in ROUTES.iter().filter(|r| !r.access.needs_token()) {
            let public = r.pattern.starts_with("/api/v1/shared/")
                || r.pattern.starts_with("/api/v1/identity/public/")
                || r.pattern == "/api/v1/openapi.json"
                || matches!(r.access, Credentials(_))
                || (matches!(r.access, Operations) && !r.pattern.starts_with("/api/"));
            assert!(public, "{} {} is reachable without a token", r.method, r.pattern);
        }
    }

    #[test]
    fn the_docs_carry_the_table() {
        let docs = include_str!("../../../../docs/identity.md");
        assert!(
            docs.contains(&markdown_table()),
            "docs/identity.md is out of date; paste this table under 'Route guards':\n{}",
            markdown_table()
        );
    }
}
