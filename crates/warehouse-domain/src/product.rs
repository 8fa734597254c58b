//! Products: SKU-identified catalogue entries with an `active` / `discontinued` lifecycle.
//!
//! Decisions: the SKU is trimmed and otherwise stored as given; its uniqueness is case-insensitive and
//! enforced by the adapter (unique index on `lower(sku)` among non-deleted rows → `Storage(Conflict { field: "sku" })`).
//! Limits not fixed by the specification: category and brand 1..=100 characters, description up to
//! 5000. A price needs a currency. Discontinuing a discontinued product (or activating an active one)
//! is `INVALID_STATUS_TRANSITION` 409, like every other refused status move in Tally.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};
use shared_kernel::CurrencyCode;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::WarehouseError;
use crate::text;

/// Longest SKU, in characters after trimming.
pub const MAX_SKU_CHARS: usize = 64;
/// Longest product name, in characters after trimming.
pub const MAX_NAME_CHARS: usize = 255;
/// Longest category or brand, in characters after trimming.
pub const MAX_LABEL_CHARS: usize = 100;
/// Longest description, in characters after trimming.
pub const MAX_DESCRIPTION_CHARS: usize = 5000;

/// Whether a product is still sold. Serialized in snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProductStatus {
    /// On sale: new order lines may name it.
    Active,
    /// No longer sold; its stock and history stay. May be activated again.
    Discontinued,
}

impl ProductStatus {
    /// Every product status.
    pub const ALL: [ProductStatus; 2] = [Self::Active, Self::Discontinued];

    /// The wire name (`active`, `discontinued`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Discontinued => "discontinued",
        }
    }

    /// Case-insensitive; anything else is `VALIDATION_ERROR` on `status`.
    pub fn parse(text: &str) -> Result<Self, WarehouseError> {
        let text = text.trim();
        Self::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text))
            .ok_or(WarehouseError::Validation { field: "status", message: "must be active or discontinued" })
    }
}

impl fmt::Display for ProductStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The stored and wire shape of a product.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProductRecord {
    /// The product's id (UUID v7).
    pub id: Uuid,
    /// The stock-keeping unit, unique case-insensitively among live products.
    pub sku: String,
    /// The display name (copied onto order lines as their description).
    pub name: String,
    /// Free text, up to [`MAX_DESCRIPTION_CHARS`].
    pub description: Option<String>,
    /// A grouping label, up to [`MAX_LABEL_CHARS`].
    pub category: Option<String>,
    /// The maker's brand, up to [`MAX_LABEL_CHARS`].
    pub brand: Option<String>,
    /// Weight in grams, ≥ 0.
    pub weight_grams: Option<i64>,
    /// Length in millimetres, ≥ 0.
    pub length_mm: Option<i64>,
    /// Width in millimetres, ≥ 0.
    pub width_mm: Option<i64>,
    /// Height in millimetres, ≥ 0.
    pub height_mm: Option<i64>,
    /// List price in cents of `currency`, ≥ 0.
    pub price: Option<i64>,
    /// The currency of `price`; always set when `price` is.
    pub currency: Option<CurrencyCode>,
    /// Whether it is still sold.
    pub status: ProductStatus,
    /// The preferred supplier (reorder suggestions group by it), if any.
    pub supplier_id: Option<Uuid>,
    /// When the product was created.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When it last changed.
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    #[serde(skip)]
    pub version: i64,
}

/// A product whose fields are valid (see the module rules). Read its fields through `Deref`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Product(ProductRecord);

impl Deref for Product {
    type Target = ProductRecord;
    fn deref(&self) -> &ProductRecord {
        &self.0
    }
}

/// The editable fields, for create and for `PUT` (which replaces all of them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProductInput {
    /// Required, 1..=[`MAX_SKU_CHARS`] characters after trimming, no control characters.
    pub sku: String,
    /// Required, 1..=[`MAX_NAME_CHARS`] characters after trimming, no control characters.
    pub name: String,
    /// Optional, up to [`MAX_DESCRIPTION_CHARS`]; blank is `None`.
    pub description: Option<String>,
    /// Optional, up to [`MAX_LABEL_CHARS`]; blank is `None`.
    pub category: Option<String>,
    /// Optional, up to [`MAX_LABEL_CHARS`]; blank is `None`.
    pub brand: Option<String>,
    /// Grams, ≥ 0.
    pub weight_grams: Option<i64>,
    /// Millimetres, ≥ 0.
    pub length_mm: Option<i64>,
    /// Millimetres, ≥ 0.
    pub width_mm: Option<i64>,
    /// Millimetres, ≥ 0.
    pub height_mm: Option<i64>,
    /// Cents, ≥ 0; needs a `currency`.
    pub price: Option<i64>,
    /// Whether it is an *active* ISO 4217 code is checked by the handler against reference data.
    pub currency: Option<CurrencyCode>,
    /// The preferred supplier; the database refuses one that does not exist (`NOT_FOUND`).
    pub supplier_id: Option<Uuid>,
}

