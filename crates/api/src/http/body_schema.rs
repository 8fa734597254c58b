//! Every problem of a JSON body at once (docs/conventions.md): before serde
//! builds the typed value, the body is checked against the schema the
//! published contract gives its type, and each violation (missing field,
//! wrong type, bound, enum, format) becomes one entry of `details`. The
//! contract is the one declaration of a body's shape, so what clients are
//! told and what the server enforces cannot drift apart. What a schema cannot
//! say (a real phone number, an existing row) is checked after, by the domain.

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use jsonschema::{Draft, ValidationError, Validator};
use serde_json::{json, Map, Value};

const SCHEMA_PREFIX: &str = "#/components/schemas/";

/// The field extension naming the error code a violation of that field's
/// schema answers with, e.g. `INVALID_QUANTITY` (the code the domain uses for
/// the same rule), so moving a rule into the schema does not change the wire.
pub const ERROR_CODE_EXTENSION: &str = "x-error-code";

/// One body's problems, by field (dotted path, `[i]` for array items).
pub struct Problems<'a> {
    pub details: BTreeMap<String, String>,
    /// The code every problem shares (from [`ERROR_CODE_EXTENSION`], or
    /// `INVALID_EMAIL` for an email format); `None` means `VALIDATION_ERROR`.
    pub code: Option<&'a str>,
}

/// A request body type's schema, compiled, and the document it was compiled
/// from (to read the extensions of the schema an error points at).
pub struct BodySchema {
    validator: Validator,
    root: Value,
}

/// The schema of a request body type, by its schema name.
pub fn for_type(name: &str) -> Option<&'static BodySchema> {
    BODY_SCHEMAS.get(name)
}

static BODY_SCHEMAS: LazyLock<HashMap<String, BodySchema>> = LazyLock::new(|| {
    let document = crate::openapi::document();
    let schemas = document.pointer("/components/schemas").and_then(Value::as_object).cloned().unwrap_or_default();
    request_body_types(document)
        .into_iter()
        .filter_map(|name| {
            let root = json!({
                "$ref": format!("{SCHEMA_PREFIX}{name}"),
                "components": { "schemas": closure(&name, &schemas) },
            });
            let built = jsonschema::options()
                .with_draft(Draft::Draft202012)
                .should_validate_formats(true)
                // The one email rule of the shared kernel, not the validator's own.
                .with_format("email", |text: &str| shared_kernel::Email::parse(text).is_ok())
                .build(&root);
            match built {
                Ok(validator) => Some((name, BodySchema { validator, root })),
                Err(error) => {
                    tracing::error!(schema = %name, %error, "a request body schema does not compile");
                    None
                }
            }
        })
        .collect()
});

/// The component names that some operation takes as its JSON body.
fn request_body_types(document: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for item in document["paths"].as_object().into_iter().flat_map(|paths| paths.values()) {
        for operation in item.as_object().into_iter().flat_map(|ops| ops.values()) {
            let schema = operation.pointer("/requestBody/content/application~1json/schema");
            if let Some(name) = schema.and_then(|s| s["$ref"].as_str()).and_then(|r| r.strip_prefix(SCHEMA_PREFIX)) {
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_owned());
                }
            }
        }
    }
    names
}

/// The named schema and every schema it refers to, transitively.
fn closure(name: &str, schemas: &Map<String, Value>) -> Map<String, Value> {
    let mut found = Map::new();
    let mut pending = vec![name.to_owned()];
    while let Some(next) = pending.pop() {
        if found.contains_key(&next) {
            continue;
        }
        let Some(schema) = schemas.get(&next) else { continue };
        collect_refs(schema, &mut pending);
        found.insert(next, schema.clone());
    }
    found
}

fn collect_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(SCHEMA_PREFIX)) {
                into.push(name.to_owned());
            }
            map.values().for_each(|v| collect_refs(v, into));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, into)),
        _ => {}
    }
}

