//! An import row is all or nothing (docs/imports-and-exports.md, "The runner"): a row the database
//! refuses costs only its own writes, and the batch's other rows land.

use actix_web::test::init_service;
use api::build_app;
use serde_json::Value;
use tally_tests::{login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

use crate::crm_support::{expect, get};
use crate::imports::{finished, queue, upload, IMPORTS};

fn counts(job: &Value) -> (u64, u64, u64, u64) {
    let n = |k: &str| job[k].as_u64().unwrap_or_else(|| panic!("{k} in {job}"));
    (n("processed_rows"), n("created"), n("updated"), n("failed_rows"))
}

#[actix_web::test]
async fn a_row_the_database_refuses_fails_alone_and_the_batch_goes_on() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    // The second row's SKU is taken by the first, in the same batch's transaction: the unique key
    // refuses it, and the rows after it must still land.
    let file = "sku,name\nDUP-1,Bolt\ndup-1,Bolt again\nDUP-2,Nut\nDUP-3,Washer\n";
    let id = queue(&app, upload(&admin, "products", "", "text/csv", file)).await;
    let job = finished(&app, &admin, id).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    assert_eq!(counts(&job), (4, 3, 0, 1), "{job}");
    let errors = expect(&app, 200, get(&format!("{IMPORTS}/{id}/errors"), &admin)).await;
    let rows: Vec<u64> = errors.as_array().expect("errors").iter().filter_map(|e| e["row"].as_u64()).collect();
    assert_eq!(rows, vec![2], "{errors}");
    for sku in ["DUP-1", "DUP-2", "DUP-3"] {
        let found = expect(&app, 200, get(&format!("/api/v1/warehouse/products/sku/{sku}"), &admin)).await;
        assert_eq!(found["sku"], sku);
    }
    t.stop().await;
}
