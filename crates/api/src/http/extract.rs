//! Extractors that turn every bad input into a 400 envelope with details.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::error::{PathError, QueryPayloadError};
use actix_web::{web, FromRequest, HttpRequest};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use shared_kernel::PageRequest;

use super::ApiError;

/// Largest accepted request body (decisions §2).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// A JSON body. Unlike `web::Json`, a failure names the offending field.
pub struct Json<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let is_json = req.headers().get(actix_web::http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(|v| {
            let mime = v.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
            mime == "application/json" || mime.ends_with("+json")
        });
        let body = web::Bytes::from_request(req, payload);
        Box::pin(async move {
            if is_json == Some(false) {
                return Err(ApiError::field("body", "Content-Type must be application/json"));
            }
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
            parse_json(&bytes).map(Json)
        })
    }
}

pub fn payload_too_large() -> ApiError {
    ApiError::new(
        actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
        "PAYLOAD_TOO_LARGE",
        "the request body is larger than 1 MiB",
    )
}

/// Parses JSON, reporting the path of the field that failed.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::field("body", "a JSON body is required"));
    }
    // PostgreSQL text cannot hold NUL, and no field of ours needs it.
    if bytes.windows(6).any(|w| w.eq_ignore_ascii_case(b"\\u0000")) {
        return Err(ApiError::field("body", "text must not contain NUL characters"));
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
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
    pub page: Option<i64>,
    /// Items per page, 1..=100 (default 20).
    pub page_size: Option<i64>,
}

impl PageQuery {
    pub fn request(&self) -> Result<PageRequest, ApiError> {
        Ok(PageRequest::new(self.page, self.page_size)?)
    }
}

/// Query-string failures become 400 `VALIDATION_ERROR`.
pub fn query_error(error: QueryPayloadError, _req: &HttpRequest) -> actix_web::Error {
    let text = error.to_string();
    let message = text.split(": ").last().unwrap_or(&text).to_owned();
    ApiError::validation(format!("invalid query string: {message}"))
        .with_details(BTreeMap::from([("query".to_owned(), message)]))
        .into()
}

/// Path failures are nearly always a malformed id: 400 `INVALID_UUID`.
pub fn path_error(_error: PathError, _req: &HttpRequest) -> actix_web::Error {
    ApiError::invalid_uuid("the id in the path").into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Sample {
        email: String,
        count: i32,
        nested: Option<Inner>,
    }

    #[derive(Debug, Deserialize)]
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
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let parsed: Sample = parse_json(br#"{"email": "a", "count": 1, "extra": true}"#).expect("valid");
        assert_eq!(parsed.count, 1);
    }
}
