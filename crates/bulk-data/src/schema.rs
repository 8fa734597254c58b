//! The columns of each import resource, the header check, and how a CSV cell or a JSONL key becomes
//! a field of the create body.

use serde_json::{Map, Value};

use crate::cell::{restore, split_list};
use crate::error::{HeaderError, RowError, RowErrors};

/// What a column holds, which says how its CSV cell is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// Text, kept as written (the resource's rules trim it).
    Text,
    /// A UUID, kept as text (the create body's parsing judges it).
    Uuid,
    /// A whole number that fits 64 bits (`-12`, `0`, `4200`).
    Integer,
    /// `true` or `false`, any case.
    Boolean,
    /// A list of text (`tags`): `;`-separated in one cell.
    List,
    /// A JSON object (`address`): its JSON text in one cell.
    Object,
    /// An RFC 3339 instant or a date, kept as text (only read-only columns have it).
    Timestamp,
}

/// What a column is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A field of the create body: read into the row, written by exports.
    Field,
    /// `id`: read into the row (an upsert matches by it), written by exports.
    Id,
    /// Written by exports (`created_at`, …), accepted in an import's header and ignored.
    ReadOnly,
    /// Read into the row but never written by exports (an inventory row's `sku`, `location_code`).
    ImportOnly,
}

/// One column of a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The column's name: the create body's field name (or the exported field's).
    pub name: &'static str,
    /// What it holds.
    pub kind: FieldType,
    /// What it is for.
    pub role: Role,
    /// Whether the header must have it (the create body's required fields).
    pub required: bool,
}

const fn field(name: &'static str, kind: FieldType) -> Column {
    Column { name, kind, role: Role::Field, required: false }
}

const fn required(name: &'static str, kind: FieldType) -> Column {
    Column { name, kind, role: Role::Field, required: true }
}

const fn read_only(name: &'static str, kind: FieldType) -> Column {
    Column { name, kind, role: Role::ReadOnly, required: false }
}

const fn import_only(name: &'static str, kind: FieldType) -> Column {
    Column { name, kind, role: Role::ImportOnly, required: false }
}

const ID: Column = Column { name: "id", kind: FieldType::Uuid, role: Role::Id, required: false };

use FieldType::{Integer, List, Text, Timestamp, Uuid};

/// The columns of one import resource, in the order an export writes them.
#[derive(Debug, PartialEq, Eq)]
pub struct Schema {
    /// The resource's name in the path (`customers`).
    pub resource: &'static str,
    /// Every known column.
    pub columns: &'static [Column],
    /// Groups of columns of which each row needs at least one (an inventory row names its product
    /// by `sku` or `product_id`); the header needs one of each group.
    pub one_of: &'static [&'static [&'static str]],
}

/// Customers: `POST /customer-mgmt/customers`'s body, plus `id` and what the customer view adds.
pub static CUSTOMERS: Schema = Schema {
    resource: "customers",
    columns: &[
        ID,
        field("user_id", Uuid),
        field("company_id", Uuid),
        read_only("type", Text),
        required("name", Text),
        required("email", Text),
        field("phone", Text),
        field("status", Text),
        field("tier", Text),
        field("source", Text),
        field("assigned_to", Uuid),
        field("tags", List),
        read_only("created_at", Timestamp),
        read_only("updated_at", Timestamp),
        read_only("churned_at", Timestamp),
    ],
    one_of: &[],
};

/// Companies: `POST /customer-mgmt/companies`'s body, plus `id` and the timestamps.
pub static COMPANIES: Schema = Schema {
    resource: "companies",
    columns: &[
        ID,
        required("name", Text),
        field("website", Text),
        field("industry", Text),
        read_only("created_at", Timestamp),
        read_only("updated_at", Timestamp),
    ],
    one_of: &[],
};

/// Products: `POST /warehouse/products`'s body, plus `id`, `status` and the timestamps.
pub static PRODUCTS: Schema = Schema {
    resource: "products",
    columns: &[
        ID,
        required("sku", Text),
        required("name", Text),
        field("description", Text),
        field("category", Text),
        field("brand", Text),
        field("weight_grams", Integer),
        field("length_mm", Integer),
        field("width_mm", Integer),
        field("height_mm", Integer),
        field("price", Integer),
        field("currency", Text),
        read_only("status", Text),
        read_only("created_at", Timestamp),
        read_only("updated_at", Timestamp),
    ],
    one_of: &[],
};

/// Inventory (a stock take): the product by `sku` or `product_id`, the location by
/// `location_code` or `location_id`, the counted `quantity_on_hand` and the thresholds; plus `id`
/// and what the inventory view adds.
pub static INVENTORY: Schema = Schema {
    resource: "inventory",
    columns: &[
        ID,
        field("product_id", Uuid),
        field("location_id", Uuid),
        field("quantity_on_hand", Integer),
        read_only("quantity_reserved", Integer),
        read_only("quantity_available", Integer),
        read_only("quantity_committed", Integer),
        field("reorder_point", Integer),
        field("min_stock", Integer),
        field("max_stock", Integer),
        read_only("created_at", Timestamp),
        read_only("updated_at", Timestamp),
        import_only("sku", Text),
        import_only("location_code", Text),
    ],
    one_of: &[&["sku", "product_id"], &["location_code", "location_id"]],
};

impl Schema {
    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&'static Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The columns an export writes, in order (every column but the import-only ones).
    pub fn export_columns(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.columns.iter().filter(|c| c.role != Role::ImportOnly).map(|c| c.name)
    }

