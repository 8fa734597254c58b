//! Customer and company rows.

use bulk_data::{decide, ImportMode, RowOutcome, UpsertDecision};
use crm_domain::application::CrmError;
use crm_domain::ports::{CompanyFilter, EmailScope, PhoneNumbers};
use crm_domain::{Company, CompanyChanges, Customer, CustomerChanges, Email, NewCompany, NewCustomer};
use serde_json::{json, Map, Value};
use shared_kernel::{PageRequest, StorageError};
use time::OffsetDateTime;

use super::{body_of, given, judged, row_errors, row_id, text, Transient};
use crate::app::AppState;
use crate::http::extract::parse_value;
use crate::http::ApiError;
use crate::routes::crm::requests::{CreateCompanyBody, CreateCustomerBody};
use bulk_data::RowResult;

/// What an upsert may change on a customer: the fields of its update, assignment, tier and status
/// endpoints.
const CUSTOMER_UPDATABLE: [&str; 6] = ["name", "phone", "tags", "assigned_to", "status", "tier"];
/// What an upsert may change on a company: the fields of its update endpoint.
const COMPANY_UPDATABLE: [&str; 3] = ["name", "website", "industry"];

pub async fn customer(state: &AppState, mode: ImportMode, row: Map<String, Value>) -> Result<RowOutcome, ApiError> {
    let id = row_id(&row)?;
    let body: CreateCustomerBody = parse_value(body_of(row.clone()))?;
    let input = NewCustomer::from(body);
    let cases = &state.crm.customer_cases;
    if mode == ImportMode::Create {
        cases.create(input).await?;
        return Ok(RowOutcome::Created);
    }
    // A creation racing another import's of the same email finds it the second time.
    for _ in 0..2 {
        let Some(stored) = matching_customer(state, id, &input).await? else {
            match cases.create(input.clone()).await {
                Ok(_) => return Ok(RowOutcome::Created),
                Err(CrmError::Storage(StorageError::Conflict { field: "email" })) => continue,
                Err(error) => return Err(error.into()),
            }
        };
        return update_customer(state, &row, stored, input).await;
    }
    Err(ApiError::conflict("CONFLICT", "the record changed while the row was imported; import it again"))
}

/// A create-only batch of customer rows: each parsed as `POST /customers`' body, then all of them
/// through `CustomerService::create_many` (the same rules and answers as one by one, saved together).
pub async fn customers_together(
    state: &AppState,
    rows: Vec<(u64, RowResult)>,
) -> Result<Vec<(u64, RowOutcome)>, Transient> {
    let mut outcomes: Vec<(u64, Option<RowOutcome>)> = Vec::with_capacity(rows.len());
    let (mut inputs, mut slots) = (Vec::new(), Vec::new());
    for (number, read) in rows {
        let parsed = read.map_err(RowOutcome::Failed).and_then(|fields| {
            let body = row_id(&fields)
                .and_then(|_| parse_value::<CreateCustomerBody>(body_of(fields)))
                .map_err(|error| RowOutcome::Failed(row_errors(error)))?;
            Ok(NewCustomer::from(body))
        });
        match parsed {
            Ok(input) => {
                slots.push(outcomes.len());
                inputs.push(input);
                outcomes.push((number, None));
            }
            Err(failed) => outcomes.push((number, Some(failed))),
        }
    }
    let saved = state.crm.customer_cases.create_many(inputs).await;
    for (slot, answer) in slots.into_iter().zip(saved) {
        outcomes[slot].1 = Some(judged(answer.map_err(ApiError::from), RowOutcome::Created)?);
    }
    Ok(outcomes.into_iter().map(|(number, outcome)| (number, outcome.unwrap_or(RowOutcome::Created))).collect())
}

/// The customer the row names: by `id`, else by email within its company (or among those of none),
/// the uniqueness rule of customers' emails.
async fn matching_customer(
    state: &AppState,
    id: Option<uuid::Uuid>,
    input: &NewCustomer,
) -> Result<Option<Customer>, ApiError> {
    if let Some(id) = id {
        if let Some(found) = state.crm.customers.find_by_id(id).await? {
            return Ok(Some(found));
        }
    }
    let email = Email::parse(&input.email).map_err(|e| ApiError::from_domain_field(&e, Some("email")))?;
    let scope = input.company_id.map_or(EmailScope::NoCompany, EmailScope::Company);
    Ok(state.crm.customers.find_by_email(&email, scope).await?)
}

