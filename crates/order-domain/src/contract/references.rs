//! The contract of the order context's ports to the other contexts ([`crate::application::ports`]):
//! what every adapter of [`CustomerDirectory`], [`ProductCatalog`] and [`CurrencyRegister`] answers.
//! The in-memory ones run it in `crates/order-domain/tests/memory_contract.rs`, the api's wiring
//! over PostgreSQL in `tests/tests/api/order_contract.rs`.

use shared_kernel::CurrencyCode;
use uuid::Uuid;

use crate::application::ports::{CurrencyRegister, CustomerDirectory, ProductCatalog};

/// An id no store holds.
fn unknown() -> Uuid {
    Uuid::from_u128(0x0dd_0dd_0dd)
}

/// A live customer and a live company are found; an unknown id is neither, and a customer's id is
/// not a company's. `customer_id` and `company_id` must name live records of the adapter's store.
pub async fn directory_finds_live_customers_and_companies(
    directory: &dyn CustomerDirectory,
    customer_id: Uuid,
    company_id: Uuid,
) {
    assert_eq!(directory.customer_exists(customer_id).await, Ok(true), "a live customer exists");
    assert_eq!(directory.company_exists(company_id).await, Ok(true), "a live company exists");
    assert_eq!(directory.customer_exists(unknown()).await, Ok(false), "an unknown customer does not");
    assert_eq!(directory.company_exists(unknown()).await, Ok(false), "an unknown company does not");
    assert_eq!(directory.company_exists(customer_id).await, Ok(false), "a customer is not a company");
}

/// A product is found with its name, SKU and whether it may be ordered, alone or among others in
/// one look-up that leaves out unknown ids and names each product once. `orderable` and
/// `discontinued` must name live products of the adapter's store, the second one discontinued.
pub async fn catalog_finds_products_with_what_a_line_copies(
    catalog: &dyn ProductCatalog,
    orderable: Uuid,
    discontinued: Uuid,
) {
    let found = catalog.product(orderable).await.expect("a read").expect("a live product is found");
    assert_eq!(found.id, orderable);
    assert!(found.orderable, "an active product may be ordered");
    assert!(!found.name.is_empty() && !found.sku.is_empty(), "a line copies its name and SKU");
    let retired = catalog.product(discontinued).await.expect("a read").expect("a discontinued product is found");
    assert!(!retired.orderable, "a discontinued product may not be ordered");
    assert_eq!(catalog.product(unknown()).await, Ok(None), "an unknown product is not found");

    let mut many = catalog.products(&[orderable, unknown(), discontinued, orderable]).await.expect("a read");
    many.sort_by_key(|product| product.id);
    let mut expected = vec![found, retired];
    expected.sort_by_key(|product| product.id);
    assert_eq!(many, expected, "each live product once, unknown ids left out");
    assert_eq!(catalog.products(&[]).await, Ok(Vec::new()), "nothing asked, nothing found");
}

/// `USD` is active; a code no register holds is not. The adapter's store must hold `USD` active.
pub async fn register_knows_active_currencies(register: &dyn CurrencyRegister) {
    let usd = CurrencyCode::parse("USD").expect("an ISO 4217 code");
    let unheard = CurrencyCode::parse("QQQ").expect("ISO 4217's shape");
    assert_eq!(register.is_active(usd).await, Ok(true), "USD is active");
    assert_eq!(register.is_active(unheard).await, Ok(false), "an unknown code is not");
}
