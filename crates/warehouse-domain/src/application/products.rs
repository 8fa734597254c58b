//! Products: create, update, delete, discontinue and activate.
//!
//! The product's currency, when it has one, must be active in the reference data ([`Currencies`],
//! checked first); the SKU's uniqueness is the port's (`ALREADY_EXISTS` on `sku`).

use std::sync::Arc;

use shared_kernel::application::{until_settled, Clock};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{active_currency, missing, refused, saved};
use crate::error::WarehouseError;
use crate::product::{Product, ProductInput};
use crate::repository::{Currencies, ProductRepository, RepoError};

const PRODUCT: &str = "product";

/// The product use cases.
#[derive(Clone)]
pub struct ProductService {
    products: Arc<dyn ProductRepository>,
    currencies: Arc<dyn Currencies>,
    clock: Arc<dyn Clock>,
}

impl ProductService {
    /// The service over its ports and clock.
    pub fn new(products: Arc<dyn ProductRepository>, currencies: Arc<dyn Currencies>, clock: Arc<dyn Clock>) -> Self {
        Self { products, currencies, clock }
    }

    /// The input's currency, when it has one, is an active one ([`super::inactive_currency`]).
    async fn check_currency(&self, input: &ProductInput) -> Result<(), RepoError> {
        match input.currency {
            Some(code) => active_currency(&*self.currencies, code).await.map(drop),
            None => Ok(()),
        }
    }

    /// The live product; `NOT_FOUND` ("product not found") otherwise.
    #[tracing::instrument(skip_all, fields(product_id = %id))]
    pub async fn get(&self, id: Uuid) -> Result<Product, RepoError> {
        self.products.get(id).await.map_err(missing(PRODUCT))
    }

    /// A new active product: the currency (active), the input's rules (`VALIDATION_ERROR` naming
    /// the field), then the SKU's uniqueness (`ALREADY_EXISTS`).
    #[tracing::instrument(skip_all, fields(sku = %input.sku))]
    pub async fn create(&self, input: ProductInput) -> Result<Product, RepoError> {
        self.check_currency(&input).await?;
        let product = Product::create(input, self.clock.now()).map_err(refused)?;
        self.products.create(&product).await.map_err(missing(PRODUCT))?;
        Ok(product)
    }

    /// Replaces the editable fields (`PUT`), over the version read; a concurrent change is read
    /// again and the edit applied to it. The currency is checked first, before the product is read.
    #[tracing::instrument(skip_all, fields(product_id = %id))]
    pub async fn update(&self, id: Uuid, input: ProductInput) -> Result<Product, RepoError> {
        self.check_currency(&input).await?;
        let input = &input;
        until_settled(|| async move {
            let product = self.get(id).await?;
            let updated = product.update(input.clone(), self.clock.now()).map_err(refused)?;
            saved(self.products.update(&updated).await, updated, PRODUCT)
        })
        .await
    }

    /// Soft delete; the SKU is free again.
    #[tracing::instrument(skip_all, fields(product_id = %id))]
    pub async fn delete(&self, id: Uuid) -> Result<(), RepoError> {
        self.products.delete(id, self.clock.now()).await.map_err(missing(PRODUCT))
    }

    /// `active → discontinued`; `INVALID_STATUS_TRANSITION` when already discontinued.
    #[tracing::instrument(skip_all, fields(product_id = %id))]
    pub async fn discontinue(&self, id: Uuid) -> Result<Product, RepoError> {
        self.move_status(id, Product::discontinue).await
    }

    /// `discontinued → active`; `INVALID_STATUS_TRANSITION` when already active.
    #[tracing::instrument(skip_all, fields(product_id = %id))]
    pub async fn activate(&self, id: Uuid) -> Result<Product, RepoError> {
        self.move_status(id, Product::activate).await
    }

    /// Moves the status with a compare-and-set on the status it was read in.
    async fn move_status(
        &self,
        id: Uuid,
        operation: fn(&Product, OffsetDateTime) -> Result<Product, WarehouseError>,
    ) -> Result<Product, RepoError> {
        until_settled(|| async move {
            let product = self.get(id).await?;
            let moved = operation(&product, self.clock.now()).map_err(refused)?;
            saved(self.products.change_status(&moved, product.status).await, moved, PRODUCT)
        })
        .await
    }
}
