//! `GET /customer-mgmt/customers`: filters, search, sort and pagination.

use actix_web::test::init_service;
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{call, login, register, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

use crate::crm_support::{expect, get, id_of, new_customer, post, reject, BASE};

/// Names of a list response, in order.
fn names(body: &Value) -> Vec<String> {
    body["data"].as_array().expect("list").iter().filter_map(|c| c["name"].as_str().map(str::to_owned)).collect()
}

#[actix_web::test]
async fn filters_search_sort_and_pages() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (rep, _) = register(&app, "rep@example.com", "password-1").await;
    let acme = id_of(&expect(&app, 201, post(&format!("{BASE}/companies"), &admin, json!({"name": "Acme"}))).await);
    for body in [
        json!({"name": "Alice", "email": "alice@list.test", "phone": "+14155552671", "tier": "pro",
               "tags": ["vip", "b2b"], "assigned_to": rep}),
        json!({"name": "Bob", "email": "bob@list.test", "status": "prospect", "tags": ["vip"]}),
        json!({"name": "Carol", "email": "carol@list.test", "status": "customer", "tier": "enterprise",
               "tags": ["b2b"], "company_id": acme}),
        json!({"name": "Dan_100%", "email": "dan@list.test", "status": "churned", "tier": "basic"}),
    ] {
        new_customer(&app, &admin, body).await;
    }
    let list = |query: &str| get(&format!("{BASE}/customers?search=list.test&{query}"), &admin);
    let run = |query: &'static str| {
        let request = list(query);
        let app = &app;
        async move {
            let (status, _, body) = call(app, request).await;
            assert_eq!(status.as_u16(), 200, "{query}: {body}");
            body
        }
    };

    let page = run("page_size=2").await;
    assert_eq!(
        page["pagination"],
        json!({"total": 4, "total_exact": true, "page": 1, "page_size": 2, "total_pages": 2})
    );
    assert_eq!(names(&run("page=2&page_size=3").await).len(), 1);
    let filters = [
        // Every status and tier (the filter goes by the generated rank columns).
        ("status=lead", vec!["Alice"]),
        ("status=prospect", vec!["Bob"]),
        ("status=customer", vec!["Carol"]),
        ("status=churned", vec!["Dan_100%"]),
        ("tier=free", vec!["Bob"]),
        ("tier=basic", vec!["Dan_100%"]),
        ("tier=pro", vec!["Alice"]),
        ("tier=enterprise", vec!["Carol"]),
        ("tags=vip&sort=name", vec!["Alice", "Bob"]),
        ("tags=vip,b2b", vec!["Alice"]),
        ("tags=b2b&sort=name", vec!["Alice", "Carol"]),
        ("type=company", vec!["Carol"]),
        ("type=individual&sort=name", vec!["Alice", "Bob", "Dan_100%"]),
        ("sort=name", vec!["Alice", "Bob", "Carol", "Dan_100%"]),
        ("sort=-name", vec!["Dan_100%", "Carol", "Bob", "Alice"]),
        ("sort=email", vec!["Alice", "Bob", "Carol", "Dan_100%"]),
        ("sort=tier", vec!["Bob", "Dan_100%", "Alice", "Carol"]),
        ("sort=-status", vec!["Dan_100%", "Carol", "Bob", "Alice"]),
        ("sort=-created_at,name", vec!["Dan_100%", "Carol", "Bob", "Alice"]),
        ("sort=created_at", vec!["Alice", "Bob", "Carol", "Dan_100%"]),
        ("sort=status,-updated_at", vec!["Alice", "Bob", "Carol", "Dan_100%"]),
    ];
    for (query, expected) in filters {
        assert_eq!(names(&run(query).await), expected, "{query}");
    }
    let by_rep = expect(&app, 200, get(&format!("{BASE}/customers?assigned_to={rep}"), &admin)).await;
    assert_eq!(by_rep.as_array().map(Vec::len), Some(1));
    // Search: case-insensitive over name, email and phone; `%` and `_` are literal.
    for (search, expected) in [
        ("ALI", vec!["Alice"]),
        ("5552671", vec!["Alice"]),
        ("CAROL@LIST", vec!["Carol"]),
        // With an `@` the index is asked for the part before it; the whole text still decides.
        ("ice@list.t", vec!["Alice"]),
        ("e@list.t", vec!["Alice"]),
        ("alice@other", vec![]),
        ("@LIST.test", vec!["Dan_100%", "Carol", "Bob", "Alice"]),
        ("bob@list.test@", vec![]),
        ("_100%", vec!["Dan_100%"]),
        ("%", vec!["Dan_100%"]),
    ] {
        let body =
            expect(&app, 200, get(&format!("{BASE}/customers?search={}", search.replace('%', "%25")), &admin)).await;
        let found: Vec<&str> = body.as_array().expect("list").iter().filter_map(|c| c["name"].as_str()).collect();
        assert_eq!(found, expected, "search {search}");
    }

    for (query, error_code, field) in [
        ("sort=bogus", "VALIDATION_ERROR", "sort"),
        ("sort=id", "VALIDATION_ERROR", "sort"),
        ("sort=name,-name", "VALIDATION_ERROR", "sort"),
        ("status=vip", "VALIDATION_ERROR", "status"),
        ("tier=gold", "VALIDATION_ERROR", "tier"),
        ("type=robot", "VALIDATION_ERROR", "type"),
        ("assigned_to=nope", "INVALID_UUID", "assigned_to"),
        ("page=0", "VALIDATION_ERROR", "page"),
        ("page_size=101", "VALIDATION_ERROR", "page_size"),
    ] {
        let error = reject(&app, 400, error_code, get(&format!("{BASE}/customers?{query}"), &admin)).await;
        assert!(error["details"][field].is_string(), "{query}: {error}");
    }
    t.stop().await;
}

