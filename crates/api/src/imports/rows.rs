//! One import row through its resource's use cases: parsed as the create endpoint's body (the same
//! schema, the same codes), created, or in an upsert matched and changed through the update use
//! cases. Nothing here judges a value itself (docs/imports-and-exports.md, "Upsert").

use bulk_data::{ImportJob, ImportResource, RowError, RowOutcome, RowResult};
use serde_json::{Map, Value};
use uuid::Uuid;

use postgres_toolkit::request_tx::in_savepoint;

use crate::app::AppState;
use crate::http::ApiError;

mod crm;
mod warehouse;

/// A row could not be judged because the database could not answer (a lock or statement past its
/// limit, a lost connection, a deadlock): the batch is rolled back and tried again.
#[derive(Debug)]
pub struct Transient(pub String);

/// What one row did, or `Transient` when the batch must be tried again.
/// `job` says the resource, the mode and who uploaded it (a stock take's movements are theirs).
pub async fn import_row(state: &AppState, job: &ImportJob, row: Map<String, Value>) -> Result<RowOutcome, Transient> {
    let mode = job.options.mode;
    // A row is all or nothing: a refused step (a taken SKU, a tier change after the details were
    // updated) undoes the row's earlier writes and leaves the batch's transaction usable.
    let outcome = in_savepoint(async {
        let outcome = match job.resource {
            ImportResource::Customers => crm::customer(state, mode, row).await,
            ImportResource::Companies => crm::company(state, mode, row).await,
            ImportResource::Products => warehouse::product(state, mode, row).await,
            ImportResource::Inventory => warehouse::inventory(state, job.created_by, mode, row).await,
        };
        match outcome {
            Ok(RowOutcome::Failed(errors)) => Err(Ok(RowOutcome::Failed(errors))),
            Ok(outcome) => Ok(outcome),
            Err(error) => Err(Err(error)),
        }
    })
    .await
    .map_err(|error| Transient(error.to_string()))?;
    match outcome {
        Ok(outcome) | Err(Ok(outcome)) => Ok(outcome),
        Err(Err(error)) if error.status.is_server_error() => {
            Err(Transient(format!("{}: {}", error.code, error.message)))
        }
        Err(Err(error)) => Ok(RowOutcome::Failed(row_errors(error))),
    }
}

/// What each of `rows` did, in order: customers made together when the job only creates
/// (`CustomerService::create_many`, one statement per table for the batch), every other row through
/// [`import_row`]. `lost` is asked between rows; once it says so, the rest is not done.
pub async fn import_rows(
    state: &AppState,
    job: &ImportJob,
    rows: Vec<(u64, RowResult)>,
    lost: &std::sync::atomic::AtomicBool,
) -> Result<Vec<(u64, RowOutcome)>, Transient> {
    if job.resource == ImportResource::Customers && job.options.mode == bulk_data::ImportMode::Create {
        return crm::customers_together(state, rows).await;
    }
    let mut outcomes = Vec::with_capacity(rows.len());
    for (number, read) in rows {
        if lost.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let outcome = match read {
            Ok(fields) => import_row(state, job, fields).await?,
            Err(problems) => RowOutcome::Failed(problems),
        };
        outcomes.push((number, outcome));
    }
    Ok(outcomes)
}

/// An outcome of the API's answer: a client's mistake is the row's error; the server's is `Transient`.
fn judged<T>(answer: Result<T, ApiError>, outcome: RowOutcome) -> Result<RowOutcome, Transient> {
    match answer {
        Ok(_) => Ok(outcome),
        Err(error) if error.status.is_server_error() => Err(Transient(format!("{}: {}", error.code, error.message))),
        Err(error) => Ok(RowOutcome::Failed(row_errors(error))),
    }
}

/// The API's error as the row's errors: one per field its `details` name, else one for the row.
pub fn row_errors(error: ApiError) -> Vec<RowError> {
    match error.details.filter(|d| !d.is_empty()) {
        Some(details) => details
            .into_iter()
            .map(|(field, message)| RowError {
                field: (field != "body").then_some(field),
                code: error.code.to_owned(),
                message,
            })
            .collect(),
        None => vec![RowError { field: None, code: error.code.to_owned(), message: error.message }],
    }
}

/// The row's `id`, when it carries one (an upsert matches by it first).
fn row_id(row: &Map<String, Value>) -> Result<Option<Uuid>, ApiError> {
    match row.get("id") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(Value::String(text)) => shared_kernel::id::parse_id(text.trim())
            .map(Some)
            .ok_or_else(|| ApiError::invalid_uuid("id").on_field("id")),
        Some(_) => Err(ApiError::invalid_uuid("id").on_field("id")),
    }
}

/// The row without `id`: the create body has no such field.
fn body_of(mut row: Map<String, Value>) -> Value {
    row.remove("id");
    Value::Object(row)
}

/// The row's keys among `fields`, each with the value `of` gives it: what an upsert compares.
fn given(row: &Map<String, Value>, fields: &[&str], of: impl Fn(&str) -> Value) -> Map<String, Value> {
    fields.iter().filter(|f| row.contains_key(**f)).map(|f| ((*f).to_owned(), of(f))).collect()
}

fn text(value: Option<&str>) -> Value {
    value.map_or(Value::Null, |t| Value::String(t.to_owned()))
}
