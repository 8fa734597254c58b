//! Contacts of the calling user: emails, phones and addresses, one primary
//! per type. Someone else's contact is 404, as if it did not exist.

use actix_web::{web, HttpResponse};
use identity_domain::application::{AddressInput, ContactInput};
use identity_domain::contact::ContactRecord;
use uuid::Uuid;

use super::requests::{AddressBody, ContactListQuery, CreateContactBody, UpdateContactBody, VerifyContactBody};
use super::responses::{AddressView, ContactVerified, ContactView};
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::conditional::{Tagged, Versioned};
use crate::http::{no_content, ok, ApiError, Json, OptionalJson};

impl From<ContactRecord> for ContactView {
    fn from(c: ContactRecord) -> Self {
        Self {
            id: c.id,
            user_id: c.user_id,
            contact_type: c.contact_type.as_str(),
            label: c.label,
            email: c.email,
            phone: c.phone,
            address: c.address.map(|a| AddressView {
                street: a.street,
                city: a.city,
                state: a.state,
                postal_code: a.postal_code,
                country: a.country,
            }),
            is_primary: c.is_primary,
            is_verified: c.is_verified,
            is_public: c.is_public,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/contacts").route(web::post().to(create_contact)).route(web::get().to(list_contacts)))
        .service(
            web::resource("/contacts/{id}")
                .route(web::get().to(get_contact))
                .route(web::put().to(update_contact))
                .route(web::delete().to(delete_contact)),
        )
        .service(
            web::resource("/contacts/{id}/verify")
                .route(web::post().to(verify_contact))
                .route(web::put().to(verify_contact_put)),
        )
        .service(web::resource("/contacts/{id}/primary").route(web::put().to(set_primary_contact)));
}

fn address(body: AddressBody) -> AddressInput {
    AddressInput {
        street: body.street,
        city: body.city,
        state: body.state,
        postal_code: body.postal_code,
        country: body.country,
    }
}

#[utoipa::path(post, path = "/api/v1/identity/contacts", tag = "identity", request_body = CreateContactBody,
    responses((status = 201, body = ContactView),
              (status = 400, description = "VALIDATION_ERROR (details name the field), INVALID_EMAIL, INVALID_PHONE"),
              (status = 401, description = "Missing, invalid, expired or revoked token")),
    security(("bearer" = [])))]
pub async fn create_contact(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<CreateContactBody>,
) -> Result<HttpResponse, ApiError> {
    let input = ContactInput {
        contact_type: Some(body.contact_type),
        label: body.label,
        email: body.email,
        phone: body.phone,
        address: body.address.map(address),
        is_primary: body.is_primary,
        is_public: body.is_public,
    };
    let contact = state.identity.app.contacts.create(caller.user_id, input).await?;
    Ok(created_tagged::<ContactView, _>(contact))
}

#[utoipa::path(get, path = "/api/v1/identity/contacts", tag = "identity", params(ContactListQuery),
    responses((status = 200, description = "The caller's contacts, newest first", body = [ContactView]),
              (status = 400, description = "VALIDATION_ERROR for an unknown type")),
    security(("bearer" = [])))]
pub async fn list_contacts(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ContactListQuery>,
) -> Result<HttpResponse, ApiError> {
    let contacts =
        state.identity.app.contacts.list(caller.user_id, query.contact_type.as_deref(), query.is_primary).await?;
    Ok(ok(contacts.into_iter().map(ContactView::from).collect::<Vec<_>>()))
}

#[utoipa::path(get, path = "/api/v1/identity/contacts/{id}", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 200, body = ContactView), (status = 404, description = "NOT_FOUND (also someone else's)")),
    security(("bearer" = [])))]
pub async fn get_contact(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let contact = state.identity.app.contacts.find(caller.user_id, id.into_inner()).await?;
    Ok(ok_tagged::<ContactView, _>(contact))
}

#[utoipa::path(put, path = "/api/v1/identity/contacts/{id}", tag = "identity", params(("id" = Uuid, Path)),
    request_body = UpdateContactBody,
    responses((status = 200, body = ContactView),
              (status = 400, description = "VALIDATION_ERROR (e.g. a different type), INVALID_EMAIL, INVALID_PHONE"),
              (status = 404, description = "NOT_FOUND (also someone else's)")),
    security(("bearer" = [])))]
pub async fn update_contact(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<UpdateContactBody>,
) -> Result<HttpResponse, ApiError> {
    let input = ContactInput {
        contact_type: body.contact_type,
        label: body.label,
        email: body.email,
        phone: body.phone,
        address: body.address.map(address),
        is_primary: body.is_primary,
        is_public: body.is_public,
    };
    let contact = state.identity.app.contacts.update(caller.user_id, id.into_inner(), input).await?;
    Ok(ok_tagged::<ContactView, _>(contact))
}

#[utoipa::path(delete, path = "/api/v1/identity/contacts/{id}", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted"), (status = 404, description = "NOT_FOUND (also someone else's)")),
    security(("bearer" = [])))]
pub async fn delete_contact(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    state.identity.app.contacts.delete(caller.user_id, id.into_inner()).await?;
    Ok(no_content())
}

async fn verify(state: &AppState, caller: &Caller, id: Uuid) -> Result<HttpResponse, ApiError> {
    let contact = state.identity.app.contacts.verify(caller.user_id, id).await?;
    let tag = contact.entity_tag();
    Ok(ok(ContactVerified { message: "contact verified", contact: ContactView::from(contact) }).tagged(&tag))
}

#[utoipa::path(post, path = "/api/v1/identity/contacts/{id}/verify", tag = "identity", params(("id" = Uuid, Path)),
    request_body(content = Option<VerifyContactBody>, description = "Optional; the code is not checked yet"),
    responses((status = 200, body = ContactVerified), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn verify_contact(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    _body: OptionalJson<VerifyContactBody>,
) -> Result<HttpResponse, ApiError> {
    verify(&state, &caller, id.into_inner()).await
}

/// The specification's variant method for verification.
#[utoipa::path(put, path = "/api/v1/identity/contacts/{id}/verify", tag = "identity", params(("id" = Uuid, Path)),
    request_body(content = Option<VerifyContactBody>, description = "Optional; the code is not checked yet"),
    responses((status = 200, body = ContactVerified), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn verify_contact_put(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    _body: OptionalJson<VerifyContactBody>,
) -> Result<HttpResponse, ApiError> {
    verify(&state, &caller, id.into_inner()).await
}

#[utoipa::path(put, path = "/api/v1/identity/contacts/{id}/primary", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 200, description = "The contact, now the primary of its type", body = ContactView),
              (status = 404, description = "NOT_FOUND (also someone else's)")),
    security(("bearer" = [])))]
pub async fn set_primary_contact(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let contact = state.identity.app.contacts.set_primary(caller.user_id, id.into_inner()).await?;
    Ok(ok_tagged::<ContactView, _>(contact))
}
