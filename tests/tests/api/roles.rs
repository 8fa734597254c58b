//! Roles, permissions, assignments, the permission guard and its cache.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::json;
use tally_tests::{bearer, call, login, register, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

#[actix_web::test]
async fn system_roles_and_permissions_are_seeded() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (status, _, roles) =
        call(&app, TestRequest::get().uri("/api/v1/identity/roles").insert_header(bearer(&admin))).await;
    assert_eq!(status, StatusCode::OK);
    let names: Vec<&str> = roles["data"].as_array().expect("roles").iter().filter_map(|r| r["name"].as_str()).collect();
    for role in ["superadmin", "admin", "manager", "user", "guest"] {
        assert!(names.contains(&role), "{role}");
    }
    // The working role `staff` is seeded but editable; `user` (self-registration) holds nothing.
    for role in roles["data"].as_array().expect("roles") {
        let name = role["name"].as_str().unwrap_or_default();
        assert_eq!(role["is_system"], name != "staff", "{name}");
        let expected_permissions = role["permissions_count"].as_i64().unwrap_or_default();
        assert_eq!(expected_permissions == 0, name == "user", "{name}: {expected_permissions} permissions");
    }
    assert!(names.contains(&"staff"));
    let (_, _, permissions) =
        call(&app, TestRequest::get().uri("/api/v1/identity/permissions").insert_header(bearer(&admin))).await;
    let names: Vec<&str> =
        permissions["data"].as_array().expect("permissions").iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(names.len() >= 29);
    for name in
        ["*:*", "users:create", "users:read", "users:update", "users:delete", "roles:create", "customers:delete"]
    {
        assert!(names.contains(&name), "{name}");
    }
    let (status, _, one) = call(
        &app,
        TestRequest::get().uri("/api/v1/identity/permissions/name/customers:read").insert_header(bearer(&admin)),
    )
    .await;
    assert_eq!(
        (status, one["data"]["resource"].as_str(), one["data"]["action"].as_str()),
        (StatusCode::OK, Some("customers"), Some("read"))
    );
    let (status, _, user_role) =
        call(&app, TestRequest::get().uri("/api/v1/identity/roles/name/staff").insert_header(bearer(&admin))).await;
    assert_eq!(status, StatusCode::OK);
    let id = user_role["data"]["id"].as_str().expect("id");
    let (_, _, granted) = call(
        &app,
        TestRequest::get().uri(&format!("/api/v1/identity/roles/{id}/permissions")).insert_header(bearer(&admin)),
    )
    .await;
    let granted: Vec<&str> =
        granted["data"].as_array().expect("list").iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(
        granted.contains(&"interactions:delete")
            && granted.contains(&"products:read")
            && !granted.contains(&"customers:delete")
    );
    t.stop().await;
}