async fn update_customer(
    state: &AppState,
    row: &Map<String, Value>,
    stored: Customer,
    mut input: NewCustomer,
) -> Result<RowOutcome, ApiError> {
    // The row's values as the create rules make them (trimmed, E.164, tags normalised), so that
    // equal values look equal.
    let phone = input.phone.take().filter(|p| !p.trim().is_empty());
    input.phone = match phone {
        Some(raw) => Some(crate::phone::LibPhoneNumbers.to_e164(&raw).ok_or(CrmError::InvalidPhone)?),
        None => None,
    };
    let wanted = Customer::new(input, OffsetDateTime::now_utc()).map_err(CrmError::from)?.customer;
    let view = |c: &Customer, field: &str| match field {
        "name" => json!(c.name),
        "phone" => text(c.phone.as_deref()),
        "tags" => json!(c.tags),
        "assigned_to" => json!(c.assigned_to),
        "status" => json!(c.status.as_str()),
        _ => json!(c.tier.as_str()),
    };
    let stored_fields: Map<String, Value> =
        CUSTOMER_UPDATABLE.iter().map(|f| ((*f).to_owned(), view(&stored, f))).collect();
    let incoming = given(row, &CUSTOMER_UPDATABLE, |f| view(&wanted, f));
    let UpsertDecision::Changes(changed) = decide(&stored_fields, &incoming) else {
        return Ok(RowOutcome::Unchanged);
    };
    let has = |field: &str| changed.iter().any(|c| c == field);
    let cases = &state.crm.customer_cases;
    let id = stored.id;
    if has("name") || has("phone") || has("tags") {
        let changes = CustomerChanges {
            name: has("name").then(|| wanted.name.clone()),
            phone: has("phone").then(|| wanted.phone.clone()),
            tags: has("tags").then(|| wanted.tags.clone()),
        };
        cases.update_details(id, changes).await?;
    }
    if has("assigned_to") {
        cases.assign(id, wanted.assigned_to).await?;
    }
    if has("tier") {
        cases.change_tier(id, wanted.tier).await?;
    }
    if has("status") {
        cases.set_status(id, wanted.status, None).await?;
    }
    Ok(RowOutcome::Updated)
}

pub async fn company(state: &AppState, mode: ImportMode, row: Map<String, Value>) -> Result<RowOutcome, ApiError> {
    let id = row_id(&row)?;
    let body: CreateCompanyBody = parse_value(body_of(row.clone()))?;
    let input = NewCompany::from(body);
    let cases = &state.crm.company_cases;
    if mode == ImportMode::Create {
        cases.create(input).await?;
        return Ok(RowOutcome::Created);
    }
    let wanted = Company::new(input.clone(), OffsetDateTime::now_utc()).map_err(CrmError::from)?;
    // Company names are not unique in storage: two imports of one name wait for each other here,
    // until the first one's batch commits, so the second finds what the first made.
    state.imports.lock_key(&format!("company:{}", wanted.name.to_lowercase())).await?;
    let Some(stored) = matching_company(state, id, &wanted.name).await? else {
        cases.create(input).await?;
        return Ok(RowOutcome::Created);
    };
    let view = |c: &Company, field: &str| match field {
        "name" => json!(c.name),
        "website" => text(c.website.as_deref()),
        _ => text(c.industry.as_deref()),
    };
    let stored_fields: Map<String, Value> =
        COMPANY_UPDATABLE.iter().map(|f| ((*f).to_owned(), view(&stored, f))).collect();
    let incoming = given(&row, &COMPANY_UPDATABLE, |f| view(&wanted, f));
    let UpsertDecision::Changes(changed) = decide(&stored_fields, &incoming) else {
        return Ok(RowOutcome::Unchanged);
    };
    let has = |field: &str| changed.iter().any(|c| c == field);
    let changes = CompanyChanges {
        name: has("name").then(|| wanted.name.clone()),
        website: has("website").then(|| wanted.website.clone()),
        industry: has("industry").then(|| wanted.industry.clone()),
    };
    cases.update(stored.id, changes).await?;
    Ok(RowOutcome::Updated)
}

/// The company the row names: by `id`, else the one live company of that name in any case; two
/// are `AMBIGUOUS_MATCH`.
async fn matching_company(state: &AppState, id: Option<uuid::Uuid>, name: &str) -> Result<Option<Company>, ApiError> {
    if let Some(id) = id {
        if let Some(found) = state.crm.companies.find_by_id(id).await? {
            return Ok(Some(found));
        }
    }
    let wanted = name.to_lowercase();
    let filter = CompanyFilter { search: Some(name.to_owned()) };
    let mut page_number = 1;
    let mut found: Option<Company> = None;
    loop {
        let request = PageRequest::new(Some(page_number), Some(100)).map_err(ApiError::from)?;
        let page = state.crm.companies.list(&filter, request).await?;
        let last = page.items.len() < 100;
        for company in page.items.into_iter().filter(|c| c.name.to_lowercase() == wanted) {
            if found.is_some() {
                return Err(
                    ApiError::conflict("AMBIGUOUS_MATCH", "two or more companies have this name").on_field("name")
                );
            }
            found = Some(company);
        }
        if last {
            return Ok(found);
        }
        page_number += 1;
    }
}
