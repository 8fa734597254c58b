//! Conditional requests (RFC 9110, docs/retries.md), as one mechanism: a strong
//! `ETag` built from the version the database keeps on every resource row,
//! `If-None-Match` answered 304 for single-resource GETs, and `If-Match` on the
//! writes to one resource checked under a row lock in the transaction of the write.

use std::hash::{Hash, Hasher};

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderValue, ETAG, IF_MATCH, IF_NONE_MATCH};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::Data;
use actix_web::{HttpMessage, HttpResponse, ResponseError};
use postgres_toolkit::preconditions::{matches_current, VersionedTable};
use postgres_toolkit::request_tx::{self, RequestTransaction};
use serde::Serialize;
use shared_kernel::StorageError;
use uuid::Uuid;

use super::envelope::{created, ok};
use super::route_policy::matched_pattern;
use super::whole_body::WholeBody;
use super::ApiError;
use crate::app::AppState;
use crate::auth::Caller;

/// A strong entity tag: the resource's id and its stored version (`"<id>-<version>"`; the id keeps
/// tags of different resources apart where one URL can name several, as `/customers/email/{email}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityTag(String);

impl EntityTag {
    pub fn new(id: Uuid, version: i64) -> Self {
        Self(format!("\"{}-{version}\"", id.simple()))
    }

    fn with_suffix(id: Uuid, version: i64, suffix: &str) -> Self {
        Self(format!("\"{}-{version}{suffix}\"", id.simple()))
    }

    /// For an answer that also shows state kept outside its row (an inventory record's incoming
    /// stock, which purchase orders and transfers change): `"<id>-<version>-<derived>"`, so a change
    /// of either is a new tag and `If-None-Match` cannot keep a stale figure. `If-Match` compares the
    /// stored version only (as for a user's `-locked`): a write to the row changes the row, and is
    /// not refused because another document moved the derived figure.
    pub fn derived(id: Uuid, version: i64, derived: &str) -> Self {
        Self::with_suffix(id, version, &format!("-{derived}"))
    }

    /// For data that carries no version (reference entries, which an operator may switch on or
    /// off by SQL): a hash of the one representation read.
    pub fn of_representation(data: &impl Serialize) -> Self {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        serde_json::to_vec(data).unwrap_or_default().hash(&mut hasher);
        Self(format!("\"ref-{:016x}\"", hasher.finish()))
    }
}

/// A resource whose answers carry an `ETag`.
pub trait Versioned {
    fn entity_tag(&self) -> EntityTag;
}

macro_rules! versioned_by_row {
    ($($resource:ty),* $(,)?) => {
        $(impl Versioned for $resource {
            fn entity_tag(&self) -> EntityTag {
                EntityTag::new(self.id, self.version)
            }
        })*
    };
}

versioned_by_row!(
    crm_domain::Customer,
    crm_domain::Company,
    crm_domain::Deal,
    crm_domain::Interaction,
    identity_domain::roles::RoleRecord,
    identity_domain::roles::PermissionRecord,
    identity_domain::contact::ContactRecord,
    identity_domain::profile::ProfileRecord,
    order_domain::Order,
    warehouse_domain::Product,
    warehouse_domain::Location,
    warehouse_domain::purchasing::Supplier,
    warehouse_domain::purchasing::PurchaseOrder,
    warehouse_domain::transfers::Transfer,
);

impl Versioned for identity_domain::ports::UserRecord {
    /// A user's answer says whether the account is locked, which changes when a lock runs out
    /// without any write: the tag says it too.
    fn entity_tag(&self) -> EntityTag {
        let locked = self.is_locked(time::OffsetDateTime::now_utc());
        EntityTag::with_suffix(self.id, self.version, if locked { "-locked" } else { "" })
    }
}

impl Versioned for warehouse_domain::StockMovement {
    /// Movements are never changed (the database refuses it): one tag for life.
    fn entity_tag(&self) -> EntityTag {
        EntityTag::new(self.id, 1)
    }
}

/// A tag taken before its resource was moved into a view.
impl Versioned for EntityTag {
    fn entity_tag(&self) -> EntityTag {
        self.clone()
    }
}

/// Adds a resource's `ETag` to an answer about it.
pub trait Tagged {
    fn tagged(self, resource: &impl Versioned) -> HttpResponse;
}

impl Tagged for HttpResponse {
    fn tagged(self, resource: &impl Versioned) -> HttpResponse {
        with_tag(self, resource.entity_tag())
    }
}

/// 200 with the resource as `V`, tagged.
pub fn ok_tagged<V: Serialize + From<R>, R: Versioned>(resource: R) -> HttpResponse {
    let tag = resource.entity_tag();
    with_tag(ok(V::from(resource)), tag)
}

