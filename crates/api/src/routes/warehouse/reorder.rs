//! Reorder suggestions (`purchase_orders:read`; docs/purchasing-and-transfers.md): the records at or
//! below their reorder point with what to order. Drafts made from them are
//! `POST /purchase-orders/from-suggestions` (`purchase_order_lifecycle.rs`).

use actix_web::{web, HttpResponse};
use warehouse_domain::purchasing::SuggestionFilter;

use super::purchase_orders::purchasing;
use super::purchasing_requests::SuggestionQuery;
use super::purchasing_responses::ReorderSuggestionView;
use crate::app::AppState;
use crate::http::{list, ApiError, PageQuery};
use crate::routes::query_params;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/reorder-suggestions").route(web::get().to(reorder_suggestions)));
}

#[utoipa::path(get, path = "/api/v1/warehouse/reorder-suggestions", tag = "purchasing", params(SuggestionQuery),
    responses((status = 200, body = [ReorderSuggestionView], description = "By SKU (case-insensitively), then location; zeros left out; paginated"),
              (status = 400, description = "VALIDATION_ERROR (page, page_size), INVALID_UUID for an id filter")),
    security(("bearer" = [])))]
pub async fn reorder_suggestions(
    state: web::Data<AppState>,
    query: web::Query<SuggestionQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = PageQuery { page: query.page, page_size: query.page_size }.request()?;
    let filter = SuggestionFilter {
        location_id: query_params::uuid("location_id", &query.location_id)?,
        supplier_id: query_params::uuid("supplier_id", &query.supplier_id)?,
    };
    let suggestions = purchasing(&state).reorder_suggestions(filter, page).await?;
    Ok(list(suggestions.map(ReorderSuggestionView::from)))
}
