//! Customers: create, read, list, edit, delete (lifecycle moves are in `customer_lifecycle.rs`).

use actix_web::{web, HttpResponse};
use crm_domain::{
    Customer, CustomerChanges, CustomerError, CustomerFilter, CustomerQuery, CustomerStatus, Email, EmailScope,
    NewCustomer, RepoError, Tier,
};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::views::CustomerResponse;
use super::wire::{
    customer_not_found, e164, ensure_active_user, ensure_user, existing_company, existing_customer, now, present,
    timestamp,
};
use crate::app::AppState;
use crate::http::{created, list, no_content, ok, ApiError, Json, PageQuery};

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateCustomerBody {
    pub name: String,
    pub email: String,
    /// International format starting with `+`; stored as E.164.
    pub phone: Option<String>,
    /// lead (default), prospect, customer or churned.
    #[schema(value_type = Option<String>)]
    pub status: Option<CustomerStatus>,
    /// free (default), basic, pro or enterprise.
    #[schema(value_type = Option<String>)]
    pub tier: Option<Tier>,
    pub source: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    pub company_id: Option<Uuid>,
    pub assigned_to: Option<Uuid>,
    /// The user account of an individual customer (not with `company_id`).
    pub user_id: Option<Uuid>,
}

/// Any subset; `phone: null` clears the phone.
#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateCustomerBody {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub phone: Option<Option<String>>,
    pub tags: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct CustomerListParams {
    /// lead, prospect, customer or churned.
    pub status: Option<String>,
    /// free, basic, pro or enterprise.
    pub tier: Option<String>,
    pub assigned_to: Option<String>,
    /// Comma-separated; a customer must carry all of them.
    pub tags: Option<String>,
    /// individual or company.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    pub customer_type: Option<String>,
    /// Case-insensitive substring of name, email or phone.
    pub search: Option<String>,
    /// Comma-separated of created_at, updated_at, name, email, status, tier; `-` for descending.
    pub sort: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct EmailLookupQuery {
    /// Picks the company's customer when several share the email.
    pub company_id: Option<String>,
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/customer-mgmt/customers")
            .route(web::post().to(create_customer))
            .route(web::get().to(list_customers)),
    )
    .service(web::resource("/customer-mgmt/customers/email/{email}").route(web::get().to(get_customer_by_email)))
    .service(
        web::resource("/customer-mgmt/customers/{id}")
            .route(web::get().to(get_customer))
            .route(web::put().to(update_customer))
            .route(web::delete().to(delete_customer)),
    );
}

pub(crate) fn customer_error(error: CustomerError) -> ApiError {
    ApiError::from_domain_field(&error, error.field())
}

/// Storage errors of a customer write, with a missing row reported as `CUSTOMER_NOT_FOUND`.
pub(crate) fn customer_write_error(error: RepoError) -> ApiError {
    match error {
        RepoError::NotFound => customer_not_found(),
        other => ApiError::from(other),
    }
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/customers", tag = "customer management",
    request_body = CreateCustomerBody,
    responses((status = 201, body = CustomerResponse),
              (status = 400, description = "VALIDATION_ERROR / INVALID_EMAIL / INVALID_PHONE"),
              (status = 404, description = "NOT_FOUND (company_id) / USER_NOT_FOUND (assigned_to, user_id)"),
              (status = 409, description = "ALREADY_EXISTS")),
    security(("bearer" = [])))]
pub async fn create_customer(
    state: web::Data<AppState>,
    Json(body): Json<CreateCustomerBody>,
) -> Result<HttpResponse, ApiError> {
    let input = NewCustomer {
        phone: e164(body.phone.as_deref())?,
        user_id: body.user_id,
        company_id: body.company_id,
        name: body.name,
        email: body.email,
        status: body.status,
        tier: body.tier,
        source: body.source,
        assigned_to: body.assigned_to,
        tags: body.tags,
    };
    let created_customer = Customer::new(input, now()).map_err(customer_error)?;
    let customer = &created_customer.customer;
    if let Some(company) = customer.company_id {
        existing_company(&state, company).await?;
    }
    if let Some(rep) = customer.assigned_to {
        ensure_active_user(&state, rep, "assigned_to").await?;
    }
    if let Some(user) = customer.user_id {
        ensure_user(&state, user, "user_id").await?;
    }
    let saved = state.crm.customers.create(&created_customer).await.map_err(ApiError::from)?;
    state.outbox.notify();
    Ok(created(CustomerResponse::from(saved)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/customers", tag = "customer management",
    params(PageQuery, CustomerListParams),
    responses((status = 200, body = [CustomerResponse]), (status = 400, description = "VALIDATION_ERROR / INVALID_UUID")),
    security(("bearer" = [])))]
pub async fn list_customers(
    state: web::Data<AppState>,
    page: web::Query<PageQuery>,
    query: web::Query<CustomerQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = page.request()?;
    let filter = CustomerFilter::from_query(&query).map_err(|e| ApiError::from_domain_field(&e, e.field()))?;
    let customers = state.crm.customers.list(&filter, page).await.map_err(ApiError::from)?;
    Ok(list(customers.map(CustomerResponse::from)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/customers/email/{email}", tag = "customer management",
    params(("email" = String, Path), EmailLookupQuery),
    responses((status = 200, body = CustomerResponse), (status = 400, description = "INVALID_EMAIL / INVALID_UUID"),
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
    Ok(ok(CustomerResponse::from(found.ok_or_else(customer_not_found)?)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/customers/{id}", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = CustomerResponse), (status = 404, description = "CUSTOMER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_customer(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok(CustomerResponse::from(existing_customer(&state, id.into_inner()).await?)))
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/customers/{id}", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = UpdateCustomerBody,
    responses((status = 200, description = "data: id, the changed fields, updated_at"),
              (status = 400, description = "VALIDATION_ERROR / INVALID_PHONE"),
              (status = 404, description = "CUSTOMER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn update_customer(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<UpdateCustomerBody>,
) -> Result<HttpResponse, ApiError> {
    let phone = match body.phone {
        Some(raw) => Some(e164(raw.as_deref())?),
        None => None,
    };
    let customer = existing_customer(&state, id.into_inner()).await?;
    let (name_changed, phone_changed, tags_changed) = (body.name.is_some(), phone.is_some(), body.tags.is_some());
    let changes = CustomerChanges { name: body.name, phone, tags: body.tags };
    let next = customer.update_details(changes, now()).map_err(customer_error)?;
    let saved = state.crm.customers.update(&next).await.map_err(customer_write_error)?;
    // Echo only what the request changed.
    let mut data = serde_json::Map::new();
    data.insert("id".into(), serde_json::json!(saved.id));
    if name_changed {
        data.insert("name".into(), serde_json::json!(saved.name));
    }
    if phone_changed {
        data.insert("phone".into(), serde_json::json!(saved.phone));
    }
    if tags_changed {
        data.insert("tags".into(), serde_json::json!(saved.tags));
    }
    data.insert("updated_at".into(), serde_json::json!(timestamp(saved.updated_at)));
    Ok(ok(data))
}

#[utoipa::path(delete, path = "/api/v1/customer-mgmt/customers/{id}", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted; the email is free again"),
              (status = 403, description = "Lacks customers:delete"), (status = 404, description = "CUSTOMER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn delete_customer(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.crm.customers.soft_delete(id.into_inner(), now()).await.map_err(customer_write_error)?;
    Ok(no_content())
}