/// 201 with the resource as `V`, tagged.
pub fn created_tagged<V: Serialize + From<R>, R: Versioned>(resource: R) -> HttpResponse {
    let tag = resource.entity_tag();
    with_tag(created(V::from(resource)), tag)
}

pub fn with_tag(mut response: HttpResponse, tag: EntityTag) -> HttpResponse {
    if let Ok(value) = HeaderValue::from_str(&tag.0) {
        response.headers_mut().insert(ETAG, value);
    }
    response
}

/// The resources `If-Match` guards: a route under one of these patterns (the
/// pattern itself or a sub-path such as `/confirm` or `/lines/{line_id}`) writes
/// the row whose id is the pattern's `{id}` segment.
const GUARDED: [(&str, VersionedTable); 17] = [
    ("/api/v1/customer-mgmt/companies/{id}", VersionedTable::Companies),
    ("/api/v1/customer-mgmt/customers/{id}", VersionedTable::Customers),
    ("/api/v1/customer-mgmt/deals/{id}", VersionedTable::Deals),
    ("/api/v1/customer-mgmt/interactions/{id}", VersionedTable::Interactions),
    ("/api/v1/identity/users/{id}", VersionedTable::Users),
    ("/api/v1/identity/roles/{id}", VersionedTable::Roles),
    ("/api/v1/identity/permissions/{id}", VersionedTable::Permissions),
    ("/api/v1/identity/contacts/{id}", VersionedTable::Contacts),
    ("/api/v1/identity/profiles/{id}", VersionedTable::Profiles),
    ("/api/v1/order-mgmt/orders/{id}", VersionedTable::Orders),
    ("/api/v1/warehouse/products/{id}", VersionedTable::Products),
    ("/api/v1/warehouse/locations/{id}", VersionedTable::Locations),
    ("/api/v1/warehouse/inventory/{id}", VersionedTable::Inventory),
    ("/api/v1/warehouse/suppliers/{id}", VersionedTable::Suppliers),
    ("/api/v1/warehouse/purchase-orders/{id}", VersionedTable::PurchaseOrders),
    ("/api/v1/warehouse/transfers/{id}", VersionedTable::Transfers),
    ("/api/v1/webhooks/{id}", VersionedTable::WebhookEndpoints),
];

