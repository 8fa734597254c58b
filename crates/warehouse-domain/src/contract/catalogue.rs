//! The promises of [`ProductRepository`] and [`LocationRepository`].

use shared_kernel::{PageRequest, StorageError};

use super::{at, location_input, new_location, new_product, product_input, record_at, unique, Ports};
use crate::error::WarehouseError;
use crate::location::Location;
use crate::product::{Product, ProductInput, ProductStatus};
use crate::repository::{LocationFilter, LocationRepository, ProductFilter, ProductRepository, RepoError};

const NOT_FOUND: RepoError = RepoError::Storage(StorageError::NotFound);
const STALE: RepoError = RepoError::Storage(StorageError::Stale);

/// A product reads back as written, by id, by SKU in any case and among many; a second live product
/// with the same SKU in another case is `Conflict { field: "sku" }`.
pub async fn products_are_created_read_and_unique_by_sku(products: &dyn ProductRepository) {
    let product = new_product(products).await;
    assert_eq!(products.get(product.id).await.as_ref(), Ok(&product));
    assert_eq!(products.get_by_sku(&product.sku.to_lowercase()).await.as_ref(), Ok(&product));
    assert_eq!(products.get_many(&[product.id, uuid::Uuid::nil()]).await, Ok(vec![product.clone()]));
    let twin = Product::create(product_input(&product.sku.to_lowercase()), at(1)).expect("valid");
    assert_eq!(products.create(&twin).await, Err(RepoError::Storage(StorageError::Conflict { field: "sku" })));
    assert_eq!(products.get(twin.id).await, Err(NOT_FOUND));
}

/// `update` and `change_status` write over the version read (and the status expected) only:
/// `Stale` when it moved, `NotFound` when the product is gone.
pub async fn product_saves_are_compare_and_set(products: &dyn ProductRepository) {
    let product = new_product(products).await;
    let renamed = product.update(product_input(&product.sku), at(2)).expect("valid");
    products.update(&renamed).await.expect("update over the version read");
    assert_eq!(products.update(&renamed).await, Err(STALE), "the same edit again is stale");
    let stopped = renamed.discontinue(at(3)).expect("active");
    assert_eq!(products.change_status(&stopped, ProductStatus::Discontinued).await, Err(STALE));
    products.change_status(&stopped, ProductStatus::Active).await.expect("status as read");
    assert_eq!(products.get(product.id).await.map(|p| p.status), Ok(ProductStatus::Discontinued));
    products.delete(product.id, at(4)).await.expect("delete");
    assert_eq!(products.update(&stopped.update(product_input(&product.sku), at(5)).expect("ok")).await, Err(NOT_FOUND));
}

/// A deleted product is invisible everywhere and its SKU is free again; a second delete is `NotFound`.
pub async fn product_delete_is_soft_and_frees_the_sku(products: &dyn ProductRepository) {
    let product = new_product(products).await;
    products.delete(product.id, at(1)).await.expect("delete");
    assert_eq!(products.delete(product.id, at(2)).await, Err(NOT_FOUND));
    assert_eq!(products.get(product.id).await, Err(NOT_FOUND));
    assert_eq!(products.get_by_sku(&product.sku).await, Err(NOT_FOUND));
    assert_eq!(products.get_many(&[product.id]).await, Ok(vec![]));
    let again = Product::create(product_input(&product.sku), at(3)).expect("valid");
    products.create(&again).await.expect("the SKU is free");
}

/// Lists keep only live matches, count them all, and page; categories list each once.
pub async fn products_list_filters_and_pages(products: &dyn ProductRepository) {
    let first = new_product(products).await;
    let category = first.category.clone().expect("the suite's products have one");
    let input = ProductInput { category: Some(category.clone()), ..product_input(&unique("CP")) };
    let second = Product::create(input, at(1)).expect("valid");
    products.create(&second).await.expect("create");
    let filter = ProductFilter { category: Some(category.clone()), ..ProductFilter::default() };
    let page = products.list(&filter, PageRequest::new(Some(1), Some(1)).expect("valid")).await.expect("list");
    assert_eq!((page.total, page.items.len()), (2, 1));
    let search = ProductFilter { search: Some(first.sku.to_lowercase()), ..ProductFilter::default() };
    let found = products.list(&search, PageRequest::new(None, None).expect("valid")).await.expect("list");
    assert_eq!(found.items, vec![first.clone()]);
    assert_eq!(products.categories().await.map(|c| c.iter().filter(|c| **c == category).count()), Ok(1));
    products.delete(first.id, at(2)).await.expect("delete");
    let page = products.list(&filter, PageRequest::new(None, None).expect("valid")).await.expect("list");
    assert_eq!(page.items.iter().map(|p| p.id).collect::<Vec<_>>(), vec![second.id]);
}

/// A location reads back as written, by id and by code in any case; a second live location with the
/// same code is `Conflict { field: "code" }`.
pub async fn locations_are_created_read_and_unique_by_code(locations: &dyn LocationRepository) {
    let location = new_location(locations).await;
    assert_eq!(locations.get(location.id).await.as_ref(), Ok(&location));
    assert_eq!(locations.get_by_code(&location.code.to_lowercase()).await.as_ref(), Ok(&location));
    let twin = Location::create(location_input(&location.code.to_lowercase()), at(1)).expect("valid");
    assert_eq!(locations.create(&twin).await, Err(RepoError::Storage(StorageError::Conflict { field: "code" })));
    let filter = LocationFilter { search: Some(location.code.clone()), ..LocationFilter::default() };
    let page = locations.list(&filter, PageRequest::new(None, None).expect("valid")).await.expect("list");
    assert_eq!(page.items, vec![location]);
}

/// `update` and `change_active` write over the version read (and the flag expected) only.
pub async fn location_saves_are_compare_and_set(locations: &dyn LocationRepository) {
    let location = new_location(locations).await;
    let renamed = location.update(location_input(&location.code), at(2)).expect("valid");
    locations.update(&renamed).await.expect("update");
    assert_eq!(locations.update(&renamed).await, Err(STALE));
    let closed = renamed.deactivate(at(3)).expect("active");
    assert_eq!(locations.change_active(&closed, false).await, Err(STALE));
    locations.change_active(&closed, true).await.expect("as read");
    assert_eq!(locations.get(location.id).await.map(|l| l.is_active), Ok(false));
}

/// A location where a record has stock on hand is not deleted (`LOCATION_HAS_STOCK`); an empty one
/// is, once, and frees its code.
pub async fn location_delete_is_refused_while_it_holds_stock(ports: Ports<'_>) {
    let product = new_product(ports.products).await;
    let location = new_location(ports.locations).await;
    record_at(ports, product.id, location.id, 3).await;
    assert_eq!(
        ports.locations.delete(location.id, at(5)).await,
        Err(RepoError::Refused(WarehouseError::LocationHasStock))
    );
    assert_eq!(ports.locations.quantity_on_hand(location.id).await, Ok(3));
    let empty = new_location(ports.locations).await;
    ports.locations.delete(empty.id, at(5)).await.expect("empty");
    assert_eq!(ports.locations.delete(empty.id, at(6)).await, Err(NOT_FOUND));
    assert_eq!(ports.locations.get_by_code(&empty.code).await, Err(NOT_FOUND));
}
