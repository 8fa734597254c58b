//! Streaming exports (docs/imports-and-exports.md, "Exports"): every record a list endpoint's
//! filters and sort select, from one snapshot, as CSV or JSONL, streamed while it is read.

mod filters;

use actix_web::http::header::CONTENT_DISPOSITION;
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use bulk_data::{order_csv_rows, CsvWriter, ExportResource, FieldValue, Format, JsonlWriter};
use import_postgres::exports::{Exports, Records};
use postgres_toolkit::request_tx::RequestTransaction;
use serde::Deserialize;
use shared_kernel::StorageError;
use time::OffsetDateTime;
use tokio::sync::mpsc;
use utoipa::IntoParams;

use crate::app::AppState;
use crate::http::extract::query_string_error;
use crate::http::ApiError;

/// Records fetched from the cursor at a time.
const SLICE: u32 = 1_000;
/// Bytes gathered before they are sent on.
const FLUSH: usize = 64 * 1024;
/// Buffers waiting for a slow client: memory stays at a few of them whatever the export's size.
const IN_FLIGHT: usize = 4;

/// The most exports one instance streams at once. Each holds a pooled connection in its snapshot's
/// transaction for as long as its client reads, so without a bound a few slow readers would hold
/// every connection requests need (docs/imports-and-exports.md, "Exports").
const MAX_EXPORTS: usize = 4;

/// The exports running now; a permit travels with the export's producer and is given back when it
/// ends, whether the file was read to its end or the client left.
static EXPORTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(MAX_EXPORTS);

/// `format=csv|jsonl` (default `csv`); the resource's list filters and `sort` besides.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportFormat {
    /// `csv` (default) or `jsonl`.
    #[param(inline, value_type = Option<String>, pattern = "^(csv|jsonl)$")]
    pub format: Option<String>,
}

macro_rules! export_route {
    ($name:ident, $resource:expr, $path:literal, $params:ty, $what:literal) => {
        #[utoipa::path(get, path = $path, tag = "exports", params(ExportFormat, $params),
            responses((status = 200, description = $what,
                content((String = "text/csv"), (String = "application/x-ndjson")),
                headers(("Content-Disposition" = String, description = "attachment; filename=\"<resource>-<YYYY-MM-DD>.<csv|jsonl>\"")))),
            security(("bearer" = [])))]
        pub async fn $name(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
            export(&state, &req, $resource).await
        }
    };
}

export_route!(
    export_customers,
    ExportResource::Customers,
    "/api/v1/exports/customers",
    crate::routes::crm::requests::CustomerListParams,
    "Every customer the filters select; CSV cells as imports read them"
);
export_route!(
    export_companies,
    ExportResource::Companies,
    "/api/v1/exports/companies",
    crate::routes::crm::requests::CompanyListQuery,
    "Every company the search selects"
);
export_route!(
    export_deals,
    ExportResource::Deals,
    "/api/v1/exports/deals",
    crate::routes::crm::requests::DealListQuery,
    "Every deal the filters select"
);
export_route!(
    export_interactions,
    ExportResource::Interactions,
    "/api/v1/exports/interactions",
    filters::NoFilters,
    "Every interaction, the latest started first"
);
export_route!(
    export_orders,
    ExportResource::Orders,
    "/api/v1/exports/orders",
    crate::routes::orders::requests::OrderListQuery,
    "Every order the filters select: in JSONL with its lines, in CSV a row per line with the order's columns repeated"
);
export_route!(
    export_products,
    ExportResource::Products,
    "/api/v1/exports/products",
    crate::routes::warehouse::requests::ProductListQuery,
    "Every product the filters select"
);
export_route!(
    export_inventory,
    ExportResource::Inventory,
    "/api/v1/exports/inventory",
    crate::routes::warehouse::requests::InventoryListQuery,
    "Every inventory record the filters select"
);
export_route!(
    export_stock_movements,
    ExportResource::StockMovements,
    "/api/v1/exports/stock-movements",
    crate::routes::warehouse::requests::MovementListQuery,
    "Every stock movement the filters select"
);

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/exports/customers").route(web::get().to(export_customers)))
        .service(web::resource("/exports/companies").route(web::get().to(export_companies)))
        .service(web::resource("/exports/deals").route(web::get().to(export_deals)))
        .service(web::resource("/exports/interactions").route(web::get().to(export_interactions)))
        .service(web::resource("/exports/orders").route(web::get().to(export_orders)))
        .service(web::resource("/exports/products").route(web::get().to(export_products)))
        .service(web::resource("/exports/inventory").route(web::get().to(export_inventory)))
        .service(web::resource("/exports/stock-movements").route(web::get().to(export_stock_movements)));
}