/// The guarded resource a route pattern falls under: the resource's own pattern or a sub-path of it.
fn guarded_by(pattern: &str) -> Option<&'static (&'static str, VersionedTable)> {
    GUARDED
        .iter()
        .find(|(prefix, _)| pattern.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/')))
}

/// Whether a route pattern reads or writes one guarded resource (for the contract).
pub fn is_guarded_pattern(pattern: &str) -> bool {
    guarded_by(pattern).is_some()
}

/// The guarded row a write to `pattern` at `path` changes, if any.
pub fn guarded_row(pattern: &str, path: &str) -> Option<(VersionedTable, Uuid)> {
    let (prefix, table) = guarded_by(pattern)?;
    let at = prefix.split('/').position(|segment| segment == "{id}")?;
    let id = path.split('/').nth(at)?;
    Some((*table, Uuid::parse_str(id).ok()?))
}

/// The entity tags of a precondition header: `None` for `*`, else the strong tags listed
/// (weak ones never match a strong comparison, RFC 9110 §8.8.3.2).
fn listed_tags(header: &HeaderValue) -> Option<Vec<String>> {
    let text = header.to_str().unwrap_or("");
    if text.trim() == "*" {
        return None;
    }
    Some(text.split(',').map(str::trim).filter(|t| t.starts_with('"')).map(str::to_owned).collect())
}

/// The versions named for row `id` by the listed tags (a tag of another resource names none).
fn versions_for(id: Uuid, tags: &[String]) -> Vec<i64> {
    let prefix = format!("\"{}-", id.simple());
    // `"<id>-<version>"`, or a user's `"<id>-<version>-locked"`: the version is the stored state.
    tags.iter()
        .filter_map(|tag| tag.strip_prefix(&prefix)?.strip_suffix('"')?.split('-').next()?.parse::<i64>().ok())
        .collect()
}

pub fn precondition_failed() -> ApiError {
    ApiError::new(
        StatusCode::PRECONDITION_FAILED,
        "PRECONDITION_FAILED",
        "the resource has changed since the If-Match tag was read; read it again",
    )
}

/// `If-None-Match` on a GET: 304 when the answer's tag is listed (weak comparison, RFC 9110 §13.1.2).
fn not_modified(req_tags: Option<Vec<String>>, response: ServiceResponse<BoxBody>) -> ServiceResponse<BoxBody> {
    let current = response.headers().get(ETAG).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let (Some(current), true) = (current, response.status() == StatusCode::OK) else { return response };
    let unweak = |tag: &str| tag.trim_start_matches("W/").to_owned();
    let listed = req_tags.is_none_or(|tags| tags.iter().any(|t| unweak(t) == current));
    if !listed {
        return response;
    }
    let (request, original) = response.into_parts();
    let mut not_modified = HttpResponse::NotModified().finish();
    for (name, value) in original.headers() {
        if name == ETAG || name.as_str() == "vary" || name.as_str() == "cache-control" {
            not_modified.headers_mut().insert(name.clone(), value.clone());
        }
    }
    ServiceResponse::new(request, not_modified)
}

/// Middleware: `If-None-Match` on GETs, `If-Match` on writes to a guarded resource.
pub async fn preconditions(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if req.method() == Method::GET {
        let wanted = req.headers().get(IF_NONE_MATCH).map(listed_tags);
        let response = next.call(req).await?.map_into_boxed_body();
        return Ok(match wanted {
            Some(tags) => not_modified(tags, response),
            None => response,
        });
    }
    let if_match = req.headers().get(IF_MATCH).cloned();
    let state = req.app_data::<Data<AppState>>().cloned();
    let (Some(if_match), Some(state)) = (if_match, state) else {
        return next.call(req).await.map(ServiceResponse::map_into_boxed_body);
    };
    // Boxed: the guarded write's state (a transaction, the check) would otherwise sit in the future
    // of every request in flight, used or not (docs/adr/0018-memory.md).
    Box::pin(guarded_write(req, next, if_match, state)).await
}

/// Put in a request's extensions when its `If-Match` failed and its body must still be judged: the
/// body extractors (`http::extract`) answer 412 for a body that parses, so a malformed one gets its
/// own 400 (RFC 9110 §13.2.1: a precondition is judged for a request that would otherwise succeed).
#[derive(Clone, Default)]
pub struct PreconditionFailed(std::rc::Rc<std::cell::Cell<bool>>);

impl PreconditionFailed {
    /// The 412, noting that a body extractor gave it.
    pub fn refuse(&self) -> ApiError {
        self.0.set(true);
        precondition_failed()
    }

    fn refused(&self) -> bool {
        self.0.get()
    }
}

/// Whether every id in the path parses, so the handler's path extractor cannot refuse it.
fn path_ids_parse(pattern: &str, path: &str) -> bool {
    pattern
        .split('/')
        .zip(path.split('/'))
        .filter(|(segment, _)| segment.starts_with('{') && segment.ends_with("id}"))
        .all(|(_, value)| Uuid::parse_str(value).is_ok())
}

/// A write carrying `If-Match`: checked under a row lock, then run in the same transaction. The body
/// has been read whole already (`http::whole_body`): nothing here waits on the client.
async fn guarded_write(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    if_match: HeaderValue,
    state: Data<AppState>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let pattern = matched_pattern(&req);
    let guarded = pattern.as_deref().and_then(|pattern| guarded_row(pattern, req.match_info().as_str()));
    let Some((table, id)) = guarded else {
        return next.call(req).await.map(ServiceResponse::map_into_boxed_body);
    };
    let versions = listed_tags(&if_match).map(|tags| versions_for(id, &tags));
    // The gate has authenticated every caller of these routes; an administrator sees every row.
    let owner = req.extensions().get::<Caller>().filter(|c| c.require_admin().is_err()).map(|c| c.user_id);
    let no_body = req.extensions().get::<WholeBody>().is_some_and(|body| body.0.is_empty());
    let well_formed_without_body =
        no_body && pattern.as_deref().is_some_and(|pattern| path_ids_parse(pattern, req.match_info().as_str()));
    // Inside a keyed request's transaction already: check there; the idempotency layer commits.
    if request_tx::in_request_transaction() {
        return match check(&state, table, id, versions.as_deref(), owner).await {
            Ok(()) => next.call(req).await.map(ServiceResponse::map_into_boxed_body),
            Err(error) if error.status != StatusCode::PRECONDITION_FAILED || well_formed_without_body => {
                Ok(req.error_response(error))
            }
            Err(_) => judge_body(&state, req, next).await,
        };
    }
    let tx = match RequestTransaction::begin(&state.pool).await {
        Ok(tx) => tx,
        Err(error) => return Ok(req.error_response(ApiError::from(error))),
    };
    match tx.run(check(&state, table, id, versions.as_deref(), owner)).await {
        Ok(()) => {}
        Err(error) if error.status != StatusCode::PRECONDITION_FAILED || well_formed_without_body => {
            tx.rollback().await;
            return Ok(req.error_response(error));
        }
        Err(_) => {
            let judged = tx.run(judge_body(&state, req, next)).await;
            tx.rollback().await;
            return judged;
        }
    }
    let response = match tx.run(next.call(req)).await {
        Ok(response) => response.map_into_boxed_body(),
        Err(error) => {
            tx.rollback().await;
            return Err(error);
        }
    };
    if response.status().is_server_error() {
        tx.rollback().await;
        return Ok(response);
    }
    if let Err(error) = tx.commit().await {
        let (request, _) = response.into_parts();
        return Ok(ServiceResponse::new(request, ApiError::from(error).error_response()));
    }
    state.outbox.notify();
    Ok(response)
}

/// A request whose `If-Match` failed, run inside its transaction made read-only: its own 400 for a
/// body or path that does not parse, else 412. The caller rolls the transaction back.
async fn judge_body(
    state: &AppState,
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if let Err(error) = postgres_toolkit::preconditions::refuse_writes(&state.pool).await {
        return Ok(req.error_response(ApiError::from(error)));
    }
    let marker = PreconditionFailed::default();
    req.extensions_mut().insert(marker.clone());
    let response = next.call(req).await?.map_into_boxed_body();
    // A path, query or body that does not parse; any other refusal (a state the write cannot leave,
    // say) is judged after the precondition, so the 412 stands.
    let malformed = matches!(
        response.status(),
        StatusCode::BAD_REQUEST | StatusCode::PAYLOAD_TOO_LARGE | StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    if marker.refused() || malformed {
        return Ok(response);
    }
    let (request, _) = response.into_parts();
    Ok(ServiceResponse::new(request, precondition_failed().error_response()))
}

/// The check, under a row lock held to the end of the write's transaction. A row that does not
/// exist passes: the handler answers its own 404.
async fn check(
    state: &AppState,
    table: VersionedTable,
    id: Uuid,
    versions: Option<&[i64]>,
    owner: Option<Uuid>,
) -> Result<(), ApiError> {
    match matches_current(&state.pool, table, id, versions, owner).await {
        Ok(Some(false)) => Err(precondition_failed()),
        Ok(_) => Ok(()),
        Err(error) => Err(StorageError::from(error).into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_under_a_resource_are_guarded_by_its_row() {
        let id = Uuid::now_v7();
        let path = format!("/api/v1/order-mgmt/orders/{id}/lines/{}", Uuid::nil());
        let guarded = guarded_row("/api/v1/order-mgmt/orders/{id}/lines/{line_id}", &path);
        assert_eq!(guarded, Some((VersionedTable::Orders, id)));
        let confirm = format!("/api/v1/order-mgmt/orders/{id}/confirm");
        assert_eq!(guarded_row("/api/v1/order-mgmt/orders/{id}/confirm", &confirm), Some((VersionedTable::Orders, id)));
        assert_eq!(guarded_row("/api/v1/order-mgmt/orders", "/api/v1/order-mgmt/orders"), None);
        assert_eq!(guarded_row("/api/v1/identity/users/me", "/api/v1/identity/users/me"), None);
        assert_eq!(guarded_row("/api/v1/warehouse/products/{id}", "/api/v1/warehouse/products/not-a-uuid"), None);
    }

    #[test]
    fn every_id_of_a_path_must_parse() {
        let id = Uuid::now_v7();
        let pattern = "/api/v1/order-mgmt/orders/{id}/lines/{line_id}";
        assert!(path_ids_parse(pattern, &format!("/api/v1/order-mgmt/orders/{id}/lines/{id}")));
        assert!(!path_ids_parse(pattern, &format!("/api/v1/order-mgmt/orders/{id}/lines/nope")));
    }

    #[test]
    fn tags_name_a_version_of_one_resource() {
        let id = Uuid::now_v7();
        let tag = EntityTag::new(id, 7).0;
        let header = HeaderValue::from_str(&format!("W/\"x\", {tag}, \"other\"")).expect("header");
        let tags = listed_tags(&header).expect("a list");
        assert_eq!(versions_for(id, &tags), vec![7]);
        let locked = format!("\"{}-3-locked\"", id.simple());
        assert_eq!(versions_for(id, &[locked]), vec![3], "a locked user's tag names its version");
        let derived = EntityTag::derived(id, 4, "in12").0;
        assert_eq!(versions_for(id, &[derived]), vec![4], "a derived tag names its stored version");
        assert_ne!(EntityTag::derived(id, 4, "in12"), EntityTag::derived(id, 4, "in0"));
        assert_eq!(versions_for(Uuid::nil(), &tags), Vec::<i64>::new(), "another resource's tag names nothing");
        assert_eq!(listed_tags(&HeaderValue::from_static("*")), None);
    }
}