/// A list longer than the counted bound says so: `total` is then a lower bound (one past the bound),
/// and a page asked for beyond the bound is counted to its end; a short list stays exact.
#[actix_web::test]
async fn long_lists_count_up_to_a_bound_and_say_so() {
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    // 10 050 customers, one of them a "vip" (seeded in SQL: ten thousand requests would be slow).
    let mut conn = AsyncPgConnection::establish(&t.db.url).await.expect("connect");
    diesel::sql_query(
        "INSERT INTO customers (id, name, email, tags) \
         SELECT gen_random_uuid(), 'Bulk ' || n, 'bulk' || n || '@bound.test', \
                CASE WHEN n = 7 THEN ARRAY['vip'] ELSE ARRAY[]::text[] END \
         FROM generate_series(1, 10050) AS n",
    )
    .execute(&mut conn)
    .await
    .expect("seed");
    let pagination = |query: &'static str| {
        let request = get(&format!("{BASE}/customers?{query}"), &admin);
        let app = &app;
        async move {
            let (status, _, body) = call(app, request).await;
            assert_eq!(status.as_u16(), 200, "{query}: {body}");
            (body["pagination"].clone(), body["data"].as_array().map(Vec::len))
        }
    };
    assert_eq!(
        pagination("page_size=20").await,
        (json!({"total": 10_001, "total_exact": false, "page": 1, "page_size": 20, "total_pages": 501}), Some(20))
    );
    // Page 110 of 100 ends at item 11 000, past the bound: counted to there, so exact again. (Searched,
    // so that the customer made for the admin's own account, which may appear at any moment, is not in.)
    assert_eq!(
        pagination("search=bound.test&page=110&page_size=100").await,
        (json!({"total": 10_050, "total_exact": true, "page": 110, "page_size": 100, "total_pages": 101}), Some(0))
    );
    assert_eq!(pagination("search=bound.test&page=101&page_size=100").await.1, Some(50));
    assert_eq!(
        pagination("tags=vip").await,
        (json!({"total": 1, "total_exact": true, "page": 1, "page_size": 20, "total_pages": 1}), Some(1))
    );
}

