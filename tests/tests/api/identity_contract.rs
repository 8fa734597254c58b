//! The identity contract suites (`identity_domain::contract`, feature `contract`) against the
//! PostgreSQL adapters: the same functions the in-memory adapters pass in
//! `crates/identity-domain/tests/memory_contract.rs`.

use identity_domain::contract;
use identity_postgres::{
    PgApiKeyRepository, PgContactRepository, PgProfileRepository, PgRoleRepository, PgTokenRevocations,
    PgUserRepository,
};
use tally_tests::TestApp;

#[actix_web::test]
async fn postgres_adapters_pass_the_identity_contracts() {
    let t = TestApp::start().await;
    let pool = t.state.pool.clone();
    let users = PgUserRepository::new(pool.clone());
    contract::users(&users).await;
    contract::roles(&PgRoleRepository::new(pool.clone()), &users).await;
    contract::contacts(&PgContactRepository::new(pool.clone()), &users).await;
    contract::profiles(&PgProfileRepository::new(pool.clone()), &users).await;
    contract::api_keys(&PgApiKeyRepository::new(pool.clone()), &users).await;
    contract::revocations(&PgTokenRevocations::new(pool.clone()), &users).await;
    t.stop().await;
}
