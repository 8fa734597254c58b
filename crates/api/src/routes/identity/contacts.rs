//! Contacts of the calling user: emails, phones and addresses, one primary
//! per type. Someone else's contact is 404, as if it did not exist.

use actix_web::{web, HttpResponse};
use identity_domain::contact::{
    parse_address, parse_label, Address, ContactChanges, ContactFilter, ContactRecord, ContactType, ContactValue,
    NewContact,
};
use identity_domain::ports::RepoError;
use identity_domain::{Email, IdentityError};
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

/// An identity rule violation, with `details` naming its field.
pub(crate) fn identity_error(error: IdentityError) -> ApiError {
    ApiError::from_domain_field(&error, error.field())
}

fn contact_not_found() -> ApiError {
    ApiError::not_found("no such contact")
}

fn repo_error(error: RepoError) -> ApiError {
    match error {
        RepoError::NotFound => contact_not_found(),
        RepoError::MissingReference { field: "country" } => {
            ApiError::field("address.country", "must be a country code from the reference data")
        }
        other => ApiError::from(other),
    }
}

fn parse_type(raw: &str) -> Result<ContactType, ApiError> {
    ContactType::parse(raw).ok_or_else(|| ApiError::field("type", "must be email, phone or address"))
}

/// `+`, a country code and a number valid for it; stored as E.164.
pub fn parse_phone(raw: &str) -> Result<String, IdentityError> {
    let raw = raw.trim();
    if !raw.starts_with('+') {
        return Err(IdentityError::InvalidPhone);
    }
    let number = phonenumber::parse(None, raw).map_err(|_| IdentityError::InvalidPhone)?;
    if !phonenumber::is_valid(&number) {
        return Err(IdentityError::InvalidPhone);
    }
    Ok(number.format().mode(phonenumber::Mode::E164).to_string())
}

fn address(body: AddressBody) -> Result<Address, ApiError> {
    let country = body.country.ok_or_else(|| ApiError::field("address.country", "is required"))?;
    parse_address(Address {
        street: body.street,
        city: body.city,
        state: body.state,
        postal_code: body.postal_code,
        country,
    })
    .map_err(identity_error)
}

/// The value of a contact of `kind`: values of other types are rejected;
/// the own one is parsed. `Ok(None)` when it is not given.
fn value_of(
    kind: ContactType,
    email: Option<String>,
    phone: Option<String>,
    address_body: Option<AddressBody>,
) -> Result<Option<ContactValue>, ApiError> {
    for (field, given, of) in [
        ("email", email.is_some(), ContactType::Email),
        ("phone", phone.is_some(), ContactType::Phone),
        ("address", address_body.is_some(), ContactType::Address),
    ] {
        if given && of != kind {
            return Err(ApiError::field(field, format!("does not apply to a contact of type {}", kind.as_str())));
        }
    }
    Ok(match kind {
        ContactType::Email => email
            .map(|e| Email::parse(&e).map(ContactValue::Email))
            .transpose()
            .map_err(|e| identity_error(e.into()))?,
        ContactType::Phone => {
            phone.map(|p| parse_phone(&p).map(ContactValue::Phone)).transpose().map_err(identity_error)?
        }
        ContactType::Address => address_body.map(address).transpose()?.map(ContactValue::Address),
    })
}

fn value_field(kind: ContactType) -> &'static str {
    match kind {
        ContactType::Email => "email",
        ContactType::Phone => "phone",
        ContactType::Address => "address",
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
    let kind = parse_type(&body.contact_type)?;
    let value = value_of(kind, body.email, body.phone, body.address)?.ok_or_else(|| {
        ApiError::field(value_field(kind), format!("is required for a contact of type {}", kind.as_str()))
    })?;
    let label = parse_label(body.label).map_err(identity_error)?;
    let contact = NewContact {
        id: shared_kernel::new_id(),
        user_id: caller.user_id,
        label,
        value,
        is_primary: body.is_primary.unwrap_or(false),
        is_public: body.is_public.unwrap_or(false),
    };
    let contact = state.identity.contacts.create(contact).await.map_err(repo_error)?;
    state.outbox.notify();
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
    let contact_type = match query.contact_type.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        Some(raw) => Some(parse_type(raw)?),
        None => None,
    };
    let filter = ContactFilter { contact_type, is_primary: query.is_primary };
    let contacts = state.identity.contacts.list(caller.user_id, filter).await.map_err(repo_error)?;
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
    let contact = state
        .identity
        .contacts
        .find(caller.user_id, id.into_inner())
        .await
        .map_err(repo_error)?
        .ok_or_else(contact_not_found)?;
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
    let id = id.into_inner();
    let current =
        state.identity.contacts.find(caller.user_id, id).await.map_err(repo_error)?.ok_or_else(contact_not_found)?;
    let kind = current.contact_type;
    if let Some(raw) = body.contact_type.as_deref() {
        if parse_type(raw)? != kind {
            return Err(ApiError::field("type", "the type of a contact cannot change"));
        }
    }
    let changes = ContactChanges {
        label: body.label.map(|l| parse_label(Some(l))).transpose().map_err(identity_error)?,
        value: value_of(kind, body.email, body.phone, body.address)?,
        is_primary: body.is_primary,
        is_public: body.is_public,
    };
    let contact = state.identity.contacts.update(caller.user_id, id, changes).await.map_err(repo_error)?;
    state.outbox.notify();
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
    state.identity.contacts.delete(caller.user_id, id.into_inner()).await.map_err(repo_error)?;
    state.outbox.notify();
    Ok(no_content())
}

async fn verify(state: &AppState, caller: &Caller, id: Uuid) -> Result<HttpResponse, ApiError> {
    let contact = state.identity.contacts.verify(caller.user_id, id).await.map_err(repo_error)?;
    state.outbox.notify();
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
    let contact = state.identity.contacts.set_primary(caller.user_id, id.into_inner()).await.map_err(repo_error)?;
    state.outbox.notify();
    Ok(ok_tagged::<ContactView, _>(contact))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phones_need_a_plus_and_a_valid_number_and_are_stored_as_e164() {
        assert_eq!(parse_phone(" +380 44 123 4567 "), Ok("+380441234567".to_owned()));
        assert_eq!(parse_phone("+1 (201) 555-0123"), Ok("+12015550123".to_owned()));
        for bad in ["", "0441234567", "380441234567", "+1234", "+380 abc", "+999 123 456 789"] {
            assert_eq!(parse_phone(bad), Err(IdentityError::InvalidPhone), "{bad}");
        }
    }

    #[test]
    fn only_the_value_of_the_own_type_is_accepted() {
        let email = value_of(ContactType::Email, Some(" A@B.example ".into()), None, None).expect("valid");
        assert!(matches!(email, Some(ContactValue::Email(e)) if e.as_str() == "a@b.example"));
        assert!(value_of(ContactType::Email, None, None, None).expect("nothing given").is_none());
        let wrong = value_of(ContactType::Email, None, Some("+380441234567".into()), None).expect_err("phone");
        assert!(wrong.details.is_some_and(|d| d.contains_key("phone")));
        let no_country =
            AddressBody { street: None, city: Some("Kyiv".into()), state: None, postal_code: None, country: None };
        let missing = value_of(ContactType::Address, None, None, Some(no_country)).expect_err("country");
        assert!(missing.details.is_some_and(|d| d.contains_key("address.country")));
    }
}
