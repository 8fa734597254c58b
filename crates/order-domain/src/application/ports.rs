//! What the order context asks of the others when an order names them: a customer and a company
//! (customer management), a product (the warehouse) and a currency (reference data).
//!
//! The ports are in this context's words and as small as its use cases need; the api crate's wiring
//! answers them through the other contexts' own ports (docs/architecture.md, "The crates"), never
//! from their tables. Each fails only with [`StorageError`]: "no such thing" is an answer
//! (`false`, `None`), not an error.

use async_trait::async_trait;
use shared_kernel::{CurrencyCode, StorageError};
use uuid::Uuid;

/// The customers and companies an order may be for.
#[async_trait]
pub trait CustomerDirectory: Send + Sync {
    /// Whether a live (not deleted) customer has this id.
    async fn customer_exists(&self, id: Uuid) -> Result<bool, StorageError>;

    /// Whether a live (not deleted) company has this id.
    async fn company_exists(&self, id: Uuid) -> Result<bool, StorageError>;
}

/// A product as an order line sees it: what the line copies (name, SKU) and whether new lines may
/// name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogProduct {
    /// The product's id.
    pub id: Uuid,
    /// Its name, copied onto the line as its description.
    pub name: String,
    /// Its stock-keeping unit, copied onto the line.
    pub sku: String,
    /// Whether new order lines may name it (a discontinued product may not).
    pub orderable: bool,
}

/// The products order lines may name.
#[async_trait]
pub trait ProductCatalog: Send + Sync {
    /// The live product with this id; `None` when there is none or it was deleted.
    async fn product(&self, id: Uuid) -> Result<Option<CatalogProduct>, StorageError>;

    /// The live products among `ids`, in one look-up (missing ones are simply absent, order free).
    async fn products(&self, ids: &[Uuid]) -> Result<Vec<CatalogProduct>, StorageError>;
}

/// The currencies orders may be priced in: ISO 4217 codes operators have left active.
#[async_trait]
pub trait CurrencyRegister: Send + Sync {
    /// Whether `currency` is known and active.
    async fn is_active(&self, currency: CurrencyCode) -> Result<bool, StorageError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_object_safe() {
        fn takes(_: Option<(&dyn CustomerDirectory, &dyn ProductCatalog, &dyn CurrencyRegister)>) {}
        takes(None);
    }
}
