//! Products and locations in memory.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest, StorageError};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{contains, page_of, same_text, InMemoryWarehouse, State, Stored};
use crate::error::WarehouseError;
use crate::location::{Location, LocationRecord};
use crate::product::{Product, ProductRecord, ProductSort, ProductStatus};
use crate::repository::{LocationFilter, LocationRepository, ProductFilter, ProductRepository, RepoError};

fn stale_or_missing(live: bool) -> RepoError {
    RepoError::Storage(if live { StorageError::Stale } else { StorageError::NotFound })
}

fn sku_taken(state: &State, sku: &str, except: Uuid) -> bool {
    state.products.iter().any(|(id, p)| *id != except && p.live().is_some_and(|p| same_text(&p.sku, sku)))
}

fn code_taken(state: &State, code: &str, except: Uuid) -> bool {
    state.locations.iter().any(|(id, l)| *id != except && l.live().is_some_and(|l| same_text(&l.code, code)))
}

fn same_opt(value: Option<&str>, wanted: Option<&str>) -> bool {
    match wanted.map(str::trim).filter(|w| !w.is_empty()) {
        None => true,
        Some(wanted) => value.is_some_and(|v| v.to_lowercase() == wanted.to_lowercase()),
    }
}

fn sorted(mut products: Vec<ProductRecord>, sort: ProductSort) -> Vec<ProductRecord> {
    // Ascending keys with the id as tie-breaker; the descending sorts are their reverse.
    match sort {
        ProductSort::NewestFirst | ProductSort::OldestFirst => products.sort_by_key(|p| (p.created_at, p.id)),
        ProductSort::NameAsc | ProductSort::NameDesc => products.sort_by(|a, b| (&a.name, a.id).cmp(&(&b.name, b.id))),
        ProductSort::SkuAsc | ProductSort::SkuDesc => products.sort_by(|a, b| (&a.sku, a.id).cmp(&(&b.sku, b.id))),
        // Products without a price come last both ways.
        ProductSort::PriceAsc => products.sort_by_key(|p| (p.price.is_none(), p.price, p.id)),
        ProductSort::PriceDesc => {
            products.sort_by_key(|p| (p.price.is_none(), std::cmp::Reverse(p.price), std::cmp::Reverse(p.id)))
        }
    }
    if matches!(sort, ProductSort::NewestFirst | ProductSort::NameDesc | ProductSort::SkuDesc) {
        products.reverse();
    }
    products
}

fn distinct(values: impl Iterator<Item = String>) -> Vec<String> {
    let set: std::collections::BTreeSet<String> = values.collect();
    set.into_iter().collect()
}

#[async_trait]
impl ProductRepository for InMemoryWarehouse {
    async fn create(&self, product: &Product) -> Result<(), RepoError> {
        let mut state = self.lock();
        if sku_taken(&state, &product.sku, product.id) || state.products.contains_key(&product.id) {
            return Err(StorageError::Conflict { field: "sku" }.into());
        }
        state.products.insert(product.id, Stored::new(product.record().clone()));
        Ok(())
    }

    async fn get(&self, id: Uuid) -> Result<Product, RepoError> {
        let state = self.lock();
        let record = state.products.get(&id).and_then(Stored::live).ok_or(StorageError::NotFound)?;
        Ok(Product::restore(record.clone()))
    }

    async fn get_many(&self, ids: &[Uuid]) -> Result<Vec<Product>, RepoError> {
        let state = self.lock();
        let live = ids.iter().filter_map(|id| state.products.get(id).and_then(Stored::live));
        Ok(live.map(|p| Product::restore(p.clone())).collect())
    }

    async fn get_by_sku(&self, sku: &str) -> Result<Product, RepoError> {
        let state = self.lock();
        let found = state.products.values().filter_map(Stored::live).find(|p| same_text(&p.sku, sku));
        found.map(|p| Product::restore(p.clone())).ok_or(StorageError::NotFound.into())
    }

    async fn list(&self, filter: &ProductFilter, page: PageRequest) -> Result<Page<Product>, RepoError> {
        let state = self.lock();
        let matching = state.products.values().filter_map(Stored::live).filter(|p| {
            filter.status.is_none_or(|s| p.status == s)
                && same_opt(p.category.as_deref(), filter.category.as_deref())
                && same_opt(p.brand.as_deref(), filter.brand.as_deref())
                && contains(filter.search.as_deref(), &[&p.sku, &p.name])
        });
        let records = sorted(matching.cloned().collect(), filter.sort);
        Ok(page_of(records.into_iter().map(Product::restore).collect(), page))
    }

    async fn update(&self, product: &Product) -> Result<(), RepoError> {
        let mut state = self.lock();
        let live = state.products.get(&product.id).and_then(Stored::live).map(|p| p.version);
        if live != Some(product.version - 1) {
            return Err(stale_or_missing(live.is_some()));
        }
        if sku_taken(&state, &product.sku, product.id) {
            return Err(StorageError::Conflict { field: "sku" }.into());
        }
        state.products.insert(product.id, Stored::new(product.record().clone()));
        Ok(())
    }

