use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use diesel_async::RunQueryDsl;
use tally_tests::{call, TestApp};

fn codes(body: &serde_json::Value) -> Vec<String> {
    body["data"].as_array().expect("array").iter().map(|c| c["code"].as_str().unwrap_or_default().to_owned()).collect()
}

#[actix_web::test]
async fn full_data_sets_are_served() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    for (path, count) in [
        ("/api/v1/shared/countries", 249),
        ("/api/v1/shared/currencies", reference_data::currencies().len()),
        ("/api/v1/shared/languages", 184),
        ("/api/v1/shared/timezones", reference_data::timezones().len()),
    ] {
        let (status, _, body) = call(&app, TestRequest::get().uri(path)).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(body["status"], "success");
        assert_eq!(codes(&body).len(), count, "{path}");
    }
    assert!(reference_data::currencies().len() >= 150);
    assert!(reference_data::timezones().len() >= 300);
    t.stop().await;
}

#[actix_web::test]
async fn known_entries_and_case_insensitive_codes() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (status, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/countries/ua")).await;
    assert_eq!(status, StatusCode::OK);
    let ua = &body["data"];
    assert_eq!(ua["code"], "UA");
    assert_eq!(ua["name"], "Ukraine");
    assert_eq!(ua["region"], "Europe");
    assert_eq!(ua["currency_code"], "UAH");
    assert_eq!(ua["calling_code"], "+380");
    assert_eq!(ua["local_name"], "Україна");
    assert_eq!(ua["language_code"], "uk");
    assert_eq!(ua["is_active"], true);

    let (_, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/currencies/jpy")).await;
    assert_eq!(body["data"]["decimal_digits"], 0);
    let (_, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/currencies/UAH")).await;
    assert_eq!(body["data"]["symbol"], "₴");
    let (_, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/languages/AR")).await;
    assert_eq!(body["data"]["direction"], "RTL");
    assert_eq!(body["data"]["native_name"], "العربية");
    let (_, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/languages/en")).await;
    assert_eq!(body["data"]["direction"], "LTR");
    let (status, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/timezones/europe/kyiv")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["code"], "Europe/Kyiv");
    assert_eq!(body["data"]["region"], "Europe");
    assert_eq!(body["data"]["utc_offset"], "+02:00");
    assert_eq!(body["data"]["supports_dst"], true);
    let (_, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/timezones/Asia/Tokyo")).await;
    assert_eq!(
        (body["data"]["utc_offset"].as_str(), body["data"]["supports_dst"].as_bool()),
        (Some("+09:00"), Some(false))
    );

    for path in [
        "/api/v1/shared/countries/XX",
        "/api/v1/shared/countries/UKR",
        "/api/v1/shared/currencies/ABC",
        "/api/v1/shared/languages/zz",
        "/api/v1/shared/timezones/Europe/Kiev",
        "/api/v1/shared/timezones/Mars/Olympus",
        "/api/v1/shared/countries/region/Atlantis",
        "/api/v1/shared/timezones/region/Mars",
    ] {
        let (status, _, body) = call(&app, TestRequest::get().uri(path)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(body["error"]["code"], "NOT_FOUND", "{path}");
    }
    t.stop().await;
}

#[actix_web::test]
async fn filters_narrow_the_lists() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/countries?region=europe")).await;
    let europe = codes(&body);
    assert!(europe.contains(&"UA".to_owned()) && europe.contains(&"FR".to_owned()));
    assert!(!europe.contains(&"JP".to_owned()));
    assert!(body["data"].as_array().expect("array").iter().all(|c| c["region"] == "Europe"));
    let (_, _, by_path) = call(&app, TestRequest::get().uri("/api/v1/shared/countries/region/Europe")).await;
    assert_eq!(codes(&by_path), europe);
    let (status, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/countries?region=Atlantis")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["code"], "VALIDATION_ERROR");

    let (_, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/countries?search=ukr")).await;
    assert_eq!(codes(&body), vec!["UA".to_owned()]);
    let (_, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/countries?search=de")).await;
    assert!(codes(&body).contains(&"DE".to_owned()), "search matches codes too");
    let (_, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/countries?search=%25")).await;
    assert!(codes(&body).is_empty(), "wildcards are literal");

    let (_, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/timezones?region=Europe")).await;
    let zones = codes(&body);
    assert!(zones.contains(&"Europe/Kyiv".to_owned()) && zones.iter().all(|z| z.starts_with("Europe/")));
    let (_, _, by_path) = call(&app, TestRequest::get().uri("/api/v1/shared/timezones/region/europe")).await;
    assert_eq!(codes(&by_path), zones);

    let (status, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/countries?is_active=maybe")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["code"], "VALIDATION_ERROR");
    t.stop().await;
}

#[actix_web::test]
async fn operators_deactivate_entries_and_seeding_keeps_their_choice() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    {
        let mut conn = t.state.pool.get().await.expect("conn");
        diesel::sql_query("UPDATE currencies SET is_active = false WHERE code = 'UAH'")
            .execute(&mut conn)
            .await
            .expect("update");
        diesel::sql_query("UPDATE languages SET is_active = false WHERE code = 'la'")
            .execute(&mut conn)
            .await
            .expect("update");
        diesel::sql_query("UPDATE countries SET is_active = false WHERE code = 'AQ'")
            .execute(&mut conn)
            .await
            .expect("update");
    }
    // Start-up seeds again: it must neither duplicate rows nor re-activate.
    postgres_toolkit::reference::seed(&t.state.pool).await.expect("reseed");

    let (_, _, active) = call(&app, TestRequest::get().uri("/api/v1/shared/currencies/active")).await;
    assert!(!codes(&active).contains(&"UAH".to_owned()));
    assert_eq!(codes(&active).len(), reference_data::currencies().len() - 1);
    let (_, _, inactive) = call(&app, TestRequest::get().uri("/api/v1/shared/currencies?is_active=false")).await;
    assert_eq!(codes(&inactive), vec!["UAH".to_owned()]);
    let (_, _, languages) = call(&app, TestRequest::get().uri("/api/v1/shared/languages/active")).await;
    assert_eq!(codes(&languages).len(), 183);
    let (_, _, countries) = call(&app, TestRequest::get().uri("/api/v1/shared/countries?is_active=true")).await;
    assert_eq!(codes(&countries).len(), 248);
    let (status, _, one) = call(&app, TestRequest::get().uri("/api/v1/shared/currencies/uah")).await;
    assert_eq!((status, one["data"]["is_active"].as_bool()), (StatusCode::OK, Some(false)));
    t.stop().await;
}
