//! Turns the document the handlers' annotations describe into the published
//! contract, by the conventions every handler shares (docs/conventions.md and docs/api-contract.md):
//! a success body is `{status, data}` around what the annotation names, a
//! paginated list adds `pagination`, every error the gate, the extractors and
//! the storage layer can answer is listed with the error envelope, and the
//! security of each operation comes from the route table the gate enforces.
//! Annotations stay about the resource; the wire shape is decided here, once.

use serde_json::{json, Map, Value};

use crate::auth::route_access::{access_for, Access};

const ERROR_ENVELOPE: &str = "ErrorEnvelope";
const PAGINATION: &str = "Pagination";
const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// The component a `$ref` points at, if the schema is one.
fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/components/schemas/")
}

/// What every error answer looks like.
fn error_envelope() -> Value {
    json!({
        "type": "object",
        "description": "Every error answer.",
        "required": ["status", "error"],
        "properties": {
            "status": { "type": "string", "enum": ["error"] },
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": { "type": "string", "description": "Stable machine-readable code, e.g. VALIDATION_ERROR" },
                    "message": { "type": "string", "description": "For people; may change between releases" },
                    "details": {
                        "type": "object",
                        "description": "Each offending field (dotted path) mapped to what is wrong with it",
                        "additionalProperties": { "type": "string" }
                    }
                }
            }
        }
    })
}

fn pagination() -> Value {
    json!({
        "type": "object",
        "required": ["total", "total_exact", "page", "page_size", "total_pages"],
        "properties": {
            "total": {
                "type": "integer", "format": "int64", "minimum": 0,
                "description": "Items in the whole list: exact up to 10 000 (or the end of the page asked for), a lower bound beyond"
            },
            "total_exact": {
                "type": "boolean",
                "description": "False when the list is longer than was counted: `total` and `total_pages` are then lower bounds"
            },
            "page": { "type": "integer", "format": "int32", "minimum": 1 },
            "page_size": { "type": "integer", "format": "int32", "minimum": 1, "maximum": 100 },
            "total_pages": { "type": "integer", "format": "int64", "minimum": 0 }
        }
    })
}

fn success_envelope(data: Value) -> Value {
    json!({
        "type": "object",
        "required": ["status", "data"],
        "properties": { "status": { "type": "string", "enum": ["success"] }, "data": data }
    })
}

fn list_envelope(items: Value) -> Value {
    json!({
        "type": "object",
        "required": ["status", "data", "pagination"],
        "properties": {
            "status": { "type": "string", "enum": ["success"] },
            "data": { "type": "array", "items": items },
            "pagination": schema_ref(PAGINATION)
        }
    })
}

/// The actix pattern of a documented path: the table writes a regex segment
/// (`{code:.+}`) where the document writes `{code}`.
pub(super) fn table_access(method: &str, path: &str) -> Option<Access> {
    let upper = method.to_ascii_uppercase();
    access_for(&upper, path)
        .or_else(|| {
            let (head, last) = path.rsplit_once('/')?;
            let name = last.strip_prefix('{')?.strip_suffix('}')?;
            access_for(&upper, &format!("{head}/{{{name}:.+}}"))
        })
        .or_else(|| {
            // A parameter the router restricts to a list (`{resource:customers|companies|...}`).
            let rule = crate::auth::route_access::ROUTES
                .iter()
                .find(|r| r.method == upper && without_pattern(r.pattern) == path)?;
            Some(rule.access)
        })
}

/// A route pattern as the document writes it: each `{name:regex}` as `{name}`.
fn without_pattern(pattern: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for c in pattern.chars() {
        match c {
            ':' if out.rfind('{') > out.rfind('}') => skipping = true,
            '}' => {
                skipping = false;
                out.push(c);
            }
            _ if skipping => {}
            _ => out.push(c),
        }
    }
    out
}

/// The error answers an operation can give besides those its handler names.
fn implied_errors(operation: &Map<String, Value>, path: &str, access: Access) -> Vec<(&'static str, &'static str)> {
    let has_body = operation.get("requestBody").is_some();
    let has_params = operation.get("parameters").and_then(Value::as_array).is_some_and(|p| !p.is_empty());
    let mut errors = Vec::new();
    if has_body || has_params {
        errors.push((
            "400",
            "VALIDATION_ERROR / INVALID_UUID: a parameter or the body is invalid (details name each problem)",
        ));
    }
    if access.needs_token() {
        errors.push(("401", "UNAUTHORIZED / TOKEN_EXPIRED / TOKEN_REVOKED: no valid access token"));
    }
    match access {
        Access::Admin | Access::Permission(..) => {
            errors.push(("403", "FORBIDDEN: the caller lacks the permission this operation needs"))
        }
        Access::Token => errors.push(("403", "FORBIDDEN: an API key (this operation needs a person's access token)")),
        _ => {}
    }
    if path.contains('{') {
        errors.push(("404", "NOT_FOUND (or the resource's own *_NOT_FOUND code): nothing by that id"));
    }
    if has_body {
        errors.push(("413", "PAYLOAD_TOO_LARGE: the body is larger than 1 MiB"));
    }
    if access.limit().is_some() {
        errors.push(("429", "RATE_LIMIT_EXCEEDED: retry after the seconds in Retry-After"));
    }
    if access != Access::Operations {
        errors.push(("503", "SERVICE_UNAVAILABLE: a dependency (the database) is unreachable; retry later"));
    }
    errors
}