    async fn change_status(&self, product: &Product, expected: ProductStatus) -> Result<(), RepoError> {
        let mut state = self.lock();
        let Some(stored) = state.products.get_mut(&product.id).filter(|p| p.deleted_at.is_none()) else {
            return Err(StorageError::NotFound.into());
        };
        if stored.record.status != expected || stored.record.version != product.version - 1 {
            return Err(StorageError::Stale.into());
        }
        stored.record.status = product.status;
        stored.record.updated_at = product.updated_at;
        stored.record.version = product.version;
        Ok(())
    }

    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError> {
        let mut state = self.lock();
        let stored = state.products.get_mut(&id).filter(|p| p.deleted_at.is_none()).ok_or(StorageError::NotFound)?;
        stored.deleted_at = Some(now);
        stored.record.updated_at = now;
        Ok(())
    }

    async fn categories(&self) -> Result<Vec<String>, RepoError> {
        let state = self.lock();
        Ok(distinct(state.products.values().filter_map(Stored::live).filter_map(|p| p.category.clone())))
    }

    async fn brands(&self) -> Result<Vec<String>, RepoError> {
        let state = self.lock();
        Ok(distinct(state.products.values().filter_map(Stored::live).filter_map(|p| p.brand.clone())))
    }
}

#[async_trait]
impl LocationRepository for InMemoryWarehouse {
    async fn create(&self, location: &Location) -> Result<(), RepoError> {
        let mut state = self.lock();
        if code_taken(&state, &location.code, location.id) || state.locations.contains_key(&location.id) {
            return Err(StorageError::Conflict { field: "code" }.into());
        }
        state.locations.insert(location.id, Stored::new(location.record().clone()));
        Ok(())
    }

    async fn get(&self, id: Uuid) -> Result<Location, RepoError> {
        let state = self.lock();
        let record = state.locations.get(&id).and_then(Stored::live).ok_or(StorageError::NotFound)?;
        Ok(Location::restore(record.clone()))
    }

    async fn get_by_code(&self, code: &str) -> Result<Location, RepoError> {
        let state = self.lock();
        let found = state.locations.values().filter_map(Stored::live).find(|l| same_text(&l.code, code));
        found.map(|l| Location::restore(l.clone())).ok_or(StorageError::NotFound.into())
    }

    async fn list(&self, filter: &LocationFilter, page: PageRequest) -> Result<Page<Location>, RepoError> {
        let state = self.lock();
        let mut records: Vec<LocationRecord> = state
            .locations
            .values()
            .filter_map(Stored::live)
            .filter(|l| {
                filter.location_type.is_none_or(|t| l.location_type == t)
                    && filter.country.is_none_or(|c| l.country == c)
                    && filter.is_active.is_none_or(|a| l.is_active == a)
                    && contains(filter.search.as_deref(), &[&l.code, &l.name])
            })
            .cloned()
            .collect();
        records.sort_by_key(|l| std::cmp::Reverse((l.created_at, l.id)));
        Ok(page_of(records.into_iter().map(Location::restore).collect(), page))
    }

    async fn update(&self, location: &Location) -> Result<(), RepoError> {
        let mut state = self.lock();
        let live = state.locations.get(&location.id).and_then(Stored::live).map(|l| l.version);
        if live != Some(location.version - 1) {
            return Err(stale_or_missing(live.is_some()));
        }
        if code_taken(&state, &location.code, location.id) {
            return Err(StorageError::Conflict { field: "code" }.into());
        }
        state.locations.insert(location.id, Stored::new(location.record().clone()));
        Ok(())
    }

    async fn change_active(&self, location: &Location, expected: bool) -> Result<(), RepoError> {
        let mut state = self.lock();
        let Some(stored) = state.locations.get_mut(&location.id).filter(|l| l.deleted_at.is_none()) else {
            return Err(StorageError::NotFound.into());
        };
        if stored.record.is_active != expected || stored.record.version != location.version - 1 {
            return Err(StorageError::Stale.into());
        }
        stored.record.is_active = location.is_active;
        stored.record.updated_at = location.updated_at;
        stored.record.version = location.version;
        Ok(())
    }

    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError> {
        let mut state = self.lock();
        if state.locations.get(&id).and_then(Stored::live).is_none() {
            return Err(StorageError::NotFound.into());
        }
        let stocked =
            state.inventory.values().filter_map(Stored::live).any(|r| r.location_id == id && r.quantity_on_hand > 0);
        if stocked {
            return Err(WarehouseError::LocationHasStock.into());
        }
        if let Some(stored) = state.locations.get_mut(&id) {
            stored.deleted_at = Some(now);
            stored.record.updated_at = now;
        }
        Ok(())
    }

    async fn quantity_on_hand(&self, id: Uuid) -> Result<i64, RepoError> {
        let state = self.lock();
        let records = state.inventory.values().filter_map(Stored::live).filter(|r| r.location_id == id);
        Ok(records.fold(0i64, |sum, r| sum.saturating_add(r.quantity_on_hand)))
    }
}
