//! PostgreSQL adapters of customer management: the four repositories and the subscriber that turns
//! registered users into customers.

mod customer_rows;
mod deal_rows;
pub(crate) mod errors;
mod interaction_rows;
pub mod schema;

pub mod companies;
pub mod customer_from_user;
pub mod customers;
pub mod deals;
pub mod interactions;
pub mod user_customers;

pub use companies::PgCompanyRepository;
pub use customer_from_user::CustomerFromUser;
pub use customers::PgCustomerRepository;
pub use deals::PgDealRepository;
pub use interactions::PgInteractionRepository;
pub use user_customers::PgUserCustomers;
