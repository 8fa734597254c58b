//! Export then import: a record written by the CSV (or JSONL) writer and read back by the import
//! reader gives its importable fields again, per resource.

use bulk_data::read::{CsvReader, JsonlReader};
use bulk_data::schema::{Column, FieldType, Role, Schema};
use bulk_data::{decide, CsvWriter, ExportResource, ImportResource, JsonlWriter};
use serde_json::{json, Map, Value};

/// Awkward text: unicode, commas, quotes, line breaks, formula-looking starts, apostrophes.
const NASTY: [&str; 10] = [
    "Émile \"the\" Brontë, Jr.",
    "line one\nline two\r\nline three",
    "=HYPERLINK(\"http://evil.example\",\"click\")",
    "+1 (555) 010-0000",
    "-minus",
    "@handle",
    "\ttabbed",
    "'=already quoted",
    "東京, 日本 🚀",
    "''",
];

/// What an import of `record` gives: its non-read-only fields, without the values CSV cannot say
/// (null, empty text, empty list).
fn importable(schema: &Schema, record: &Map<String, Value>) -> Map<String, Value> {
    record
        .iter()
        .filter(|(key, value)| {
            let known = schema.column(key).is_some_and(|c| c.role != Role::ReadOnly);
            let said = match value {
                Value::Null => false,
                Value::String(s) => !s.is_empty(),
                Value::Array(items) => !items.is_empty(),
                _ => true,
            };
            known && said
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `records` exported as CSV with `columns` and read back, fed in chunks of `chunk` bytes.
fn csv_round_trip(
    schema: &'static Schema,
    columns: Vec<String>,
    records: &[Map<String, Value>],
    chunk: usize,
) -> Vec<Map<String, Value>> {
    let mut writer = CsvWriter::new(columns);
    let mut file = Vec::new();
    writer.write_header(&mut file);
    for record in records {
        writer.write_row(record, &mut file);
    }
    let mut reader = CsvReader::new(schema);
    let mut rows = Vec::new();
    for piece in file.chunks(chunk) {
        rows.extend(reader.feed(piece));
    }
    rows.extend(reader.finish());
    rows.into_iter()
        .enumerate()
        .map(|(i, item)| {
            let (number, row) = item.expect("a readable file");
            assert_eq!(number, i as u64 + 1);
            row.unwrap_or_else(|e| panic!("row {number}: {e:?}"))
        })
        .collect()
}

fn check_csv(resource: ImportResource, records: Vec<Value>) {
    let schema = resource.schema();
    let export = ExportResource::parse(resource.as_str()).expect("exported too");
    let records: Vec<Map<String, Value>> =
        records.into_iter().map(|r| r.as_object().cloned().expect("an object")).collect();
    for chunk in [1, 7, 4096] {
        let back = csv_round_trip(schema, export.csv_columns(), &records, chunk);
        assert_eq!(back.len(), records.len());
        for (record, row) in records.iter().zip(back) {
            assert_eq!(row, importable(schema, record), "{}", resource.as_str());
            // And an upsert of it leaves the record unchanged.
            assert!(decide(&importable(schema, record), &row).is_unchanged());
        }
    }
}

#[test]
fn customers_round_trip_through_csv() {
    let mut records = vec![json!({
        "id": "0190a0b0-0000-7000-8000-000000000001", "user_id": null, "company_id": "0190a0b0-0000-7000-8000-000000000009",
        "type": "company", "name": "Ann", "email": "ann@example.com", "phone": "+380441234567",
        "status": "customer", "tier": "pro", "source": "website", "assigned_to": null,
        "tags": ["vip", "a;b", "back\\slash", "=SUM(A1)", "ünïcödé"],
        "created_at": "2026-01-01T10:00:00Z", "updated_at": "2026-01-02T10:00:00Z", "churned_at": null
    })];
    for (i, text) in NASTY.iter().enumerate() {
        records.push(json!({
            "id": format!("0190a0b0-0000-7000-8000-{i:012}"), "type": "individual", "name": text,
            "email": format!("n{i}@example.com"), "phone": null, "status": "lead", "tier": "free",
            "source": text, "tags": [text.trim()], "created_at": "2026-01-01T10:00:00Z",
            "updated_at": "2026-01-01T10:00:00Z", "churned_at": null
        }));
    }
    records.push(json!({"name": "No tags", "email": "x@example.com", "tags": []}));
    check_csv(ImportResource::Customers, records);
}

#[test]
fn companies_round_trip_through_csv() {
    let records = NASTY
        .iter()
        .enumerate()
        .map(|(i, text)| {
            json!({"id": format!("0190a0b0-0000-7000-8000-{i:012}"), "name": text, "website": "https://acme.example/a,b?c=\"d\"",
                   "industry": text, "created_at": "2026-01-01T10:00:00Z", "updated_at": "2026-01-01T10:00:00Z"})
        })
        .collect();
    check_csv(ImportResource::Companies, records);
}

#[test]
fn products_round_trip_through_csv() {
    let records = NASTY
        .iter()
        .enumerate()
        .map(|(i, text)| {
            json!({"id": format!("0190a0b0-0000-7000-8000-{i:012}"), "sku": format!("-SKU-{i}"), "name": text,
                   "description": text, "category": "chairs", "brand": null, "weight_grams": 1200,
                   "length_mm": 0, "width_mm": null, "height_mm": i64::MAX, "price": 1999, "currency": "EUR",
                   "status": "active", "created_at": "2026-01-01T10:00:00Z", "updated_at": "2026-01-01T10:00:00Z"})
        })
        .collect();
    check_csv(ImportResource::Products, records);
}

#[test]
fn inventory_round_trips_through_csv() {
    let records = vec![
        json!({"id": "0190a0b0-0000-7000-8000-000000000001", "product_id": "0190a0b0-0000-7000-8000-000000000002",
               "location_id": "0190a0b0-0000-7000-8000-000000000003", "quantity_on_hand": 40, "quantity_reserved": 5,
               "quantity_available": 35, "quantity_committed": 2, "reorder_point": 10, "min_stock": 0, "max_stock": null,
               "created_at": "2026-01-01T10:00:00Z", "updated_at": "2026-01-01T10:00:00Z"}),
        json!({"product_id": "0190a0b0-0000-7000-8000-000000000004", "location_id": "0190a0b0-0000-7000-8000-000000000005",
               "quantity_on_hand": 0}),
    ];
    check_csv(ImportResource::Inventory, records);
}

#[test]
fn objects_round_trip_through_one_cell() {
    static LOCATIONS: Schema = Schema {
        resource: "locations",
        columns: &[
            Column { name: "code", kind: FieldType::Text, role: Role::Field, required: true },
            Column { name: "address", kind: FieldType::Object, role: Role::Field, required: false },
            Column { name: "is_active", kind: FieldType::Boolean, role: Role::Field, required: false },
        ],
        one_of: &[],
    };
    let record = json!({"code": "=WH", "is_active": false,
                        "address": {"street": "Khreshchatyk, 1 \"A\"", "city": "Київ\nцентр", "postal_code": null}});
    let record = record.as_object().cloned().expect("an object");
    let columns = vec!["code".to_owned(), "address".to_owned(), "is_active".to_owned()];
    let back = csv_round_trip(&LOCATIONS, columns, std::slice::from_ref(&record), 3);
    assert_eq!(back, vec![record]);
}

#[test]
fn jsonl_round_trips_every_value_as_it_is() {
    let record = json!({"id": "0190a0b0-0000-7000-8000-000000000001", "name": "=1+1\n\"x\"", "email": "a@example.com",
                        "phone": null, "tags": [], "type": "individual", "created_at": "2026-01-01T10:00:00Z"});
    let mut file = Vec::new();
    for _ in 0..3 {
        JsonlWriter.write_row(&record, &mut file).expect("serializes");
    }
    let mut reader = JsonlReader::new(ImportResource::Customers.schema());
    let mut rows: Vec<_> = reader.feed(&file).collect();
    rows.extend(reader.finish());
    assert_eq!(rows.len(), 3);
    let expected = json!({"id": "0190a0b0-0000-7000-8000-000000000001", "name": "=1+1\n\"x\"", "email": "a@example.com",
                          "phone": null, "tags": []});
    for (i, item) in rows.into_iter().enumerate() {
        let (number, row) = item.expect("readable");
        assert_eq!(number, i as u64 + 1);
        assert_eq!(Value::Object(row.expect("a good row")), expected);
    }
}
