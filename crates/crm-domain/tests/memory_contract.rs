//! The contract suites of the customer-management ports (`crm_domain::contract`) against the
//! in-memory adapters.

#![cfg(feature = "contract")]

use crm_domain::contract;
use crm_domain::memory::InMemoryCrm;
use uuid::Uuid;

const REP: Uuid = Uuid::from_u128(7);

#[tokio::test]
async fn in_memory_adapters_pass_every_contract() {
    let store = InMemoryCrm::new();
    contract::customers(&store, &store).await;
    contract::companies(&store).await;
    contract::deals(&store, &store, REP).await;
    contract::interactions(&store, &store, REP).await;
    contract::user_customers(&store, &store, Uuid::from_u128(8), Uuid::from_u128(9)).await;
}