fn default_description(status: &str) -> &'static str {
    match status {
        "200" => "OK",
        "201" => "Created",
        "202" => "Accepted",
        "204" => "No content",
        "304" => "Not modified",
        "400" => "VALIDATION_ERROR: the request is invalid",
        "401" => "UNAUTHORIZED",
        "403" => "FORBIDDEN",
        "404" => "NOT_FOUND",
        "405" => "METHOD_NOT_ALLOWED",
        "409" => "Conflict with the current state",
        "412" => "PRECONDITION_FAILED",
        "413" => "PAYLOAD_TOO_LARGE",
        "422" => "Unprocessable request",
        "423" => "ACCOUNT_LOCKED",
        "429" => "RATE_LIMIT_EXCEEDED",
        "503" => "SERVICE_UNAVAILABLE",
        _ => "Response",
    }
}

/// Wraps a success body in its envelope, as a named component when the
/// annotation names one (generators then produce a model per resource).
fn wrap_success(content: &mut Value, paginated: bool, new_components: &mut Map<String, Value>) {
    let Some(schema) = content.pointer_mut("/application~1json/schema") else { return };
    let (items, is_array) = match schema.get("type").and_then(Value::as_str) {
        Some("array") => (schema.get("items").cloned().unwrap_or(json!({})), true),
        _ => (schema.clone(), false),
    };
    let (wrapped, suffix) = if paginated && is_array {
        (list_envelope(items.clone()), "Page")
    } else {
        (success_envelope(schema.clone()), if is_array { "ListEnvelope" } else { "Envelope" })
    };
    *schema = match ref_name(&items) {
        Some(name) => {
            let component = format!("{name}{suffix}");
            new_components.entry(component.clone()).or_insert(wrapped);
            schema_ref(&component)
        }
        None => wrapped,
    };
}

/// An optional text query parameter sent blank (`?status=`, as an HTML form
/// sends it) means "no filter" (`routes::query_params::present`); the
/// contract says so with `allowEmptyValue`.
fn allow_blank_filters(op: &mut Map<String, Value>) {
    for param in op.get_mut("parameters").and_then(Value::as_array_mut).into_iter().flatten() {
        let optional_query = param["in"] == "query" && param["required"] != true;
        let types = &param["schema"]["type"];
        let text = types == "string" || types.as_array().is_some_and(|t| t.contains(&json!("string")));
        if optional_query && text {
            param["allowEmptyValue"] = json!(true);
        }
    }
}

fn finish_operation(path: &str, method: &str, operation: &mut Value, new_components: &mut Map<String, Value>) {
    // An operation missing from the route table is refused by the gate; the
    // contract tests fail on it, so here it is documented as token-guarded.
    let access = table_access(method, path).unwrap_or(Access::Token);
    let Some(op) = operation.as_object_mut() else { return };
    if access.needs_token() {
        op.remove("security");
    } else {
        op.insert("security".into(), json!([]));
    }
    allow_blank_filters(op);
    let paginated = op
        .get("parameters")
        .and_then(Value::as_array)
        .is_some_and(|params| params.iter().any(|p| p["name"] == "page_size"));
    // An import's upload ignores the key: its body streams to storage (docs/imports-and-exports.md).
    if method == "post" && path != "/api/v1/imports/{resource}" {
        super::retries::document_idempotency(op);
    }
    super::retries::document_conditions(path, method, op);
    let implied = implied_errors(op, path, access);
    let responses = op.entry("responses").or_insert_with(|| json!({}));
    let Some(responses) = responses.as_object_mut() else { return };
    for (status, description) in implied {
        responses.entry(status).or_insert_with(|| json!({ "description": description }));
    }
    for (status, response) in responses.iter_mut() {
        let Some(response) = response.as_object_mut() else { continue };
        let described = response.get("description").and_then(Value::as_str).is_some_and(|d| !d.is_empty());
        if !described {
            response.insert("description".into(), json!(default_description(status)));
        }
        let is_error = status.starts_with('4') || status.starts_with('5');
        match response.get_mut("content") {
            // Health and metrics answer in their own formats (docs/conventions.md).
            Some(content) if status.starts_with('2') && access != Access::Operations => {
                wrap_success(content, paginated, new_components)
            }
            None if is_error => {
                response
                    .insert("content".into(), json!({ "application/json": { "schema": schema_ref(ERROR_ENVELOPE) } }));
            }
            _ => {}
        }
        if status == "429" {
            response.insert(
                "headers".into(),
                json!({ "Retry-After": { "description": "Seconds to wait", "schema": { "type": "integer" } } }),
            );
        }
    }
}

