//! The retry-safety part of the contract: `Idempotency-Key` on every POST
//! (docs/retries.md) and conditional requests on one resource (12.4), with the
//! answers they add, declared once here for every operation the way the
//! middlewares apply them to every route.

use serde_json::{json, Map, Value};

pub(super) const IDEMPOTENCY_KEY_PARAMETER: &str = "IdempotencyKey";
const IF_MATCH_PARAMETER: &str = "IfMatch";
const IF_NONE_MATCH_PARAMETER: &str = "IfNoneMatch";

/// The shared parameter components this module refers to.
pub(super) fn parameters() -> Map<String, Value> {
    let mut parameters = Map::new();
    parameters.insert(
        IDEMPOTENCY_KEY_PARAMETER.into(),
        json!({
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "description": "Makes a retry safe: the first request with a key runs and its answer is kept 24 hours \
                (per caller); the same request again gets that answer with `Idempotent-Replayed: true` and changes \
                nothing. 1 to 255 visible ASCII characters; a quoted form (\"key\") names the same key.",
            "schema": { "type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x21-\\x7E]{1,255}$" }
        }),
    );
    parameters.insert(
        IF_MATCH_PARAMETER.into(),
        json!({
            "name": "If-Match",
            "in": "header",
            "required": false,
            "description": "Write only if the resource is still at one of these ETags (or `*`: exists); \
                otherwise 412 PRECONDITION_FAILED and nothing changes. Checked atomically with the write.",
            "schema": { "type": "string" }
        }),
    );
    parameters.insert(
        IF_NONE_MATCH_PARAMETER.into(),
        json!({
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "description": "304 Not Modified, without a body, when the resource is still at one of these ETags.",
            "schema": { "type": "string" }
        }),
    );
    parameters
}

fn etag_header() -> Value {
    json!({ "description": "Strong entity tag of the resource's current version", "schema": { "type": "string" } })
}

fn add_parameter(op: &mut Map<String, Value>, name: &str) {
    let parameters = op.entry("parameters").or_insert_with(|| json!([]));
    if let Some(parameters) = parameters.as_array_mut() {
        parameters.push(json!({ "$ref": format!("#/components/parameters/{name}") }));
    }
}

/// Adds `text` to the description of `status`, creating the response when the annotation has none.
fn add_error(responses: &mut Map<String, Value>, status: &str, text: &str) {
    let response = responses.entry(status).or_insert_with(|| json!({}));
    let described = response.get("description").and_then(Value::as_str).filter(|d| !d.is_empty());
    let description = match described {
        Some(existing) if existing.contains(text) => existing.to_owned(),
        Some(existing) => format!("{existing} / {text}"),
        None => text.to_owned(),
    };
    response["description"] = Value::String(description);
}

/// Single-resource reads that are not a guarded resource's own `{id}` route; their answers
/// carry an `ETag` too.
const TAGGED_LOOKUPS: [&str; 14] = [
    "/api/v1/customer-mgmt/customers/email/{email}",
    "/api/v1/identity/permissions/name/{name}",
    "/api/v1/identity/profiles/me",
    "/api/v1/identity/roles/name/{name}",
    "/api/v1/identity/users/me",
    "/api/v1/order-mgmt/orders/number/{order_number}",
    "/api/v1/shared/countries/{code}",
    "/api/v1/shared/currencies/{code}",
    "/api/v1/shared/languages/{code}",
    "/api/v1/shared/timezones/{code}",
    "/api/v1/warehouse/locations/code/{code}",
    "/api/v1/warehouse/products/sku/{sku}",
    "/api/v1/warehouse/purchase-orders/number/{po_number}",
    "/api/v1/warehouse/stock-movements/{id}",
];

/// Writes under a guarded resource whose answer is about something else (a role's permission
/// list, a user's roles, a two-record transfer): `If-Match` applies, no `ETag` is sent.
fn answers_untagged(path: &str) -> bool {
    ["/permissions", "/roles", "/transfer"].iter().any(|tail| path.ends_with(tail))
        || path.contains("{permission_id}")
        || path.contains("{role_id}")
}

/// `If-None-Match`, 304 and `ETag` on single-resource reads; `If-Match`, 412 and `ETag` on the
/// writes to one guarded resource.
pub(super) fn document_conditions(path: &str, method: &str, op: &mut Map<String, Value>) {
    let guarded = crate::http::conditional::is_guarded_pattern(path);
    let tagged_read = method == "get" && ((guarded && path.ends_with("{id}")) || TAGGED_LOOKUPS.contains(&path));
    if !tagged_read && (method == "get" || !guarded) {
        return;
    }
    add_parameter(op, if tagged_read { IF_NONE_MATCH_PARAMETER } else { IF_MATCH_PARAMETER });
    let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else { return };
    if tagged_read || !answers_untagged(path) {
        for (status, response) in responses.iter_mut() {
            if status == "200" || status == "201" {
                response["headers"]["ETag"] = etag_header();
            }
        }
    }
    if tagged_read {
        responses.insert(
            "304".into(),
            json!({ "description": "Not Modified: the If-None-Match tag is current", "headers": { "ETag": etag_header() } }),
        );
    } else {
        add_error(responses, "412", "PRECONDITION_FAILED: the If-Match tag is not the resource's current one");
    }
}

/// The header, the replay marker on successes and the two refusals, on a POST.
pub(super) fn document_idempotency(op: &mut Map<String, Value>) {
    add_parameter(op, IDEMPOTENCY_KEY_PARAMETER);
    let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else { return };
    for (status, response) in responses.iter_mut() {
        if status.starts_with('2') {
            response["headers"]["Idempotent-Replayed"] = json!({
                "description": "`true` when this is the kept answer of an earlier request with the same Idempotency-Key",
                "schema": { "type": "string", "enum": ["true"] }
            });
        }
    }
    add_error(responses, "409", "IDEMPOTENCY_KEY_IN_USE: a request with this Idempotency-Key is still running");
    add_error(responses, "422", "IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for a different request");
}