/// The validated editable fields, ready to copy into a record.
struct Fields {
    sku: String,
    name: String,
    description: Option<String>,
    category: Option<String>,
    brand: Option<String>,
    dimensions: [Option<i64>; 4],
    price: Option<i64>,
    currency: Option<CurrencyCode>,
    supplier_id: Option<Uuid>,
}

impl ProductInput {
    fn validate(self) -> Result<Fields, WarehouseError> {
        let sku = text::required(&self.sku, "sku", MAX_SKU_CHARS)?;
        let name = text::required(&self.name, "name", MAX_NAME_CHARS)?;
        let description = text::optional(self.description.as_deref(), "description", MAX_DESCRIPTION_CHARS)?;
        let category = text::optional(self.category.as_deref(), "category", MAX_LABEL_CHARS)?;
        let brand = text::optional(self.brand.as_deref(), "brand", MAX_LABEL_CHARS)?;
        let dimensions = [
            text::non_negative(self.weight_grams, "weight_grams")?,
            text::non_negative(self.length_mm, "length_mm")?,
            text::non_negative(self.width_mm, "width_mm")?,
            text::non_negative(self.height_mm, "height_mm")?,
        ];
        let price = text::non_negative(self.price, "price")?;
        if price.is_some() && self.currency.is_none() {
            return Err(WarehouseError::Validation { field: "currency", message: "is required with a price" });
        }
        Ok(Fields {
            sku,
            name,
            description,
            category,
            brand,
            dimensions,
            price,
            currency: self.currency,
            supplier_id: self.supplier_id,
        })
    }
}

impl Product {
    /// A new, active product at version 1; `VALIDATION_ERROR` on the first invalid field.
    pub fn create(input: ProductInput, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        let f = input.validate()?;
        let [weight_grams, length_mm, width_mm, height_mm] = f.dimensions;
        Ok(Self(ProductRecord {
            version: 1,
            id: shared_kernel::new_id(),
            sku: f.sku,
            name: f.name,
            description: f.description,
            category: f.category,
            brand: f.brand,
            weight_grams,
            length_mm,
            width_mm,
            height_mm,
            price: f.price,
            currency: f.currency,
            supplier_id: f.supplier_id,
            status: ProductStatus::Active,
            created_at: now,
            updated_at: now,
        }))
    }

    /// Rebuilds a product from storage without re-validating.
    pub fn restore(record: ProductRecord) -> Self {
        Self(record)
    }

    /// The stored shape, for the adapter to write.
    pub fn record(&self) -> &ProductRecord {
        &self.0
    }

    /// The stored shape, taken out of the product.
    pub fn into_record(self) -> ProductRecord {
        self.0
    }

    /// Replaces every editable field (`PUT`); status and timestamps of creation are kept.
    pub fn update(&self, input: ProductInput, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        let f = input.validate()?;
        let [weight_grams, length_mm, width_mm, height_mm] = f.dimensions;
        Ok(Self(ProductRecord {
            sku: f.sku,
            name: f.name,
            description: f.description,
            category: f.category,
            brand: f.brand,
            weight_grams,
            length_mm,
            width_mm,
            height_mm,
            price: f.price,
            currency: f.currency,
            supplier_id: f.supplier_id,
            updated_at: now,
            // Saved by one UPDATE, which the database's trigger counts the same way.
            version: self.version + 1,
            ..self.0.clone()
        }))
    }

    /// Whether new order lines may name this product.
    pub fn is_orderable(&self) -> bool {
        self.status == ProductStatus::Active
    }

    fn move_to(&self, to: ProductStatus, action: &'static str, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        if self.status == to {
            return Err(WarehouseError::InvalidTransition { entity: "product", from: self.status.as_str(), action });
        }
        Ok(Self(ProductRecord { status: to, updated_at: now, version: self.version + 1, ..self.0.clone() }))
    }

    /// active → discontinued; `INVALID_STATUS_TRANSITION` when already discontinued.
    pub fn discontinue(&self, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        self.move_to(ProductStatus::Discontinued, "discontinue", now)
    }

    /// discontinued → active; `INVALID_STATUS_TRANSITION` when already active.
    pub fn activate(&self, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        self.move_to(ProductStatus::Active, "activate", now)
    }
}

/// Sort orders of `GET /products?sort=`; a leading `-` means descending. Default: newest first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ProductSort {
    /// `-created_at`: newest first (the default).
    #[default]
    NewestFirst,
    /// `created_at`: oldest first.
    OldestFirst,
    /// `name`: by name, A to Z.
    NameAsc,
    /// `-name`: by name, Z to A.
    NameDesc,
    /// `sku`: by SKU, ascending.
    SkuAsc,
    /// `-sku`: by SKU, descending.
    SkuDesc,
    /// `price`: cheapest first.
    PriceAsc,
    /// `-price`: dearest first.
    PriceDesc,
}