impl BodySchema {
    /// Every violation of `body`, or `None` when it conforms.
    pub fn problems(&self, body: &Value) -> Option<Problems<'_>> {
        // Most bodies conform: answer those without building an error for every rule checked.
        if self.validator.is_valid(body) {
            return None;
        }
        let mut found = Found { root: &self.root, details: BTreeMap::new(), codes: Vec::new(), left_out: 0 };
        for error in self.validator.iter_errors(body) {
            found.describe(&error);
        }
        if found.details.is_empty() {
            return None;
        }
        let first = found.codes.first().copied().flatten();
        let shared = found.codes.len() == found.details.len() && found.codes.iter().all(|c| *c == first);
        if found.left_out > 0 {
            found.details.insert(MORE.to_owned(), format!("{} more problems not listed", found.left_out));
        }
        Some(Problems { details: found.details, code: if shared { first } else { None } })
    }
}

/// The key of `details` that says how many problems were left out (docs/bounded-work.md).
pub const MORE: &str = "_more";

struct Found<'a> {
    root: &'a Value,
    /// At most [`super::error::MAX_DETAILS`] problems: a body of 10^5 bad items must not make 10^5 of them.
    details: BTreeMap<String, String>,
    /// Problems past the limit, counted only.
    left_out: usize,
    /// One entry per detail: the code its schema names, if any.
    codes: Vec<Option<&'a str>>,
}

fn field_path(error: &ValidationError<'_>, extra: Option<&str>) -> String {
    let mut path = String::new();
    for segment in error.instance_path().iter() {
        match segment {
            LocationSegment::Property(name) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&name);
            }
            LocationSegment::Index(index) => path.push_str(&format!("[{index}]")),
        }
    }
    if let Some(name) = extra {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(name);
    }
    if path.is_empty() {
        "body".to_owned()
    } else {
        path
    }
}

fn type_name(kind: &TypeKind) -> String {
    let names: Vec<String> = match kind {
        TypeKind::Single(one) => vec![one.to_string()],
        TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
    };
    let named: Vec<String> = names
        .iter()
        .filter(|n| n.as_str() != "null")
        .map(|n| match n.as_str() {
            "integer" | "object" | "array" => format!("an {n}"),
            other => format!("a {other}"),
        })
        .collect();
    let nullable = names.iter().any(|n| n == "null");
    match (named.join(" or "), nullable) {
        (text, true) if !text.is_empty() => format!("must be {text} or null"),
        (text, _) if !text.is_empty() => format!("must be {text}"),
        _ => "must be null".to_owned(),
    }
}

/// What a pattern asks for, in words where the pattern is one of the text
/// rules shared by many fields.
fn pattern_message(pattern: &str) -> String {
    // A pattern the contract pins a format with says what it means in words.
    match crate::openapi::PINNED_FORMATS.iter().find(|f| f.pattern == pattern) {
        Some(pinned) => pinned.message.to_owned(),
        None => format!("must match {pattern}"),
    }
}

fn format_message(format: &str) -> String {
    match format {
        "email" => "is not a valid email address".to_owned(),
        "uuid" => "must be a UUID".to_owned(),
        "date" => "must be a date YYYY-MM-DD".to_owned(),
        "date-time" => "must be an RFC 3339 timestamp".to_owned(),
        other => format!("must be a valid {other}"),
    }
}

impl<'a> Found<'a> {
    fn add(&mut self, field: String, message: String, code: Option<&'a str>) {
        if self.details.len() >= super::error::MAX_DETAILS {
            if !self.details.contains_key(&field) {
                self.left_out += 1;
            }
            return;
        }
        if let std::collections::btree_map::Entry::Vacant(entry) = self.details.entry(field) {
            entry.insert(message);
            self.codes.push(code);
        }
    }