/// A format the contract pins with a pattern (every generator and fuzzer
/// honours a pattern; many treat `format` as a hint only), and what a value
/// that breaks it is told. Request types name these formats in their
/// annotations (`format = "non-blank"`); the pattern is written only here.
pub(crate) struct PinnedFormat {
    pub name: &'static str,
    pub pattern: &'static str,
    pub message: &'static str,
}

/// Blanks a trimming server ignores at either end of a text, and the
/// characters (C0 and C1 controls) no single-line text may hold.
macro_rules! blank {
    () => {
        r"[\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]"
    };
}
macro_rules! visible {
    () => {
        r"[^\s\u0000-\u001F\u007F-\u009F]"
    };
}
macro_rules! printable {
    () => {
        r"[^\u0000-\u001F\u007F-\u009F]"
    };
}

pub(crate) const PINNED_FORMATS: &[PinnedFormat] = &[
    PinnedFormat {
        name: "uuid",
        pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        message: "must be a UUID",
    },
    // Years 1900..=2200 (docs/identity.md).
    PinnedFormat {
        name: "date",
        pattern: "^(19[0-9]{2}|2[01][0-9]{2}|2200)-[0-9]{2}-[0-9]{2}$",
        message: "must be a date YYYY-MM-DD, with a year in 1900..=2200",
    },
    PinnedFormat {
        name: "date-time",
        pattern: "^(19[0-9]{2}|2[01][0-9]{2}|2200)-[0-9]{2}-[0-9]{2}T",
        message: "must be an RFC 3339 timestamp, with a year in 1900..=2200",
    },
    // Codes the server trims and upper-cases.
    PinnedFormat {
        name: "currency-code",
        pattern: r"^\s*[A-Za-z]{3}\s*$",
        message: "must be a three-letter ISO 4217 code",
    },
    PinnedFormat {
        name: "country-code",
        pattern: r"^\s*[A-Za-z]{2}\s*$",
        message: "must be a two-letter ISO 3166-1 code",
    },
    // Text the server trims and requires.
    PinnedFormat { name: "non-blank", pattern: r"^\s*\S[\s\S]*$", message: "must not be blank" },
    // Single-line text the warehouse trims and refuses control characters in; may be empty.
    PinnedFormat {
        name: "text-line",
        pattern: concat!("^", blank!(), "*(", visible!(), "(", printable!(), "*", visible!(), ")?)?", blank!(), "*$"),
        message: "must not contain control characters",
    },
    // The same, required: at least one visible character.
    PinnedFormat {
        name: "non-blank-line",
        pattern: concat!("^", blank!(), "*", visible!(), "(", printable!(), "*", visible!(), ")?", blank!(), "*$"),
        message: "must not be blank or contain control characters",
    },
];

fn format_pattern(format: &str) -> Option<&'static str> {
    PINNED_FORMATS.iter().find(|f| f.name == format).map(|f| f.pattern)
}

fn pin_formats(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let pattern = map.get("format").and_then(Value::as_str).and_then(format_pattern);
            if let (Some(pattern), false) = (pattern, map.contains_key("pattern")) {
                map.insert("pattern".into(), json!(pattern));
            }
            map.values_mut().for_each(pin_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(pin_formats),
        _ => {}
    }
}

/// Applies the shared conventions to the whole document.
pub fn finish(document: &mut Value) {
    pin_formats(document);
    document["security"] = json!([{ "bearer": [] }]);
    let mut new_components = Map::new();
    if let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) {
        for (path, item) in paths.iter_mut() {
            for method in METHODS {
                if let Some(operation) = item.get_mut(method) {
                    finish_operation(path, method, operation, &mut new_components);
                }
            }
        }
    }
    let schemas = document.pointer_mut("/components/schemas").and_then(Value::as_object_mut);
    if let Some(schemas) = schemas {
        schemas.insert(ERROR_ENVELOPE.into(), error_envelope());
        schemas.insert(PAGINATION.into(), pagination());
        schemas.extend(new_components);
        schemas.sort_keys();
    }
    if let Some(components) = document.get_mut("components").and_then(Value::as_object_mut) {
        let parameters = components.entry("parameters").or_insert_with(|| json!({}));
        if let Some(parameters) = parameters.as_object_mut() {
            parameters.extend(super::retries::parameters());
            parameters.sort_keys();
        }
    }
}
