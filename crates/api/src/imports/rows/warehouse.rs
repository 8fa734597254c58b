//! Product and inventory rows.

use bulk_data::{decide, ImportMode, RowOutcome, UpsertDecision};
use serde_json::{json, Map, Value};
use shared_kernel::StorageError;
use time::OffsetDateTime;
use uuid::Uuid;
use warehouse_domain::{NewInventory, Product, ProductInput, ProductRecord, RepoError, Thresholds};

use super::{body_of, given, row_id, text};
use crate::app::AppState;
use crate::http::extract::parse_value;
use crate::http::ApiError;
use crate::routes::warehouse::inventory_ops::stock;
use crate::routes::warehouse::products::product_input;
use crate::routes::warehouse::requests::{CreateInventoryBody, ProductBody};
use crate::routes::warehouse::warehouse_error;

/// What an upsert may change on a product: the fields of its `PUT`.
const PRODUCT_UPDATABLE: [&str; 11] = [
    "sku",
    "name",
    "description",
    "category",
    "brand",
    "weight_grams",
    "length_mm",
    "width_mm",
    "height_mm",
    "price",
    "currency",
];

fn missing_as_none(found: Result<Product, RepoError>) -> Result<Option<Product>, ApiError> {
    match found {
        Ok(product) => Ok(Some(product)),
        Err(RepoError::Storage(StorageError::NotFound)) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

pub async fn product(state: &AppState, mode: ImportMode, row: Map<String, Value>) -> Result<RowOutcome, ApiError> {
    let id = row_id(&row)?;
    let body: ProductBody = parse_value(body_of(row.clone()))?;
    let input = product_input(body)?;
    let cases = &state.commerce.warehouse.products;
    if mode == ImportMode::Create {
        cases.create(input).await?;
        return Ok(RowOutcome::Created);
    }
    let wanted = Product::create(input.clone(), OffsetDateTime::now_utc()).map_err(|e| warehouse_error(&e))?;
    for _ in 0..2 {
        let mut stored = None;
        if let Some(id) = id {
            stored = missing_as_none(state.commerce.products.get(id).await)?;
        }
        if stored.is_none() {
            stored = missing_as_none(state.commerce.products.get_by_sku(&wanted.sku).await)?;
        }
        let Some(stored) = stored else {
            match cases.create(input.clone()).await {
                Ok(_) => return Ok(RowOutcome::Created),
                // Another import made the SKU meanwhile: match it.
                Err(RepoError::Storage(StorageError::Conflict { field: "sku" })) => continue,
                Err(error) => return Err(error.into()),
            }
        };
        return update_product(state, &row, stored, wanted.record()).await;
    }
    Err(ApiError::conflict("CONFLICT", "the record changed while the row was imported; import it again"))
}

fn product_field(p: &ProductRecord, field: &str) -> Value {
    match field {
        "sku" => json!(p.sku),
        "name" => json!(p.name),
        "description" => text(p.description.as_deref()),
        "category" => text(p.category.as_deref()),
        "brand" => text(p.brand.as_deref()),
        "weight_grams" => json!(p.weight_grams),
        "length_mm" => json!(p.length_mm),
        "width_mm" => json!(p.width_mm),
        "height_mm" => json!(p.height_mm),
        "price" => json!(p.price),
        _ => text(p.currency.as_ref().map(|c| c.as_str())),
    }
}

async fn update_product(
    state: &AppState,
    row: &Map<String, Value>,
    stored: Product,
    wanted: &ProductRecord,
) -> Result<RowOutcome, ApiError> {
    let stored_fields: Map<String, Value> =
        PRODUCT_UPDATABLE.iter().map(|f| ((*f).to_owned(), product_field(&stored, f))).collect();
    let incoming = given(row, &PRODUCT_UPDATABLE, |f| product_field(wanted, f));
    let UpsertDecision::Changes(changed) = decide(&stored_fields, &incoming) else {
        return Ok(RowOutcome::Unchanged);
    };
    let pick = |field: &str| if changed.iter().any(|c| c == field) { wanted } else { &*stored };
    // The `PUT` replaces every field: those the row does not change keep their stored values.
    let input = ProductInput {
        sku: pick("sku").sku.clone(),
        name: pick("name").name.clone(),
        description: pick("description").description.clone(),
        category: pick("category").category.clone(),
        brand: pick("brand").brand.clone(),
        weight_grams: pick("weight_grams").weight_grams,
        length_mm: pick("length_mm").length_mm,
        width_mm: pick("width_mm").width_mm,
        height_mm: pick("height_mm").height_mm,
        price: pick("price").price,
        currency: pick("currency").currency,
        // Not an import column: the product keeps its preferred supplier.
        supplier_id: stored.supplier_id,
    };
    state.commerce.warehouse.products.update(stored.id, input).await?;
    Ok(RowOutcome::Updated)
}

/// A stock take: the record of the row's product at its location, made if missing; its thresholds
/// as given; its on-hand set to the counted figure by one `Adjustment` of the difference (the
/// adjustment endpoint's rules: never below what is reserved).
pub async fn inventory(
    state: &AppState,
    by: Uuid,
    mode: ImportMode,
    row: Map<String, Value>,
) -> Result<RowOutcome, ApiError> {
    let product_id = match reference(&row, "product_id")? {
        Some(id) => state.commerce.products.get(id).await.map_err(|e| not_found(e, "product_id"))?.id,
        None => {
            let sku = row.get("sku").and_then(Value::as_str).unwrap_or_default();
            state.commerce.products.get_by_sku(sku.trim()).await.map_err(|e| not_found(e, "sku"))?.id
        }
    };
    let location_id = match reference(&row, "location_id")? {
        Some(id) => state.commerce.locations.get(id).await.map_err(|e| not_found(e, "location_id"))?.id,
        None => {
            let code = row.get("location_code").and_then(Value::as_str).unwrap_or_default();
            state.commerce.locations.get_by_code(code.trim()).await.map_err(|e| not_found(e, "location_code"))?.id
        }
    };
    // The rest of the row is the create endpoint's body, judged by its rules.
    let mut body: Map<String, Value> =
        INVENTORY_FIELDS.iter().filter_map(|f| row.get(*f).map(|v| ((*f).to_owned(), v.clone()))).collect();
    body.insert("product_id".to_owned(), json!(product_id));
    body.insert("location_id".to_owned(), json!(location_id));
    let body: CreateInventoryBody = parse_value(Value::Object(body))?;
    let thresholds =
        Thresholds { reorder_point: body.reorder_point, min_stock: body.min_stock, max_stock: body.max_stock };
    let new = NewInventory { product_id, location_id, quantity_on_hand: body.quantity_on_hand, thresholds };
    let cases = &state.commerce.warehouse.inventory;
    for _ in 0..2 {
        let stored = match mode {
            ImportMode::Create => None,
            ImportMode::Upsert => state.commerce.inventory.find(product_id, location_id).await?,
        };
        let Some(stored) = stored else {
            match cases.create(new, by).await {
                Ok(_) => return Ok(RowOutcome::Created),
                Err(RepoError::Storage(StorageError::Conflict { .. })) if mode == ImportMode::Upsert => continue,
                Err(error) => return Err(error.into()),
            }
        };
        let given = |field: &str| row.contains_key(field);
        let wanted = Thresholds {
            reorder_point: if given("reorder_point") { thresholds.reorder_point } else { stored.reorder_point },
            min_stock: if given("min_stock") { thresholds.min_stock } else { stored.min_stock },
            max_stock: if given("max_stock") { thresholds.max_stock } else { stored.max_stock },
        };
        let same_thresholds = wanted == stored.thresholds();
        if !same_thresholds {
            cases.set_thresholds(stored.id, wanted).await?;
        }
        // On hand is set to the count as the record is when the write lands, never by a difference
        // taken from the read above (a reservation meanwhile would be undone).
        let counted = match body.quantity_on_hand.filter(|_| given("quantity_on_hand")) {
            Some(counted) => stock(state).count(stored.id, counted, "stock take (import)", by).await?.is_some(),
            None => false,
        };
        return Ok(if same_thresholds && !counted { RowOutcome::Unchanged } else { RowOutcome::Updated });
    }
    Err(ApiError::conflict("CONFLICT", "the record changed while the row was imported; import it again"))
}

/// The inventory create body's fields an import row may carry.
const INVENTORY_FIELDS: [&str; 4] = ["quantity_on_hand", "reorder_point", "min_stock", "max_stock"];

/// A row's `product_id` or `location_id`, when it names one.
fn reference(row: &Map<String, Value>, field: &str) -> Result<Option<Uuid>, ApiError> {
    match row.get(field).and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(text) => {
            shared_kernel::id::parse_id(text).map(Some).ok_or_else(|| ApiError::invalid_uuid(field).on_field(field))
        }
    }
}

/// A product or location the row names that does not exist: `NOT_FOUND` on that column.
fn not_found(error: RepoError, field: &str) -> ApiError {
    match error {
        RepoError::Storage(StorageError::NotFound) => {
            ApiError::not_found(format!("no such {}", field.replace('_', " "))).on_field(field)
        }
        other => other.into(),
    }
}