#[actix_web::test]
async fn role_crud_and_system_role_protection() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let create = |body: serde_json::Value| {
        TestRequest::post().uri("/api/v1/identity/roles").insert_header(bearer(&admin)).set_json(body)
    };
    let (status, _, role) =
        call(&app, create(json!({"name": "auditor", "display_name": "Auditor", "description": "reads events"}))).await;
    assert_eq!(status, StatusCode::CREATED, "{role}");
    assert_eq!(
        (role["data"]["is_system"].as_bool(), role["data"]["permissions_count"].as_i64()),
        (Some(false), Some(0))
    );
    let id = role["data"]["id"].as_str().expect("id").to_owned();
    let (status, _, body) = call(&app, create(json!({"name": "auditor", "display_name": "Again"}))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("ALREADY_EXISTS")));
    for bad in [
        json!({"name": "Auditor", "display_name": "x"}),
        json!({"name": "a", "display_name": "x"}),
        json!({"name": "ok-name", "display_name": ""}),
    ] {
        let (status, _, body) = call(&app, create(bad.clone())).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")),
            "{bad}"
        );
    }
    let put = TestRequest::put().uri(&format!("/api/v1/identity/roles/{id}")).insert_header(bearer(&admin));
    let (status, _, body) = call(&app, put.set_json(json!({"display_name": "Event auditor"}))).await;
    assert_eq!((status, body["data"]["display_name"].as_str()), (StatusCode::OK, Some("Event auditor")));

    let (_, _, manager) =
        call(&app, TestRequest::get().uri("/api/v1/identity/roles/name/manager").insert_header(bearer(&admin))).await;
    let manager_id = manager["data"]["id"].as_str().expect("id").to_owned();
    let rename = TestRequest::put().uri(&format!("/api/v1/identity/roles/{manager_id}")).insert_header(bearer(&admin));
    let (status, _, body) = call(&app, rename.set_json(json!({"name": "boss"}))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("FORBIDDEN")));
    let (status, _, body) = call(
        &app,
        TestRequest::delete().uri(&format!("/api/v1/identity/roles/{manager_id}")).insert_header(bearer(&admin)),
    )
    .await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("FORBIDDEN")));

    let (status, _, _) =
        call(&app, TestRequest::delete().uri(&format!("/api/v1/identity/roles/{id}")).insert_header(bearer(&admin)))
            .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _, _) =
        call(&app, TestRequest::get().uri(&format!("/api/v1/identity/roles/{id}")).insert_header(bearer(&admin))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) =
        call(&app, TestRequest::delete().uri(&format!("/api/v1/identity/roles/{id}")).insert_header(bearer(&admin)))
            .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "deleting twice is 404");
    let (status, _, _) = call(&app, create(json!({"name": "auditor", "display_name": "Reborn"}))).await;
    assert_eq!(status, StatusCode::CREATED, "a deleted role frees its name");
    t.stop().await;
}

