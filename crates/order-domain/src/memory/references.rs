//! In-memory answers to the order context's questions to the other contexts
//! ([`crate::application::ports`]): who may order, what may be ordered, in which currency.
//! Built with what a test or an example needs; they never fail.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use shared_kernel::{CurrencyCode, StorageError};
use uuid::Uuid;

use crate::application::ports::{CatalogProduct, CurrencyRegister, CustomerDirectory, ProductCatalog};

/// Takes over a lock a panicking holder left: every method changes one set or map in one step.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A [`CustomerDirectory`] of the customers and companies it was given.
#[derive(Debug, Default)]
pub struct InMemoryCustomerDirectory {
    customers: Mutex<HashSet<Uuid>>,
    companies: Mutex<HashSet<Uuid>>,
}

impl InMemoryCustomerDirectory {
    /// A directory that knows no one.
    pub fn new() -> Self {
        Self::default()
    }

    /// The directory, knowing customer `id` too.
    pub fn with_customer(self, id: Uuid) -> Self {
        self.add_customer(id);
        self
    }

    /// The directory, knowing company `id` too.
    pub fn with_company(self, id: Uuid) -> Self {
        lock(&self.companies).insert(id);
        self
    }

    /// Adds customer `id`.
    pub fn add_customer(&self, id: Uuid) {
        lock(&self.customers).insert(id);
    }

    /// Forgets customer `id`, as if it were deleted.
    pub fn remove_customer(&self, id: Uuid) {
        lock(&self.customers).remove(&id);
    }
}

#[async_trait]
impl CustomerDirectory for InMemoryCustomerDirectory {
    async fn customer_exists(&self, id: Uuid) -> Result<bool, StorageError> {
        Ok(lock(&self.customers).contains(&id))
    }

    async fn company_exists(&self, id: Uuid) -> Result<bool, StorageError> {
        Ok(lock(&self.companies).contains(&id))
    }
}

/// A [`ProductCatalog`] of the products it was given.
#[derive(Debug, Default)]
pub struct InMemoryProductCatalog {
    products: Mutex<HashMap<Uuid, CatalogProduct>>,
}

impl InMemoryProductCatalog {
    /// A catalog without products.
    pub fn new() -> Self {
        Self::default()
    }

    /// The catalog, with `product` too.
    pub fn with(self, product: CatalogProduct) -> Self {
        self.put(product);
        self
    }

    /// Adds `product`, or replaces the one with its id (to discontinue it, say).
    pub fn put(&self, product: CatalogProduct) {
        lock(&self.products).insert(product.id, product);
    }
}

#[async_trait]
impl ProductCatalog for InMemoryProductCatalog {
    async fn product(&self, id: Uuid) -> Result<Option<CatalogProduct>, StorageError> {
        Ok(lock(&self.products).get(&id).cloned())
    }

    async fn products(&self, ids: &[Uuid]) -> Result<Vec<CatalogProduct>, StorageError> {
        let products = lock(&self.products);
        let wanted: HashSet<&Uuid> = ids.iter().collect();
        Ok(wanted.into_iter().filter_map(|id| products.get(id).cloned()).collect())
    }
}

/// A [`CurrencyRegister`] in which exactly the codes it was given are active.
#[derive(Debug, Default)]
pub struct InMemoryCurrencyRegister {
    active: Mutex<HashSet<CurrencyCode>>,
}

impl InMemoryCurrencyRegister {
    /// A register with these codes active; a code that is not ISO 4217's shape is skipped.
    pub fn with_active(codes: &[&str]) -> Self {
        let active = codes.iter().filter_map(|code| CurrencyCode::parse(code).ok()).collect();
        Self { active: Mutex::new(active) }
    }

    /// Switches `currency` off, as an operator would.
    pub fn deactivate(&self, currency: CurrencyCode) {
        lock(&self.active).remove(&currency);
    }
}

#[async_trait]
impl CurrencyRegister for InMemoryCurrencyRegister {
    async fn is_active(&self, currency: CurrencyCode) -> Result<bool, StorageError> {
        Ok(lock(&self.active).contains(&currency))
    }
}
