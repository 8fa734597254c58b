//! Extractors that turn every bad input into a 400 envelope with details.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::error::{PathError, QueryPayloadError};
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use shared_kernel::PageRequest;

use utoipa::ToSchema;

use super::array_bound::{self, MAX_ARRAY_ITEMS};
use super::{body_schema, ApiError};

/// Largest accepted request body (docs/conventions.md).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// A JSON body. Unlike `web::Json`, a failure names the offending field.
pub struct Json<T>(pub T);

/// A JSON body the operation may go without: no body (or only whitespace)
/// is `None`, but a body that is present must be valid, as with [`Json`]
/// (actix's `Option<Json<T>>` would silently drop a malformed one).
pub struct OptionalJson<T>(pub Option<T>);

type BodyFuture<T> = Pin<Box<dyn Future<Output = Result<T, ApiError>>>>;

/// Reads and parses the body; `None` when it is empty.
fn read_body<T: DeserializeOwned + ToSchema + 'static>(
    req: &HttpRequest,
    payload: &mut Payload,
) -> BodyFuture<Option<T>> {
    let is_json = req.headers().get(actix_web::http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(|v| {
        let mime = v.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        mime == "application/json" || mime.ends_with("+json")
    });
    let body = web::Bytes::from_request(req, payload);
    // A failed `If-Match` is answered only for a body that parses (`http::conditional`).
    let precondition_failed = req.extensions().get::<super::conditional::PreconditionFailed>().cloned();
    Box::pin(async move {
        let bytes = body.await.map_err(|e| {
            if e.as_response_error().status_code() == actix_web::http::StatusCode::PAYLOAD_TOO_LARGE {
                payload_too_large()
            } else {
                ApiError::field("body", "the request body could not be read")
            }
        })?;
        if bytes.len() > MAX_BODY_BYTES {
            return Err(payload_too_large());
        }
        // No body, or JSON `null`, is "no body" (the schema of an optional body allows null).
        let trimmed = bytes.trim_ascii();
        if trimmed.is_empty() || trimmed == b"null" {
            return Ok(None);
        }
        if is_json == Some(false) {
            return Err(ApiError::field("body", "Content-Type must be application/json"));
        }
        let parsed = parse_json(&bytes)?;
        match precondition_failed {
            Some(failed) => Err(failed.refuse()),
            None => Ok(Some(parsed)),
        }
    })
}

impl<T: DeserializeOwned + ToSchema + 'static> FromRequest for Json<T> {
    type Error = ApiError;
    type Future = BodyFuture<Self>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = read_body::<T>(req, payload);
        Box::pin(async move { body.await?.map(Json).ok_or_else(|| ApiError::field("body", "a JSON body is required")) })
    }
}

impl<T: DeserializeOwned + ToSchema + 'static> FromRequest for OptionalJson<T> {
    type Error = ApiError;
    type Future = BodyFuture<Self>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = read_body::<T>(req, payload);
        Box::pin(async move { body.await.map(OptionalJson) })
    }
}

pub fn payload_too_large() -> ApiError {
    ApiError::new(
        actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
        "PAYLOAD_TOO_LARGE",
        "the request body is larger than 1 MiB",
    )
}

/// Parses a JSON body: every problem the contract's schema for `T` can name
/// at once (`body_schema`), then serde builds the value (naming the field if
/// it still fails on something the schema does not say).
pub fn parse_json<T: DeserializeOwned + ToSchema>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::field("body", "a JSON body is required"));
    }
    if let Some(field) = array_bound::overlong_array(bytes) {
        let message = format!("must have at most {MAX_ARRAY_ITEMS} items");
        return Err(ApiError::validation(format!("invalid request body: {field} {message}"))
            .with_details(BTreeMap::from([(field, message)])));
    }
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|_| ApiError::field("body", "is not valid JSON"))?;
    parse_value(value)
}

/// Parses a body already read as JSON, by the same rules as [`parse_json`]: an import's row is
/// judged exactly as the create endpoint's body (docs/imports-and-exports.md).
pub fn parse_value<T: DeserializeOwned + ToSchema>(mut value: serde_json::Value) -> Result<T, ApiError> {
    // PostgreSQL text cannot hold NUL, and no field of ours needs it.
    if holds_nul(&value) {
        return Err(ApiError::field("body", "text must not contain NUL characters"));
    }
    integral_floats_as_integers(&mut value);
    if let Some(problems) = body_schema::for_type(&T::name()).and_then(|schema| schema.problems(&value)) {
        return Err(invalid_body(problems));
    }
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(value) => Ok(value),
        Err(error) => {
            let path = error.path().to_string();
            let inner = error.into_inner();
            let (field, message) = describe_json_error(&path, &inner);
            Err(ApiError::validation(format!("invalid request body: {field} {message}"))
                .with_details(BTreeMap::from([(field, message)])))
        }
    }
}

fn holds_nul(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(text) => text.contains('\0'),
        serde_json::Value::Array(items) => items.iter().any(holds_nul),
        serde_json::Value::Object(map) => map.iter().any(|(key, v)| key.contains('\0') || holds_nul(v)),
        _ => false,
    }
}