    /// Checks a CSV header (names as written; each is trimmed): every name known, none twice, every
    /// required column and one of each [`Schema::one_of`] group there. Answers the column of each
    /// position, or every problem at once.
    pub fn check_header<S: AsRef<str>>(&self, names: &[S]) -> Result<Vec<&'static Column>, HeaderError> {
        let mut error = HeaderError::default();
        let mut columns = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let name = name.as_ref().trim();
            match self.column(name) {
                Some(column) => columns.push(column),
                None => error.unknown.push(name.to_owned()),
            }
            let earlier = names[..i].iter().any(|n| n.as_ref().trim() == name);
            if earlier && !error.duplicate.iter().any(|d| d == name) {
                error.duplicate.push(name.to_owned());
            }
        }
        let has = |name: &str| columns.iter().any(|c| c.name == name);
        for column in self.columns.iter().filter(|c| c.required) {
            if !has(column.name) {
                error.missing.push(column.name.to_owned());
            }
        }
        for group in self.one_of {
            if !group.iter().any(|name| has(name)) {
                error.missing.push(group.join("|"));
            }
        }
        if error.is_empty() {
            Ok(columns)
        } else {
            Err(error)
        }
    }

    /// A CSV row's cells (in header order, `columns` from [`Schema::check_header`]) as the create
    /// body: read-only columns and empty cells left out, each cell restored and read by its type.
    pub fn row_from_cells<'c>(
        &self,
        columns: &[&'static Column],
        cells: impl IntoIterator<Item = &'c str>,
    ) -> Result<Map<String, Value>, RowErrors> {
        let mut row = Map::new();
        let mut errors = Vec::new();
        for (column, cell) in columns.iter().zip(cells) {
            if column.role == Role::ReadOnly {
                continue;
            }
            match read_cell(column, cell) {
                Ok(Some(value)) => {
                    row.insert(column.name.to_owned(), value);
                }
                Ok(None) => {}
                Err(e) => errors.push(e),
            }
        }
        self.check_one_of(&row, &mut errors);
        if errors.is_empty() {
            Ok(row)
        } else {
            Err(errors)
        }
    }

    /// A JSONL row's object as the create body: read-only keys dropped, an unknown key refused
    /// (one error each), values passed as they are (the create body's parsing judges them).
    pub fn row_from_object(&self, mut object: Map<String, Value>) -> Result<Map<String, Value>, RowErrors> {
        let mut errors = Vec::new();
        object.retain(|key, _| match self.column(key) {
            Some(column) => column.role != Role::ReadOnly,
            None => {
                errors.push(RowError::validation(Some(key), "unknown field"));
                false
            }
        });
        self.check_one_of(&object, &mut errors);
        if errors.is_empty() {
            Ok(object)
        } else {
            Err(errors)
        }
    }

    fn check_one_of(&self, row: &Map<String, Value>, errors: &mut RowErrors) {
        for group in self.one_of {
            if !group.iter().any(|name| row.get(*name).is_some_and(|v| !v.is_null())) {
                errors.push(RowError::validation(Some(group[0]), format!("one of {} is required", group.join(", "))));
            }
        }
    }
}

