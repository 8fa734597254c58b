//! The order context's questions to the other contexts, answered through their own ports
//! (docs/architecture.md): customers and companies from customer management's repositories,
//! products from the warehouse's, currencies from the reference data. The order service is built
//! over them here.

use std::sync::Arc;

use async_trait::async_trait;
use crm_domain::{CompanyRepository, CustomerRepository};
use order_domain::application::{CatalogProduct, CustomerDirectory, OrderService, ProductCatalog};
use order_domain::OrderRepository;
use postgres_toolkit::DbPool;
use shared_kernel::application::SystemClock;
use shared_kernel::StorageError;
use uuid::Uuid;
use warehouse_domain::{Product, ProductRepository, RepoError as WarehouseRepoError};

/// The order service over PostgreSQL: the order repository given, and the other contexts' ports.
pub fn order_service(
    pool: &DbPool,
    orders: Arc<dyn OrderRepository>,
    products: Arc<dyn ProductRepository>,
) -> OrderService {
    let customers = CrmDirectory {
        customers: Arc::new(crm_postgres::PgCustomerRepository::new(pool.clone())),
        companies: Arc::new(crm_postgres::PgCompanyRepository::new(pool.clone())),
    };
    OrderService::new(
        orders,
        Arc::new(customers),
        Arc::new(WarehouseCatalog { products }),
        Arc::new(crate::reference_ports::ReferenceData::new(pool.clone())),
        Arc::new(SystemClock),
    )
}

/// Customers and companies, as customer management's repositories find them (live ones only).
pub struct CrmDirectory {
    pub customers: Arc<dyn CustomerRepository>,
    pub companies: Arc<dyn CompanyRepository>,
}

#[async_trait]
impl CustomerDirectory for CrmDirectory {
    #[tracing::instrument(name = "orders.customer_exists", skip_all, fields(customer_id = %id))]
    async fn customer_exists(&self, id: Uuid) -> Result<bool, StorageError> {
        Ok(self.customers.find_by_id(id).await?.is_some())
    }

    #[tracing::instrument(name = "orders.company_exists", skip_all, fields(company_id = %id))]
    async fn company_exists(&self, id: Uuid) -> Result<bool, StorageError> {
        Ok(self.companies.find_by_id(id).await?.is_some())
    }
}

/// Products, as the warehouse's repository finds them (live ones only).
pub struct WarehouseCatalog {
    pub products: Arc<dyn ProductRepository>,
}

fn catalog_product(product: &Product) -> CatalogProduct {
    CatalogProduct {
        id: product.id,
        name: product.name.clone(),
        sku: product.sku.clone(),
        orderable: product.is_orderable(),
    }
}

/// A warehouse port's failure as storage: a read refuses nothing, so a refusal is a bug.
fn storage(error: WarehouseRepoError) -> StorageError {
    match error {
        WarehouseRepoError::Storage(error) => error,
        WarehouseRepoError::Refused(refused) => StorageError::Unknown(format!("product read refused: {refused}")),
    }
}

#[async_trait]
impl ProductCatalog for WarehouseCatalog {
    #[tracing::instrument(name = "orders.catalog_product", skip_all, fields(product_id = %id))]
    async fn product(&self, id: Uuid) -> Result<Option<CatalogProduct>, StorageError> {
        match self.products.get(id).await {
            Ok(product) => Ok(Some(catalog_product(&product))),
            Err(WarehouseRepoError::Storage(StorageError::NotFound)) => Ok(None),
            Err(other) => Err(storage(other)),
        }
    }

    #[tracing::instrument(name = "orders.catalog_products", skip_all, fields(count = ids.len()))]
    async fn products(&self, ids: &[Uuid]) -> Result<Vec<CatalogProduct>, StorageError> {
        let products = self.products.get_many(ids).await.map_err(storage)?;
        Ok(products.iter().map(catalog_product).collect())
    }
}