    /// The error code the schema holding the violated keyword names for
    /// breaking its rules. A missing or mistyped value is not a broken rule:
    /// those stay `VALIDATION_ERROR`.
    fn code_at(&self, error: &ValidationError<'_>) -> Option<&'a str> {
        let keyword = error.schema_path().as_str();
        let parent = keyword.rsplit_once('/').map_or("", |(parent, _)| parent);
        self.root.pointer(parent)?.get(ERROR_CODE_EXTENSION)?.as_str()
    }

    fn describe(&mut self, error: &ValidationError<'_>) {
        let message = match error.kind() {
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                self.add(field_path(error, Some(name)), "is required".to_owned(), None);
                return;
            }
            ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
                // A nullable reference is `oneOf: [null, X]`: report what is wrong against X.
                let relevant: Vec<&Vec<ValidationError<'static>>> =
                    context.iter().filter(|branch| !is_only_a_type_mismatch(branch, error)).collect();
                if let [branch] = relevant.as_slice() {
                    branch.iter().for_each(|inner| self.describe(inner));
                    return;
                }
                "is not valid".to_owned()
            }
            ValidationErrorKind::Type { kind } => {
                self.add(field_path(error, None), type_name(kind), None);
                return;
            }
            // The server has always matched these names ignoring case and
            // surrounding blanks; the document lists the canonical spelling.
            ValidationErrorKind::Enum { options } if matches_ignoring_case(error.instance(), options) => return,
            ValidationErrorKind::Enum { options } => {
                let allowed: Vec<String> = options
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|o| o.as_str().map_or(o.to_string(), str::to_owned))
                    .collect();
                format!("must be one of {}", allowed.join(", "))
            }
            ValidationErrorKind::Constant { expected_value } => format!("must be {expected_value}"),
            ValidationErrorKind::MinLength { limit: 1 } => "must not be empty".to_owned(),
            ValidationErrorKind::MinLength { limit } => format!("must be at least {limit} characters"),
            ValidationErrorKind::MaxLength { limit } => format!("must be at most {limit} characters"),
            ValidationErrorKind::Minimum { limit } => format!("must be {limit} or more"),
            ValidationErrorKind::Maximum { limit } => format!("must be {limit} or less"),
            ValidationErrorKind::ExclusiveMinimum { limit } => format!("must be more than {limit}"),
            ValidationErrorKind::ExclusiveMaximum { limit } => format!("must be less than {limit}"),
            ValidationErrorKind::MinItems { limit } => format!("must have at least {limit} items"),
            ValidationErrorKind::MaxItems { limit } => format!("must have at most {limit} items"),
            ValidationErrorKind::UniqueItems => "must not repeat an item".to_owned(),
            ValidationErrorKind::Pattern { pattern } => pattern_message(pattern),
            ValidationErrorKind::Format { format } => {
                let code = self.code_at(error).or_else(|| (format == "email").then_some("INVALID_EMAIL"));
                self.add(field_path(error, None), format_message(format), code);
                return;
            }
            _ => "is not valid".to_owned(),
        };
        let code = self.code_at(error);
        self.add(field_path(error, None), message, code);
    }
}

fn matches_ignoring_case(value: &Value, options: &Value) -> bool {
    let Some(text) = value.as_str().map(str::trim) else { return false };
    options.as_array().into_iter().flatten().filter_map(Value::as_str).any(|o| o.eq_ignore_ascii_case(text))
}