#[actix_web::test]
async fn assignments_change_what_a_user_may_do_at_once() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (user_id, token) = register(&app, "audit@example.com", "password-1").await;
    let events = || TestRequest::get().uri("/api/v1/events").insert_header(bearer(&token));
    assert_eq!(call(&app, events()).await.0, StatusCode::FORBIDDEN);

    let (_, _, role) = call(
        &app,
        TestRequest::post()
            .uri("/api/v1/identity/roles")
            .insert_header(bearer(&admin))
            .set_json(json!({"name": "auditor", "display_name": "Auditor"})),
    )
    .await;
    let role_id = role["data"]["id"].as_str().expect("role").to_owned();
    let (_, _, permission) = call(
        &app,
        TestRequest::get().uri("/api/v1/identity/permissions/name/events:read").insert_header(bearer(&admin)),
    )
    .await;
    let permission_id = permission["data"]["id"].as_str().expect("permission").to_owned();
    let grant =
        TestRequest::post().uri(&format!("/api/v1/identity/roles/{role_id}/permissions")).insert_header(bearer(&admin));
    let (status, _, body) = call(&app, grant.set_json(json!({"permission_ids": [permission_id]}))).await;
    assert_eq!((status, body["data"]["granted"].as_i64()), (StatusCode::OK, Some(1)));
    let grant =
        TestRequest::post().uri(&format!("/api/v1/identity/roles/{role_id}/permissions")).insert_header(bearer(&admin));
    let (status, _, _) = call(&app, grant.set_json(json!({"permission_ids": [uuid::Uuid::now_v7()]}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "an unknown permission id");

    let assign =
        TestRequest::post().uri(&format!("/api/v1/identity/users/{user_id}/roles")).insert_header(bearer(&admin));
    let (status, _, body) = call(&app, assign.set_json(json!({"role_id": role_id}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["data"]["message"].is_string());
    assert_eq!(call(&app, events()).await.0, StatusCode::OK, "the same token now may read events");
    let (_, _, held) = call(
        &app,
        TestRequest::get().uri(&format!("/api/v1/identity/users/{user_id}/roles")).insert_header(bearer(&admin)),
    )
    .await;
    let held: Vec<&str> = held["data"].as_array().expect("roles").iter().filter_map(|r| r["name"].as_str()).collect();
    assert!(held.contains(&"auditor") && held.contains(&"user"));

    // Taking the permission away from the role reaches every holder at once.
    let revoke = TestRequest::delete()
        .uri(&format!("/api/v1/identity/roles/{role_id}/permissions/{permission_id}"))
        .insert_header(bearer(&admin));
    assert_eq!(call(&app, revoke).await.0, StatusCode::NO_CONTENT);
    assert_eq!(call(&app, events()).await.0, StatusCode::FORBIDDEN);
    let revoke = TestRequest::delete()
        .uri(&format!("/api/v1/identity/roles/{role_id}/permissions/{permission_id}"))
        .insert_header(bearer(&admin));
    assert_eq!(call(&app, revoke).await.0, StatusCode::NOT_FOUND);

    let unassign = TestRequest::delete()
        .uri(&format!("/api/v1/identity/users/{user_id}/roles/{role_id}"))
        .insert_header(bearer(&admin));
    assert_eq!(call(&app, unassign).await.0, StatusCode::NO_CONTENT);
    let unassign = TestRequest::delete()
        .uri(&format!("/api/v1/identity/users/{user_id}/roles/{role_id}"))
        .insert_header(bearer(&admin));
    assert_eq!(call(&app, unassign).await.0, StatusCode::NOT_FOUND);
    let assign = TestRequest::post()
        .uri(&format!("/api/v1/identity/users/{}/roles", uuid::Uuid::now_v7()))
        .insert_header(bearer(&admin));
    let (status, _, body) = call(&app, assign.set_json(json!({"role_id": role_id}))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::NOT_FOUND, Some("USER_NOT_FOUND")));
    // Role and permission management is for admins only.
    let (status, _, _) =
        call(&app, TestRequest::get().uri("/api/v1/identity/roles").insert_header(bearer(&token))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    t.stop().await;
}

#[actix_web::test]
async fn permission_crud_and_the_wildcard_is_protected() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let create = |body: serde_json::Value| {
        TestRequest::post().uri("/api/v1/identity/permissions").insert_header(bearer(&admin)).set_json(body)
    };
    let (status, _, created) =
        call(&app, create(json!({"resource": "reports", "action": "export", "description": "Export reports"}))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["data"]["name"], "reports:export");
    let id = created["data"]["id"].as_str().expect("id").to_owned();
    let (status, _, body) = call(&app, create(json!({"resource": "reports", "action": "export"}))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("ALREADY_EXISTS")));
    let (status, _, body) = call(&app, create(json!({"resource": "Reports!", "action": "export"}))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")));
    let put = TestRequest::put().uri(&format!("/api/v1/identity/permissions/{id}")).insert_header(bearer(&admin));
    let (status, _, body) = call(&app, put.set_json(json!({"action": "download"}))).await;
    assert_eq!(
        (status, body["data"]["name"].as_str()),
        (StatusCode::OK, Some("reports:download")),
        "the name follows the pair"
    );
    let (status, _, _) = call(
        &app,
        TestRequest::delete().uri(&format!("/api/v1/identity/permissions/{id}")).insert_header(bearer(&admin)),
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _, _) =
        call(&app, TestRequest::get().uri(&format!("/api/v1/identity/permissions/{id}")).insert_header(bearer(&admin)))
            .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, _, wildcard) =
        call(&app, TestRequest::get().uri("/api/v1/identity/permissions/name/*:*").insert_header(bearer(&admin))).await;
    let wildcard_id = wildcard["data"]["id"].as_str().expect("id").to_owned();
    let (status, _, _) = call(
        &app,
        TestRequest::delete().uri(&format!("/api/v1/identity/permissions/{wildcard_id}")).insert_header(bearer(&admin)),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    t.stop().await;
}