async fn export(state: &AppState, req: &HttpRequest, resource: ExportResource) -> Result<HttpResponse, ApiError> {
    let format = web::Query::<ExportFormat>::from_query(req.query_string()).map_err(|e| query_string_error(&e))?;
    let format = match format.format.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        None => Format::Csv,
        Some(name) => Format::parse(name).ok_or_else(|| ApiError::field("format", "must be csv or jsonl"))?,
    };
    let query = filters::query_of(resource, req.query_string())?;
    let Ok(running) = EXPORTS.try_acquire() else {
        return Err(ApiError::unavailable(format!("{MAX_EXPORTS} exports are running; try again shortly")));
    };
    let exports = Exports::new(state.pool.clone());
    let tx = RequestTransaction::begin(&state.pool).await?;
    if let Err(error) = tx.run(exports.open(&query)).await {
        tx.rollback().await;
        return Err(error.into());
    }
    let (sender, receiver) = mpsc::channel::<Result<Bytes, std::io::Error>>(IN_FLIGHT);
    let writer = RecordWriter::new(resource, format);
    actix_web::rt::spawn(async move {
        let _running = running;
        produce(tx, exports, query.records, writer, sender).await;
    });
    let body = futures_util::stream::unfold(receiver, |mut rx| async move { rx.recv().await.map(|item| (item, rx)) });
    let name = resource.file_name(format, OffsetDateTime::now_utc().date());
    Ok(HttpResponse::Ok()
        .content_type(format.content_type())
        .insert_header((CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")))
        .streaming(body))
}

/// A slice of records as the statement gives them.
enum Slice {
    Fields(Vec<Vec<FieldValue>>),
    Json(Vec<String>),
}

impl Slice {
    fn len(&self) -> usize {
        match self {
            Self::Fields(records) => records.len(),
            Self::Json(records) => records.len(),
        }
    }
}

/// Writes records into the file's format: CSV with the resource's columns (an order a row per
/// line), or JSONL (an order's JSON as the statement built it).
struct RecordWriter {
    resource: ExportResource,
    columns: Vec<String>,
    csv: Option<CsvWriter>,
}

impl RecordWriter {
    fn new(resource: ExportResource, format: Format) -> Self {
        let columns = resource.csv_columns();
        let csv = (format == Format::Csv).then(|| CsvWriter::new(columns.clone()));
        Self { resource, columns, csv }
    }

    fn header(&self, out: &mut Vec<u8>) {
        if let Some(csv) = &self.csv {
            csv.write_header(out);
        }
    }

    /// Appends the slice's `i`th record.
    fn record(&mut self, slice: &Slice, i: usize, out: &mut Vec<u8>) {
        match (slice, &mut self.csv) {
            (Slice::Fields(records), Some(csv)) => csv.write_fields(&records[i], out),
            (Slice::Fields(records), None) => {
                if let Err(error) = JsonlWriter.write_fields(&self.columns, &records[i], out) {
                    tracing::warn!(%error, resource = self.resource.as_str(), "an exported record did not serialize");
                }
            }
            (Slice::Json(records), None) => {
                out.extend_from_slice(records[i].as_bytes());
                out.push(b'\n');
            }
            (Slice::Json(records), Some(csv)) => {
                let Ok(order) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&records[i]) else {
                    tracing::warn!(resource = self.resource.as_str(), "an exported record is not a JSON object");
                    return;
                };
                for row in order_csv_rows(&order) {
                    csv.write_row(&row, out);
                }
            }
        }
    }
}

async fn fetch(tx: &RequestTransaction, exports: &Exports, records: Records) -> Result<Slice, StorageError> {
    match records {
        Records::Fields => tx.run(exports.fetch_fields(SLICE)).await.map(Slice::Fields),
        Records::Json => tx.run(exports.fetch_json(SLICE)).await.map(Slice::Json),
    }
}

/// Reads the cursor a slice at a time and sends the file on in buffers; a client that leaves stops
/// it. A failure half-way aborts the response (the client sees a broken transfer, never a file that
/// looks complete).
async fn produce(
    tx: RequestTransaction,
    exports: Exports,
    records: Records,
    mut writer: RecordWriter,
    sender: mpsc::Sender<Result<Bytes, std::io::Error>>,
) {
    let mut out = Vec::with_capacity(FLUSH * 2);
    writer.header(&mut out);
    loop {
        let slice = match fetch(&tx, &exports, records).await {
            Ok(slice) => slice,
            Err(error) => {
                tracing::warn!(%error, resource = writer.resource.as_str(), "an export failed half-way");
                let _ = sender.send(Err(std::io::Error::other("the export failed"))).await;
                break;
            }
        };
        if slice.len() == 0 {
            break;
        }
        for i in 0..slice.len() {
            writer.record(&slice, i, &mut out);
            if out.len() >= FLUSH && sender.send(Ok(Bytes::from(std::mem::take(&mut out)))).await.is_err() {
                tx.rollback().await;
                return;
            }
        }
    }
    if !out.is_empty() {
        let _ = sender.send(Ok(Bytes::from(out))).await;
    }
    // Read only: nothing to keep.
    tx.rollback().await;
}
