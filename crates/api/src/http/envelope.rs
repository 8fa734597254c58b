//! Success and list envelopes.

use actix_web::HttpResponse;
use serde::Serialize;
use shared_kernel::Page;

#[derive(Serialize)]
struct Success<T> {
    status: &'static str,
    data: T,
}

#[derive(Serialize)]
struct Listed<T> {
    status: &'static str,
    data: Vec<T>,
    pagination: Pagination,
}

#[derive(Serialize)]
struct Pagination {
    total: i64,
    /// False when the list is longer than its counted bound and `total` is a lower bound.
    total_exact: bool,
    page: u32,
    page_size: u32,
    total_pages: i64,
}

/// 200 `{status: "success", data}`.
pub fn ok<T: Serialize>(data: T) -> HttpResponse {
    HttpResponse::Ok().json(Success { status: "success", data })
}

/// The bytes of `{status: "success", data}` (what a keyed request keeps instead of an answer
/// holding a secret; see `idempotency::KeepInstead`).
pub fn success_body<T: Serialize>(data: T) -> Vec<u8> {
    serde_json::to_vec(&Success { status: "success", data }).unwrap_or_default()
}

/// 201 `{status: "success", data}`.
pub fn created<T: Serialize>(data: T) -> HttpResponse {
    HttpResponse::Created().json(Success { status: "success", data })
}

/// 202 `{status: "success", data}`: queued, its outcome comes later.
pub fn accepted<T: Serialize>(data: T) -> HttpResponse {
    HttpResponse::Accepted().json(Success { status: "success", data })
}

/// 204 with no body.
pub fn no_content() -> HttpResponse {
    HttpResponse::NoContent().finish()
}

/// 200 list envelope with pagination.
pub fn list<T: Serialize>(page: Page<T>) -> HttpResponse {
    let pagination = Pagination {
        total: page.total,
        total_exact: page.total_exact,
        page: page.page,
        page_size: page.page_size,
        total_pages: page.total_pages(),
    };
    HttpResponse::Ok().json(Listed { status: "success", data: page.items, pagination })
}
