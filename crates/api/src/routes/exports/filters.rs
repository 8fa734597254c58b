//! An export's query string as its list endpoint reads it (the list's parameter struct and the
//! list's own parsing function: the same rules and codes), turned into the export's statement.
//! Like the lists, an export ignores parameters its list does not take (`page` among them).

use actix_web::web;
use bulk_data::ExportResource;
use crm_domain::{CustomerFilter, CustomerQuery, CustomerSortField, CustomerStatus, SortDirection, Tier};
use import_postgres::export_queries::{
    self as q, CustomerExport, DealExport, InventoryExport, MovementExport, OrderExport, ProductExport, SortKey,
};
use import_postgres::exports::ExportQuery;
use serde::Deserialize;
use utoipa::IntoParams;
use warehouse_domain::ProductSort;

use crate::http::extract::query_string_error;
use crate::http::ApiError;
use crate::routes::crm::deals::deal_filter;
use crate::routes::crm::requests::{CompanyListQuery, DealListQuery};
use crate::routes::orders::queries::order_filter;
use crate::routes::orders::requests::OrderListQuery;
use crate::routes::warehouse::inventory::inventory_filter;
use crate::routes::warehouse::movements::movement_filter;
use crate::routes::warehouse::product_queries::product_filter;
use crate::routes::warehouse::requests::{InventoryListQuery, MovementListQuery, ProductListQuery};

/// The interaction list takes no filter, nor does its export: only `format`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NoFilters {}

fn parse<T: serde::de::DeserializeOwned>(query_string: &str) -> Result<T, ApiError> {
    web::Query::<T>::from_query(query_string).map(web::Query::into_inner).map_err(|e| query_string_error(&e))
}

/// `resource`'s statement for `query_string`.
pub fn query_of(resource: ExportResource, query_string: &str) -> Result<ExportQuery, ApiError> {
    Ok(match resource {
        ExportResource::Customers => q::customers(&customers(&parse::<CustomerQuery>(query_string)?)?),
        ExportResource::Companies => q::companies(&parse::<CompanyListQuery>(query_string)?.search),
        ExportResource::Deals => q::deals(&deals(&parse::<DealListQuery>(query_string)?)?),
        ExportResource::Interactions => q::interactions(),
        ExportResource::Orders => q::orders(&orders(&parse::<OrderListQuery>(query_string)?)?),
        ExportResource::Products => q::products(&products(parse::<ProductListQuery>(query_string)?)?),
        ExportResource::Inventory => q::inventory(&inventory(&parse::<InventoryListQuery>(query_string)?)?),
        ExportResource::StockMovements => q::stock_movements(&movements(&parse::<MovementListQuery>(query_string)?)?),
    })
}

fn customers(query: &CustomerQuery) -> Result<CustomerExport, ApiError> {
    let filter = CustomerFilter::from_query(query).map_err(|e| ApiError::from_domain_field(&e, e.field()))?;
    let sort: Vec<SortKey> = filter
        .sort
        .keys()
        .iter()
        .map(|(field, direction)| {
            let column = match field {
                CustomerSortField::CreatedAt => "created_at",
                CustomerSortField::UpdatedAt => "updated_at",
                CustomerSortField::Name => "name",
                CustomerSortField::Email => "email",
                CustomerSortField::Status => "status_rank",
                CustomerSortField::Tier => "tier_rank",
            };
            if *direction == SortDirection::Desc {
                SortKey::desc(column)
            } else {
                SortKey::asc(column)
            }
        })
        .collect();
    Ok(CustomerExport {
        status_rank: filter.status.map(CustomerStatus::rank),
        tier_rank: filter.tier.map(Tier::rank),
        assigned_to: filter.assigned_to,
        tags: filter.tags,
        customer_type: filter.customer_type.map(|t| t.as_str().to_owned()),
        search: filter.search,
        sort,
    })
}

fn deals(query: &DealListQuery) -> Result<DealExport, ApiError> {
    let filter = deal_filter(query)?;
    Ok(DealExport {
        stage: filter.stage.map(|s| s.as_str().to_owned()),
        customer_id: filter.customer_id,
        assigned_to: filter.assigned_to,
    })
}

fn orders(query: &OrderListQuery) -> Result<OrderExport, ApiError> {
    let filter = order_filter(query)?;
    Ok(OrderExport {
        status: filter.status.map(|s| s.as_str().to_owned()),
        customer_id: filter.customer_id,
        date_from: filter.date_from,
        date_to: filter.date_to,
    })
}

fn products(query: ProductListQuery) -> Result<ProductExport, ApiError> {
    let filter = product_filter(query)?;
    // `warehouse_postgres::products`' `list`: ties by `id` in the sort's direction, prices
    // without a value last.
    let sort = match filter.sort {
        ProductSort::NewestFirst => [SortKey::desc("created_at"), SortKey::desc("id")],
        ProductSort::OldestFirst => [SortKey::asc("created_at"), SortKey::asc("id")],
        ProductSort::NameAsc => [SortKey::asc("name"), SortKey::asc("id")],
        ProductSort::NameDesc => [SortKey::desc("name"), SortKey::desc("id")],
        ProductSort::SkuAsc => [SortKey::asc("sku"), SortKey::asc("id")],
        ProductSort::SkuDesc => [SortKey::desc("sku"), SortKey::desc("id")],
        ProductSort::PriceAsc => [SortKey::asc("price").nulls_last(), SortKey::asc("id")],
        ProductSort::PriceDesc => [SortKey::desc("price").nulls_last(), SortKey::desc("id")],
    };
    Ok(ProductExport {
        status: filter.status.map(|s| s.as_str().to_owned()),
        category: filter.category,
        brand: filter.brand,
        search: filter.search,
        sort: sort.to_vec(),
    })
}

fn inventory(query: &InventoryListQuery) -> Result<InventoryExport, ApiError> {
    let filter = inventory_filter(query)?;
    Ok(InventoryExport { product_id: filter.product_id, location_id: filter.location_id, low_stock: filter.low_stock })
}

fn movements(query: &MovementListQuery) -> Result<MovementExport, ApiError> {
    let filter = movement_filter(query)?;
    Ok(MovementExport {
        movement_type: filter.movement_type.map(|t| t.as_str().to_owned()),
        inventory_id: filter.inventory_id,
        product_id: filter.product_id,
        location_id: filter.location_id,
        reference_id: filter.reference_id,
        date_from: filter.date_from,
        date_to: filter.date_to,
    })
}