/// One cell read by its column's type: `None` when empty (an absent value).
fn read_cell(column: &Column, cell: &str) -> Result<Option<Value>, RowError> {
    if cell.is_empty() {
        return Ok(None);
    }
    let cell = restore(cell);
    let bad = |message: &str| RowError::validation(Some(column.name), message);
    let value = match column.kind {
        FieldType::Text | FieldType::Uuid | FieldType::Timestamp => Value::String(cell.to_owned()),
        FieldType::Integer => {
            let n: i64 = cell.trim().parse().map_err(|_| bad("must be a whole number (64-bit)"))?;
            Value::from(n)
        }
        FieldType::Boolean => match cell.trim().to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(bad("must be true or false")),
        },
        FieldType::List => Value::Array(split_list(cell).into_iter().map(Value::String).collect()),
        FieldType::Object => match serde_json::from_str::<Value>(cell) {
            Ok(object @ Value::Object(_)) => object,
            _ => return Err(bad("must be a JSON object")),
        },
    };
    Ok(Some(value))
}

/// The four resources an import takes (`POST /api/v1/imports/{resource}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImportResource {
    /// `customers`
    Customers,
    /// `companies`
    Companies,
    /// `products`
    Products,
    /// `inventory`
    Inventory,
}

impl ImportResource {
    /// Every import resource.
    pub const ALL: [ImportResource; 4] = [Self::Customers, Self::Companies, Self::Products, Self::Inventory];

    /// The resource named in the path (exact spelling).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// Its name in the path and in the job.
    pub fn as_str(self) -> &'static str {
        self.schema().resource
    }

    /// Its columns.
    pub fn schema(self) -> &'static Schema {
        match self {
            Self::Customers => &CUSTOMERS,
            Self::Companies => &COMPANIES,
            Self::Products => &PRODUCTS,
            Self::Inventory => &INVENTORY,
        }
    }
}

/// The two file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// RFC 4180 CSV, UTF-8, header row first: `text/csv`.
    Csv,
    /// One JSON object a line: `application/x-ndjson`.
    Jsonl,
}

impl Format {
    /// The format of an upload's `Content-Type` (parameters such as `charset=utf-8` ignored, any
    /// case): `text/csv` or `application/x-ndjson`.
    pub fn from_content_type(content_type: &str) -> Option<Self> {
        let essence = content_type.split(';').next().unwrap_or_default().trim();
        if essence.eq_ignore_ascii_case("text/csv") {
            Some(Self::Csv)
        } else if essence.eq_ignore_ascii_case("application/x-ndjson") {
            Some(Self::Jsonl)
        } else {
            None
        }
    }

