//! Customers: create, read, list, edit, delete (lifecycle moves are in `customer_lifecycle.rs`).

use actix_web::{web, HttpResponse};
use crm_domain::{CustomerChanges, CustomerFilter, CustomerQuery, Email, EmailScope, NewCustomer};
use uuid::Uuid;

use super::change_views::{ChangedFields, CustomerDetailsChanged};
use super::requests::{CreateCustomerBody, CustomerListParams, EmailLookupQuery, UpdateCustomerBody};
use super::responses::CustomerView;
use super::wire::customer_not_found;
use crate::app::AppState;
use crate::http::conditional::{created_tagged, ok_tagged, Tagged, Versioned};
use crate::http::{list, no_content, ok, ApiError, Json, PageQuery};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/customers").route(web::post().to(create_customer)).route(web::get().to(list_customers)),
    )
    .service(web::resource("/customers/email/{email}").route(web::get().to(get_customer_by_email)))
    .service(
        web::resource("/customers/{id}")
            .route(web::get().to(get_customer))
            .route(web::put().to(update_customer))
            .route(web::delete().to(delete_customer)),
    );
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/customers", tag = "customer management",
    request_body = CreateCustomerBody,
    responses((status = 201, body = CustomerView),
              (status = 400, description = "VALIDATION_ERROR / INVALID_EMAIL / INVALID_PHONE"),
              (status = 404, description = "NOT_FOUND (company_id) / USER_NOT_FOUND (assigned_to, user_id)"),
              (status = 409, description = "ALREADY_EXISTS")),
    security(("bearer" = [])))]
pub async fn create_customer(
    state: web::Data<AppState>,
    Json(body): Json<CreateCustomerBody>,
) -> Result<HttpResponse, ApiError> {
    let input = NewCustomer::from(body);
    // The creation hands its event to the bus itself, and wakes the relay if it leaves it the event.
    let saved = state.crm.customer_cases.create(input).await?;
    Ok(created_tagged::<CustomerView, _>(saved))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/customers", tag = "customer management",
    params(PageQuery, CustomerListParams),
    responses((status = 200, body = [CustomerView]), (status = 400, description = "VALIDATION_ERROR / INVALID_UUID")),
    security(("bearer" = [])))]
pub async fn list_customers(
    state: web::Data<AppState>,
    page: web::Query<PageQuery>,
    query: web::Query<CustomerQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = page.request()?;
    let filter = CustomerFilter::from_query(&query).map_err(|e| ApiError::from_domain_field(&e, e.field()))?;
    let customers = state.crm.customers.list(&filter, page).await.map_err(ApiError::from)?;
    Ok(list(customers.map(CustomerView::from)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/customers/email/{email}", tag = "customer management",
    params(("email" = String, Path, format = Email, max_length = 255), EmailLookupQuery),
    responses((status = 200, body = CustomerView), (status = 400, description = "INVALID_EMAIL / INVALID_UUID"),
              (status = 404, description = "CUSTOMER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_customer_by_email(
    state: web::Data<AppState>,
    email: web::Path<String>,
    query: web::Query<EmailLookupQuery>,
) -> Result<HttpResponse, ApiError> {
    let email = Email::parse(&email).map_err(|e| ApiError::from_domain_field(&e, Some("email")))?;
    let scope = match query.company_id.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(text) => {
            EmailScope::Company(shared_kernel::id::parse_id(text).ok_or_else(|| ApiError::invalid_uuid("company_id"))?)
        }
        None => EmailScope::Newest,
    };
    let found = state.crm.customers.find_by_email(&email, scope).await.map_err(ApiError::from)?;
    Ok(ok_tagged::<CustomerView, _>(found.ok_or_else(customer_not_found)?))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/customers/{id}", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = CustomerView), (status = 404, description = "CUSTOMER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_customer(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<CustomerView, _>(state.crm.customer_cases.get(id.into_inner()).await?))
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/customers/{id}", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = UpdateCustomerBody,
    responses((status = 200, body = CustomerDetailsChanged, description = "The id, the fields the request changed, updated_at"),
              (status = 400, description = "VALIDATION_ERROR / INVALID_PHONE"),
              (status = 404, description = "CUSTOMER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn update_customer(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<UpdateCustomerBody>,
) -> Result<HttpResponse, ApiError> {
    let changed = ChangedFields { name: body.name.is_some(), phone: body.phone.is_some(), tags: body.tags.is_some() };
    let changes = CustomerChanges { name: body.name, phone: body.phone, tags: body.tags };
    let saved = state.crm.customer_cases.update_details(id.into_inner(), changes).await?;
    // Echo only what the request changed.
    let tag = saved.entity_tag();
    Ok(ok(CustomerDetailsChanged::of(saved, changed)).tagged(&tag))
}

#[utoipa::path(delete, path = "/api/v1/customer-mgmt/customers/{id}", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted; the email is free again"),
              (status = 403, description = "Lacks customers:delete"), (status = 404, description = "CUSTOMER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn delete_customer(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.crm.customer_cases.delete(id.into_inner()).await?;
    Ok(no_content())
}