/// A branch that fails only because the value is not of the branch's type
/// (the `null` branch of a nullable field, for a present value).
fn is_only_a_type_mismatch(branch: &[ValidationError<'static>], parent: &ValidationError<'_>) -> bool {
    matches!(branch, [only] if matches!(only.kind(), ValidationErrorKind::Type { .. })
        && only.instance_path() == parent.instance_path())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema_for(root: Value) -> BodySchema {
        let validator = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true)
            .build(&root)
            .expect("valid");
        BodySchema { validator, root }
    }

    fn sample() -> BodySchema {
        schema_for(json!({
            "type": "object",
            "required": ["name", "email", "count"],
            "properties": {
                "name": { "type": "string", "minLength": 1, "maxLength": 5 },
                "email": { "type": "string" },
                "count": { "type": "integer", "minimum": 1 },
                "kind": { "type": ["string", "null"], "enum": ["a", "b", null] },
                "id": { "type": "string", "format": "uuid" },
                "items": { "type": "array", "maxItems": 2, "items": { "$ref": "#/$defs/Item" } },
                "nested": { "oneOf": [{ "type": "null" }, { "$ref": "#/$defs/Item" }] }
            },
            "$defs": { "Item": { "type": "object", "required": ["quantity"], "properties": {
                "quantity": { "type": "integer", "minimum": 1, "x-error-code": "INVALID_QUANTITY" } } } }
        }))
    }

    fn details(body: Value) -> BTreeMap<String, String> {
        sample().problems(&body).map(|p| p.details).unwrap_or_default()
    }

    fn code(body: Value) -> Option<String> {
        sample().problems(&body).and_then(|p| p.code.map(str::to_owned))
    }

    #[test]
    fn a_rule_with_its_own_code_keeps_it_when_it_is_the_only_kind_of_problem() {
        let valid = json!({"name": "Ada", "email": "a@b.co", "count": 2});
        let mut one = valid.clone();
        one["items"] = json!([{"quantity": 0}]);
        assert_eq!(code(one), Some("INVALID_QUANTITY".to_owned()));
        let mut missing = valid.clone();
        missing["items"] = json!([{}, {"quantity": -1}]);
        assert_eq!(code(missing), None, "a missing quantity is not a broken quantity rule");
        let mut mixed = valid;
        mixed["items"] = json!([{"quantity": 0}]);
        mixed["count"] = json!(0);
        assert_eq!(code(mixed), None, "mixed problems are a VALIDATION_ERROR");
    }

    #[test]
    fn names_every_problem_at_once() {
        let found = details(json!({
            "name": "much too long", "count": "three", "kind": "c", "id": "not-a-uuid",
            "items": [{}, {"quantity": 0}, {"quantity": 1}], "nested": {"quantity": "x"}
        }));
        assert_eq!(found.get("email").map(String::as_str), Some("is required"));
        assert_eq!(found.get("name").map(String::as_str), Some("must be at most 5 characters"));
        assert_eq!(found.get("count").map(String::as_str), Some("must be an integer"));
        assert!(found.get("kind").is_some_and(|m| m.starts_with("must be one of a, b")), "{found:?}");
        assert_eq!(found.get("id").map(String::as_str), Some("must be a UUID"));
        assert_eq!(found.get("items").map(String::as_str), Some("must have at most 2 items"));
        assert_eq!(found.get("items[0].quantity").map(String::as_str), Some("is required"));
        assert_eq!(found.get("items[1].quantity").map(String::as_str), Some("must be 1 or more"));
        assert_eq!(found.get("nested.quantity").map(String::as_str), Some("must be an integer"), "{found:?}");
        assert_eq!(found.len(), 9, "{found:?}");
    }

    #[test]
    fn enum_names_match_ignoring_case_and_blanks() {
        let valid = json!({"name": "Ada", "email": "a@b.co", "count": 2});
        for kind in ["A", " b ", "a"] {
            let mut body = valid.clone();
            body["kind"] = json!(kind);
            assert!(details(body).is_empty(), "{kind}");
        }
    }

    #[test]
    fn a_conforming_body_has_no_problems() {
        assert!(details(json!({"name": "Ada", "email": "a@b.co", "count": 2, "kind": null, "nested": null})).is_empty());
    }

    #[test]
    fn a_body_that_is_not_an_object_is_named_body() {
        assert_eq!(details(json!([1])).get("body").map(String::as_str), Some("must be an object"));
    }

    #[test]
    fn every_request_body_schema_of_the_contract_compiles() {
        let names = request_body_types(crate::openapi::document());
        assert!(names.len() > 40, "{names:?}");
        for name in names {
            assert!(for_type(&name).is_some(), "{name} has no validator");
        }
    }
}