/// A list filtered by one tag (alone or with a status) counts its total from `customer_tags`, which
/// triggers keep, and in the default order takes its page from there too: the total and the pages, in
/// either order, agree after every kind of write that moves a customer in or out of such a list, and
/// the table holds exactly the tags (with the status and creation time) of the non-deleted customers.
#[actix_web::test]
async fn tag_totals_follow_every_write() {
    use crate::commerce_support::scalar;
    use crate::crm_support::{delete, patch, put};
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let mut ids = Vec::new();
    for body in [
        json!({"name": "Ann", "email": "ann@tags.test", "tags": ["vip"]}),
        json!({"name": "Ben", "email": "ben@tags.test", "status": "prospect", "tags": ["vip", "b2b"]}),
        json!({"name": "Cid", "email": "cid@tags.test", "tags": ["b2b"]}),
        json!({"name": "Dee", "email": "dee@tags.test"}),
    ] {
        ids.push(id_of(&new_customer(&app, &admin, body).await));
    }
    let (ann, ben, cid, dee) = (ids[0], ids[1], ids[2], ids[3]);
    let app = &app;
    let admin = admin.as_str();
    // Each list by name, and newest first (the default: a tag's page walks `customer_tags`), which is
    // the reverse, the names being in the order of creation; and newest first a page of one at a time.
    let check = async |expected: &[(&str, &[&str])]| {
        for (query, names_expected) in expected {
            let newest_first: Vec<&str> = names_expected.iter().rev().copied().collect();
            for (order, names_in_order) in [("&sort=name", names_expected.to_vec()), ("", newest_first.clone())] {
                let (status, _, body) = call(app, get(&format!("{BASE}/customers?{query}{order}"), admin)).await;
                assert_eq!(status.as_u16(), 200, "{query}{order}: {body}");
                assert_eq!(names(&body), names_in_order, "{query}{order}");
                assert_eq!(body["pagination"]["total"], json!(names_expected.len()), "{query}{order}: {body}");
                assert_eq!(body["pagination"]["total_exact"], json!(true), "{query}{order}: {body}");
            }
            for (at, name) in newest_first.iter().enumerate() {
                let one = format!("{BASE}/customers?{query}&page={}&page_size=1", at + 1);
                let (_, _, body) = call(app, get(&one, admin)).await;
                assert_eq!(names(&body), [*name], "{query}, page {} of one", at + 1);
            }
        }
        let astray = scalar(
            &t.state.pool,
            "WITH kept AS (SELECT customer_id, tag, status_rank, created_at FROM customer_tags),
                  derived AS (SELECT id, unnest(tags), status_rank, created_at FROM customers WHERE deleted_at IS NULL)
             SELECT (SELECT count(*) FROM (TABLE kept EXCEPT TABLE derived) a)
                  + (SELECT count(*) FROM (TABLE derived EXCEPT TABLE kept) b) AS n",
        )
        .await;
        assert_eq!(astray, 0, "customer_tags differs from the customers' tags");
    };
    check(&[
        ("tags=vip", &["Ann", "Ben"]),
        ("tags=vip&status=lead", &["Ann"]),
        ("tags=vip&status=prospect", &["Ben"]),
        ("tags=b2b&status=lead", &["Cid"]),
        ("tags=vip,b2b", &["Ben"]),
        ("tags=none", &[]),
    ])
    .await;
    expect(app, 200, put(&format!("{BASE}/customers/{cid}/tags"), admin, json!({"tags": ["vip", "eu"]}))).await;
    expect(app, 200, put(&format!("{BASE}/customers/{dee}/tags"), admin, json!({"tags": ["eu"]}))).await;
    expect(app, 200, patch(&format!("{BASE}/customers/{ann}/status"), admin, json!({"status": "prospect"}))).await;
    check(&[
        ("tags=vip", &["Ann", "Ben", "Cid"]),
        ("tags=vip&status=lead", &["Cid"]),
        ("tags=vip&status=prospect", &["Ann", "Ben"]),
        ("tags=b2b", &["Ben"]),
        ("tags=eu", &["Cid", "Dee"]),
    ])
    .await;
    let (status, _, body) = call(app, delete(&format!("{BASE}/customers/{ben}"), admin)).await;
    assert_eq!(status.as_u16(), 204, "{body}");
    expect(app, 200, put(&format!("{BASE}/customers/{ann}/tags"), admin, json!({"tags": []}))).await;
    check(&[("tags=vip", &["Cid"]), ("tags=vip&status=prospect", &[]), ("tags=b2b", &[])]).await;
    t.stop().await;
}

/// Search folds case the way PostgreSQL's `lower()` does, beyond ASCII too (names lower-cased into
/// `search_text`, emails stored lower-cased), and never matches across two fields of `search_text`,
/// even for text holding the character that separates them there; an unfiltered list (counted along
/// its index) is counted exactly.
#[actix_web::test]
async fn search_folds_case_beyond_ascii_and_short_unfiltered_lists_are_exact() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    for body in [
        json!({"name": "Éloïse Ünal", "email": "eloise@fold.test"}),
        json!({"name": "ÅSA ØRSTED", "email": "asa@fold.test", "phone": "+4520123456"}),
        json!({"name": "Zoë", "email": "zoe@FOLD.test"}),
        json!({"name": "Unit\u{1f}Sep", "email": "unit@fold.test"}),
    ] {
        new_customer(&app, &admin, body).await;
    }
    for (search, expected) in [
        ("ÉLOÏ", vec!["Éloïse Ünal"]),
        ("ünal", vec!["Éloïse Ünal"]),
        ("åsa ør", vec!["ÅSA ØRSTED"]),
        ("ZOË", vec!["Zoë"]),
        ("Fold.Test", vec!["Unit\u{1f}Sep", "Zoë", "ÅSA ØRSTED", "Éloïse Ünal"]),
        ("4520", vec!["ÅSA ØRSTED"]),
        ("ÉLOÏSE@", vec![]),
        // Name, email and phone follow each other in `search_text`, U+001F between them.
        ("Ünal\u{1f}eloise", vec![]),
        ("fold.test\u{1f}+4520", vec![]),
        ("ørsted\u{1f}", vec![]),
        ("T\u{1f}s", vec!["Unit\u{1f}Sep"]),
    ] {
        let body = expect(&app, 200, get(&format!("{BASE}/customers?search={}", urlencode(search)), &admin)).await;
        let found: Vec<&str> = body.as_array().expect("list").iter().filter_map(|c| c["name"].as_str()).collect();
        assert_eq!(found, expected, "search {search}");
    }
    let (status, _, body) = call(&app, get(&format!("{BASE}/customers?page_size=100"), &admin)).await;
    assert_eq!(status.as_u16(), 200, "{body}");
    let total = body["pagination"]["total"].as_i64().expect("total");
    // The admin's own customer record may be created at any moment beside the four.
    assert!((4..=5).contains(&total), "{body}");
    assert_eq!(body["pagination"]["total_exact"], json!(true));
    t.stop().await;
}

/// Percent-encodes a query value (UTF-8 bytes outside unreserved ASCII).
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
