//! The contract suites of the customer-management ports (`crm_domain::contract`, feature `contract`)
//! against the PostgreSQL adapters: the same functions the in-memory adapters pass in
//! `crates/crm-domain/tests/memory_contract.rs`.

use crm_domain::contract;
use crm_postgres::{
    PgCompanyRepository, PgCustomerRepository, PgDealRepository, PgInteractionRepository, PgUserCustomers,
};
use identity_domain::ports::NewUser;
use tally_tests::{TestApp, ADMIN_EMAIL};
use uuid::Uuid;

/// A user with no customer: written through identity's port without its `user.registered` event, so
/// the registration subscriber does not make one.
async fn user_without_customer(t: &TestApp) -> Uuid {
    let id = Uuid::now_v7();
    let user = NewUser {
        id,
        email: format!("contract-user-{}@example.com", id.simple()),
        name: "Contract User".into(),
        password_hash: "not-a-hash".into(),
    };
    t.state.identity.users.create(user, vec![]).await.expect("create user").id
}

#[actix_web::test]
async fn postgres_adapters_pass_the_crm_contracts() {
    let t = TestApp::start().await;
    let pool = t.state.pool.clone();
    let admin = t.state.identity.users.find_by_email(ADMIN_EMAIL).await.expect("find").expect("the admin").id;
    let (customers, companies) = (PgCustomerRepository::new(pool.clone()), PgCompanyRepository::new(pool.clone()));
    contract::customers(&customers, &companies).await;
    contract::companies(&companies).await;
    contract::deals(&PgDealRepository::new(pool.clone()), &customers, admin).await;
    contract::interactions(&PgInteractionRepository::new(pool.clone()), &customers, admin).await;
    let (new_user, linked_user) = (user_without_customer(&t).await, user_without_customer(&t).await);
    contract::user_customers(&PgUserCustomers::new(pool.clone()), &customers, new_user, linked_user).await;
    t.stop().await;
}