/// JSON Schema counts `2.0` as an integer; so does the server (serde's
/// integers would refuse it).
fn integral_floats_as_integers(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(number) => {
            if let Some(float) = number.as_f64().filter(|f| number.is_f64() && f.fract() == 0.0) {
                if float >= i64::MIN as f64 && float < i64::MAX as f64 {
                    *value = serde_json::Value::from(float as i64);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(integral_floats_as_integers),
        serde_json::Value::Object(map) => map.values_mut().for_each(integral_floats_as_integers),
        _ => {}
    }
}

/// 400 naming every problem, with the code they share (e.g. `INVALID_EMAIL`)
/// or `VALIDATION_ERROR`.
fn invalid_body(problems: body_schema::Problems<'static>) -> ApiError {
    let message = match problems.details.iter().next() {
        Some((field, message)) if problems.details.len() == 1 => format!("invalid request body: {field} {message}"),
        _ => "invalid request body: several problems, each named in details (at most 50; `_more` counts the rest)"
            .to_owned(),
    };
    let code = problems.code.unwrap_or("VALIDATION_ERROR");
    ApiError::new(actix_web::http::StatusCode::BAD_REQUEST, code, message).with_details(problems.details)
}

fn describe_json_error(path: &str, error: &serde_json::Error) -> (String, String) {
    use serde_json::error::Category;
    if matches!(error.classify(), Category::Syntax | Category::Eof | Category::Io) {
        return ("body".to_owned(), "is not valid JSON".to_owned());
    }
    let text = error.to_string();
    // serde's messages end with " at line L column C"; the position is noise here.
    let text = text.split(" at line ").next().unwrap_or(&text).to_owned();
    let at_root = path == "." || path.is_empty();
    if let Some(rest) = text.strip_prefix("missing field `") {
        let name = rest.trim_end_matches('`');
        let field = if at_root { name.to_owned() } else { format!("{path}.{name}") };
        return (field, "is required".to_owned());
    }
    let field = if at_root { "body".to_owned() } else { path.to_owned() };
    (field, text)
}

/// `?page=&page_size=` with the decided bounds.
#[derive(Debug, Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// 1-based page number (default 1).
    #[param(minimum = 1, maximum = 4294967295_i64)]
    pub page: Option<i64>,
    /// Items per page, 1..=100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<i64>,
}

impl PageQuery {
    pub fn request(&self) -> Result<PageRequest, ApiError> {
        Ok(PageRequest::new(self.page, self.page_size)?)
    }
}

/// Query-string failures become 400 `VALIDATION_ERROR`.
pub fn query_error(error: QueryPayloadError, _req: &HttpRequest) -> actix_web::Error {
    query_string_error(&error).into()
}

/// A query string serde could not read, as every endpoint answers it (also the exports, which read
/// their list's parameters from the query string themselves).
pub fn query_string_error(error: &QueryPayloadError) -> ApiError {
    let text = error.to_string();
    let message = text.split(": ").last().unwrap_or(&text).to_owned();
    ApiError::validation(format!("invalid query string: {message}"))
        .with_details(BTreeMap::from([("query".to_owned(), message)]))
}

/// Path failures are nearly always a malformed id: 400 `INVALID_UUID`.
pub fn path_error(_error: PathError, _req: &HttpRequest) -> actix_web::Error {
    ApiError::invalid_uuid("the id in the path").into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, utoipa::ToSchema)]
    #[allow(dead_code)]
    struct Sample {
        email: String,
        count: i32,
        nested: Option<Inner>,
    }

    #[derive(Debug, Deserialize, utoipa::ToSchema)]
    #[allow(dead_code)]
    struct Inner {
        value: u8,
    }

    fn details(result: Result<Sample, ApiError>) -> BTreeMap<String, String> {
        result.expect_err("must fail").details.unwrap_or_default()
    }

    #[test]
    fn names_the_failing_field() {
        assert_eq!(details(parse_json(br#"{"count": 1}"#)).get("email").map(String::as_str), Some("is required"));
        assert!(details(parse_json(br#"{"email": 5, "count": 1}"#)).contains_key("email"));
        assert!(details(parse_json(br#"{"email": "a", "count": 1, "nested": {"value": 300}}"#))
            .contains_key("nested.value"));
        assert_eq!(details(parse_json(b"{not json")).get("body").map(String::as_str), Some("is not valid JSON"));
        assert!(details(parse_json(b"  ")).contains_key("body"));
        assert!(details(parse_json(br#"{"email": "a\u0000b", "count": 1}"#)).contains_key("body"));
        // The text `\u0000` itself (an escaped backslash) is not a NUL.
        assert!(parse_json::<Sample>(br#"{"email": "a\\u0000b", "count": 1}"#).is_ok());
        // `2.0` is an integer.
        assert!(parse_json::<Sample>(br#"{"email": "a", "count": 2.0}"#).is_ok_and(|s| s.count == 2));
    }

    #[test]
    fn an_overlong_array_is_refused_before_its_items_are_checked() {
        let items = vec!["1"; MAX_ARRAY_ITEMS + 1].join(",");
        let body = format!(r#"{{"email": "a", "count": 1, "nested": {{"value": 1, "list": [{items}]}}}}"#);
        let details = details(parse_json(body.as_bytes()));
        assert_eq!(details.len(), 1);
        assert!(details.contains_key("nested.list"), "{details:?}");
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let parsed: Sample = parse_json(br#"{"email": "a", "count": 1, "extra": true}"#).expect("valid");
        assert_eq!(parsed.count, 1);
    }
}