    /// The format named by an export's `format` query value (`csv`, `jsonl`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "csv" => Some(Self::Csv),
            "jsonl" => Some(Self::Jsonl),
            _ => None,
        }
    }

    /// `csv` or `jsonl`: the job's `format` and the export file's extension.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Csv => "csv",
            Self::Jsonl => "jsonl",
        }
    }

    /// The `Content-Type` of a file in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Csv => "text/csv; charset=utf-8",
            Self::Jsonl => "application/x-ndjson",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_schema_knows_id_and_has_no_column_twice() {
        for resource in ImportResource::ALL {
            let schema = resource.schema();
            assert_eq!(ImportResource::parse(resource.as_str()), Some(resource));
            assert_eq!(schema.column("id").map(|c| c.role), Some(Role::Id));
            for (i, c) in schema.columns.iter().enumerate() {
                assert!(schema.columns[..i].iter().all(|d| d.name != c.name), "{} twice", c.name);
            }
            for group in schema.one_of {
                assert!(group.iter().all(|name| schema.column(name).is_some()));
            }
        }
    }

    #[test]
    fn the_export_header_passes_the_import_check() {
        for resource in ImportResource::ALL {
            let schema = resource.schema();
            let header: Vec<&str> = schema.export_columns().collect();
            assert!(schema.check_header(&header).is_ok(), "{}", schema.resource);
        }
    }

    #[test]
    fn a_header_error_names_every_unknown_missing_and_repeated_column() {
        let err = CUSTOMERS.check_header(&["name", "nickname", "name", " shoe_size "]).expect_err("refused");
        assert_eq!(err.unknown, ["nickname", "shoe_size"]);
        assert_eq!(err.missing, ["email"]);
        assert_eq!(err.duplicate, ["name"]);
        let details = err.details();
        assert_eq!(details.len(), 4);
        assert!(details.contains(&("email".to_owned(), "required column missing".to_owned())));
        assert!(err.to_string().contains("nickname, shoe_size"));
    }

    #[test]
    fn an_inventory_header_needs_one_column_of_each_pair() {
        let err = INVENTORY.check_header(&["quantity_on_hand"]).expect_err("refused");
        assert_eq!(err.missing, ["sku|product_id", "location_code|location_id"]);
        assert_eq!(err.details()[0].1, "one of the columns sku, product_id is required");
        assert!(INVENTORY.check_header(&["sku", "location_id", "quantity_on_hand"]).is_ok());
        assert!(INVENTORY.check_header(&["product_id", "location_code"]).is_ok());
    }

    #[test]
    fn cells_are_read_by_their_column_type() {
        let header = ["id", "sku", "name", "price", "weight_grams", "status", "created_at"];
        let columns = PRODUCTS.check_header(&header).expect("a good header");
        let row = PRODUCTS
            .row_from_cells(&columns, ["", "'-SKU", "Chair", " 1250 ", "-3", "discontinued", "2026-01-01T00:00:00Z"])
            .expect("a good row");
        assert_eq!(
            row,
            json!({"sku": "-SKU", "name": "Chair", "price": 1250, "weight_grams": -3})
                .as_object()
                .cloned()
                .expect("an object")
        );
    }

    #[test]
    fn a_cell_that_does_not_parse_is_a_row_error_naming_its_field() {
        let columns = PRODUCTS.check_header(&["sku", "name", "price", "width_mm"]).expect("a good header");
        let errors =
            PRODUCTS.row_from_cells(&columns, ["A", "B", "12.5", "99999999999999999999"]).expect_err("refused");
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_deref()).collect();
        assert_eq!(fields, [Some("price"), Some("width_mm")]);
        assert!(errors.iter().all(|e| e.code == "VALIDATION_ERROR"));
    }

    #[test]
    fn lists_objects_and_booleans_are_read_from_their_text() {
        static WITH_ADDRESS: Schema = Schema {
            resource: "locations",
            columns: &[
                required("code", Text),
                field("address", FieldType::Object),
                field("is_active", FieldType::Boolean),
                field("tags", List),
            ],
            one_of: &[],
        };
        let columns = WITH_ADDRESS.check_header(&["code", "address", "is_active", "tags"]).expect("header");
        let row = WITH_ADDRESS
            .row_from_cells(&columns, ["K1", r#"{"city":"Kyiv","street":"Khreshchatyk, 1"}"#, "TRUE", "a;b"])
            .expect("a good row");
        assert_eq!(
            Value::Object(row),
            json!({"code": "K1", "address": {"city": "Kyiv", "street": "Khreshchatyk, 1"}, "is_active": true, "tags": ["a", "b"]})
        );
        let errors = WITH_ADDRESS.row_from_cells(&columns, ["K1", "[1]", "yes", ""]).expect_err("refused");
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].message, "must be a JSON object");
        assert_eq!(errors[1].message, "must be true or false");
    }

    #[test]
    fn an_inventory_row_needs_a_product_and_a_location() {
        let columns =
            INVENTORY.check_header(&["sku", "product_id", "location_code", "quantity_on_hand"]).expect("header");
        let errors = INVENTORY.row_from_cells(&columns, ["", "", "WH-1", "4"]).expect_err("refused");
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field.as_deref(), Some("sku"));
        assert_eq!(errors[0].message, "one of sku, product_id is required");
    }

    #[test]
    fn an_object_row_loses_read_only_keys_and_refuses_unknown_ones() {
        let object = json!({"name": "Acme", "created_at": "2026-01-01T00:00:00Z", "id": null});
        let row = COMPANIES.row_from_object(object.as_object().cloned().expect("an object")).expect("a good row");
        assert_eq!(Value::Object(row), json!({"name": "Acme", "id": null}));
        let object = json!({"name": "Acme", "ceo": "x", "hq": "y"});
        let errors = COMPANIES.row_from_object(object.as_object().cloned().expect("an object")).expect_err("refused");
        let fields: Vec<_> = errors.iter().map(|e| e.field.clone().unwrap_or_default()).collect();
        assert_eq!(fields, ["ceo", "hq"]);
    }

    #[test]
    fn formats_follow_the_content_type() {
        assert_eq!(Format::from_content_type("text/csv; charset=UTF-8"), Some(Format::Csv));
        assert_eq!(Format::from_content_type("Application/X-NDJSON"), Some(Format::Jsonl));
        assert_eq!(Format::from_content_type("application/json"), None);
        assert_eq!(Format::parse("jsonl"), Some(Format::Jsonl));
    }
}
