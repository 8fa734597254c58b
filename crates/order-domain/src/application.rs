//! The order context's use cases, in one place: [`OrderService`], written against ports, callable
//! without HTTP or a database.
//!
//! | use case | method | refusals (wire codes) |
//! |---|---|---|
//! | create an order (with `items`) | [`OrderService::create`] | `VALIDATION_ERROR`, `INVALID_QUANTITY`, `INVALID_PRICE`, `NOT_FOUND` (product, company), `CUSTOMER_NOT_FOUND` |
//! | confirm | [`OrderService::confirm`] | `ORDER_NOT_FOUND`, `ORDER_EMPTY`, `INVALID_STATUS_TRANSITION` |
//! | process | [`OrderService::process`] | `ORDER_NOT_FOUND`, `INVALID_STATUS_TRANSITION` |
//! | fulfil | [`OrderService::fulfill`] | `ORDER_NOT_FOUND`, `INVALID_STATUS_TRANSITION`, `STOCK_NOT_RESERVED` |
//! | cancel | [`OrderService::cancel`] | `ORDER_NOT_FOUND`, `ORDER_ALREADY_CANCELLED`, `INVALID_STATUS_TRANSITION` |
//! | delete | [`OrderService::delete`] | `ORDER_NOT_FOUND`, `INVALID_STATUS_TRANSITION` |
//! | add a line | [`OrderService::add_line`] | as creation's items, `ORDER_NOT_FOUND`, `ORDER_NOT_EDITABLE`, `CURRENCY_MISMATCH` |
//! | change a line's quantity | [`OrderService::change_line_quantity`] | `ORDER_NOT_FOUND`, `LINE_NOT_FOUND`, `INVALID_QUANTITY`, `ORDER_NOT_EDITABLE` |
//! | remove a line | [`OrderService::remove_line`] | `ORDER_NOT_FOUND`, `LINE_NOT_FOUND`, `ORDER_NOT_EDITABLE` |
//! | fold the warehouse's reply as delivered (once per event) | [`ReplyService::fold_delivered`] | none: a reply that does not apply changes nothing |
//! | fold a reply without an inbox | [`OrderService::fold_reply`] | as above |
//!
//! Reads without a rule (one order, a page) stay direct calls of [`OrderRepository`].
//!
//! Every edit is a compare-and-set: the order is loaded, the aggregate decides, the change is saved
//! `WHERE version = … AND status = …`, and a lost race is decided again on a fresh read
//! (`shared_kernel::application::until_settled`), so the loser gets the precise refusal.
//!
//! # Ports
//!
//! Besides [`OrderRepository`] the service asks the other contexts through ports in this
//! context's words ([`ports`]): [`CustomerDirectory`] (does the customer, the company exist),
//! [`ProductCatalog`] (a product's name, SKU and whether it may be ordered) and
//! [`CurrencyRegister`] (is the currency active). The api crate answers them through customer
//! management's and the warehouse's repository ports and the reference data; feature `memory`
//! adds in-memory ones (`order_domain::memory`).
//!
//! ```
//! # #[cfg(feature = "memory")] {
//! use std::sync::Arc;
//! use order_domain::application::{AddLine, CreateOrder, OrderService};
//! use order_domain::memory::{InMemoryCurrencyRegister, InMemoryCustomerDirectory, InMemoryOrderRepository, InMemoryProductCatalog};
//! use order_domain::application::CatalogProduct;
//! use shared_kernel::application::{block_on, FixedClock};
//! use time::macros::datetime;
//! use uuid::Uuid;
//!
//! let (customer, widget) = (Uuid::from_u128(7), Uuid::from_u128(42));
//! let service = OrderService::new(
//!     Arc::new(InMemoryOrderRepository::new()),
//!     Arc::new(InMemoryCustomerDirectory::new().with_customer(customer)),
//!     Arc::new(InMemoryProductCatalog::new().with(CatalogProduct {
//!         id: widget, name: "Widget".into(), sku: "W-1".into(), orderable: true,
//!     })),
//!     Arc::new(InMemoryCurrencyRegister::with_active(&["USD"])),
//!     Arc::new(FixedClock(datetime!(2026-03-01 10:00 UTC))),
//! );
//! let order = block_on(service.create(CreateOrder {
//!     customer_id: customer, company_id: None, currency: "USD".into(), tax: 0, discount: 0, notes: None, items: None,
//! })).expect("created");
//! let line = AddLine { product_id: widget, quantity: 2, unit_price: 250, currency: "USD".into() };
//! let order = block_on(service.add_line(order.id, line)).expect("added");
//! assert_eq!((order.lines[0].sku.as_deref(), order.total), (Some("W-1"), 500));
//! let order = block_on(service.confirm(order.id)).expect("confirmed");
//! assert_eq!(order.status.as_str(), "confirmed");
//! # }
//! ```
//!
//! [`OrderRepository`]: crate::OrderRepository

mod creation;
mod error;
mod lines;
mod orders;
pub mod ports;
mod replies;
#[cfg(all(test, feature = "memory"))]
mod tests;

pub use creation::{CreateOrder, OrderItem, MAX_ORDER_ITEMS};
pub use error::OrderUseCaseError;
pub use lines::AddLine;
pub use orders::OrderService;
pub use ports::{CatalogProduct, CurrencyRegister, CustomerDirectory, ProductCatalog};
pub use replies::ReplyService;