impl ProductSort {
    /// One of the names above (trimmed, exact case); anything else is `VALIDATION_ERROR` on `sort`.
    pub fn parse(text: &str) -> Result<Self, WarehouseError> {
        Ok(match text.trim() {
            "-created_at" => Self::NewestFirst,
            "created_at" => Self::OldestFirst,
            "name" => Self::NameAsc,
            "-name" => Self::NameDesc,
            "sku" => Self::SkuAsc,
            "-sku" => Self::SkuDesc,
            "price" => Self::PriceAsc,
            "-price" => Self::PriceDesc,
            _ => {
                return Err(WarehouseError::Validation {
                    field: "sort",
                    message: "must be one of name, sku, price, created_at, optionally prefixed with -",
                })
            }
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_780_000_000 + seconds).expect("valid time")
    }

    pub(crate) fn input() -> ProductInput {
        ProductInput {
            sku: " Wid-001 ".into(),
            name: " Widget ".into(),
            description: Some("  ".into()),
            category: Some("Tools".into()),
            brand: Some("Acme".into()),
            weight_grams: Some(250),
            length_mm: Some(0),
            width_mm: None,
            height_mm: Some(10),
            price: Some(1999),
            currency: Some(CurrencyCode::parse("USD").expect("valid")),
            supplier_id: None,
        }
    }

    #[test]
    fn create_normalises_and_starts_active() {
        let product = Product::create(input(), at(0)).expect("valid");
        assert_eq!(product.sku, "Wid-001", "trimmed, case kept");
        assert_eq!(product.name, "Widget");
        assert_eq!(product.description, None);
        assert_eq!(product.status, ProductStatus::Active);
        assert_eq!((product.created_at, product.updated_at), (at(0), at(0)));
        assert!(product.is_orderable());
        let json = serde_json::to_value(&product).expect("serializes");
        assert_eq!(json["status"], "active");
        assert_eq!(json["currency"], "USD");
        assert_eq!(json["price"], 1999);
    }

    #[test]
    fn create_rejects_each_bad_field() {
        let cases: Vec<(ProductInput, &str)> = vec![
            (ProductInput { sku: " ".into(), ..input() }, "sku"),
            (ProductInput { sku: "s".repeat(65), ..input() }, "sku"),
            (ProductInput { name: String::new(), ..input() }, "name"),
            (ProductInput { name: "n".repeat(256), ..input() }, "name"),
            (ProductInput { category: Some("c".repeat(101)), ..input() }, "category"),
            (ProductInput { brand: Some("b".repeat(101)), ..input() }, "brand"),
            (ProductInput { weight_grams: Some(-1), ..input() }, "weight_grams"),
            (ProductInput { length_mm: Some(-1), ..input() }, "length_mm"),
            (ProductInput { width_mm: Some(-1), ..input() }, "width_mm"),
            (ProductInput { height_mm: Some(-1), ..input() }, "height_mm"),
            (ProductInput { price: Some(-1), ..input() }, "price"),
            (ProductInput { currency: None, ..input() }, "currency"),
        ];
        for (bad, field) in cases {
            assert_eq!(Product::create(bad, at(0)).map_err(|e| e.field()), Err(Some(field)), "{field}");
        }
        assert!(Product::create(ProductInput { sku: "s".repeat(64), ..input() }, at(0)).is_ok());
        assert!(Product::create(ProductInput { price: None, currency: None, ..input() }, at(0)).is_ok());
    }

    #[test]
    fn update_replaces_fields_and_keeps_identity() {
        let product = Product::create(input(), at(0)).expect("valid");
        let updated =
            product.update(ProductInput { name: "Gadget".into(), brand: None, ..input() }, at(5)).expect("valid");
        assert_eq!((updated.id, updated.created_at, updated.status), (product.id, at(0), ProductStatus::Active));
        assert_eq!((updated.name.as_str(), updated.brand.as_deref(), updated.updated_at), ("Gadget", None, at(5)));
        assert!(product.update(ProductInput { name: String::new(), ..input() }, at(5)).is_err());
    }

    #[test]
    fn discontinue_and_activate() {
        let product = Product::create(input(), at(0)).expect("valid");
        let gone = product.discontinue(at(1)).expect("active → discontinued");
        assert_eq!((gone.status, gone.updated_at), (ProductStatus::Discontinued, at(1)));
        assert!(!gone.is_orderable());
        let refused = gone.discontinue(at(2)).expect_err("already discontinued");
        assert_eq!(
            refused,
            WarehouseError::InvalidTransition { entity: "product", from: "discontinued", action: "discontinue" }
        );
        let back = gone.activate(at(3)).expect("discontinued → active");
        assert_eq!(back.status, ProductStatus::Active);
        assert_eq!(
            back.activate(at(4)),
            Err(WarehouseError::InvalidTransition { entity: "product", from: "active", action: "activate" })
        );
    }

    #[test]
    fn status_and_sort_parse() {
        assert_eq!(ProductStatus::parse("Discontinued"), Ok(ProductStatus::Discontinued));
        assert!(ProductStatus::parse("gone").is_err());
        assert_eq!(ProductSort::parse("-price"), Ok(ProductSort::PriceDesc));
        assert_eq!(ProductSort::parse("name"), Ok(ProductSort::NameAsc));
        assert_eq!(ProductSort::default(), ProductSort::NewestFirst);
        assert_eq!(ProductSort::parse("weight").map_err(|e| e.field()), Err(Some("sort")));
    }
}
