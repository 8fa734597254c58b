//! The identity contract suites (`identity_domain::contract`) against the in-memory adapters.

#![cfg(feature = "contract")]

use identity_domain::contract;
use identity_domain::memory::InMemoryIdentity;

#[tokio::test]
async fn in_memory_adapters_pass_every_contract() {
    let store = InMemoryIdentity::new();
    contract::users(&store).await;
    contract::roles(&store, &store).await;
    contract::contacts(&store, &store).await;
    contract::profiles(&store, &store).await;
    contract::api_keys(&store, &store).await;
    contract::revocations(&store, &store).await;
}
