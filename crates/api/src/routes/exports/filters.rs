//! An export's query string as its list endpoint reads it (the same parsing, rules and codes),
//! turned into the export's statement.

use actix_web::web;
use bulk_data::ExportResource;
use crm_domain::{CustomerFilter, CustomerQuery, CustomerSortField, SortDirection};
use import_postgres::export_queries::{self as q, CustomerExport, ProductExport, SortKey};
use import_postgres::exports::ExportQuery;
use serde::Deserialize;
use utoipa::IntoParams;
use warehouse_domain::{ProductSort, ProductStatus};

use crate::http::ApiError;
use crate::routes::crm::requests::CompanyListQuery;
use crate::routes::warehouse::warehouse_error;

/// The exports that take no filter: only `format`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NoFilters {}

/// `GET /warehouse/products`' filters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProductFilters {
    /// `active` or `discontinued`.
    pub status: Option<String>,
    /// Exact, case-insensitive.
    pub category: Option<String>,
    /// Exact, case-insensitive.
    pub brand: Option<String>,
    /// Case-insensitive substring of SKU or name.
    #[serde(default, deserialize_with = "crate::routes::query_params::bounded_search")]
    #[param(max_length = 200)]
    pub search: Option<String>,
    /// As the product list takes it (default `-created_at`).
    pub sort: Option<String>,
}

fn parse<T: serde::de::DeserializeOwned>(query_string: &str) -> Result<T, ApiError> {
    web::Query::<T>::from_query(query_string)
        .map(web::Query::into_inner)
        .map_err(|e| ApiError::field("query", e.to_string()))
}

fn present(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// `resource`'s statement for `query_string`.
pub fn query_of(resource: ExportResource, query_string: &str) -> Result<ExportQuery, ApiError> {
    Ok(match resource {
        ExportResource::Customers => q::customers(&customers(&parse::<CustomerQuery>(query_string)?)?),
        ExportResource::Companies => q::companies(&parse::<CompanyListQuery>(query_string)?.search),
        ExportResource::Products => q::products(&products(parse::<ProductFilters>(query_string)?)?),
        other => {
            only_format(query_string)?;
            match other {
                ExportResource::Deals => q::deals(),
                ExportResource::Interactions => q::interactions(),
                ExportResource::Orders => q::orders(),
                ExportResource::Inventory => q::inventory(),
                _ => q::stock_movements(),
            }
        }
    })
}

/// Refuses a parameter these exports do not take, rather than export more than was asked for.
fn only_format(query_string: &str) -> Result<(), ApiError> {
    let pairs = parse::<Vec<(String, String)>>(query_string)?;
    match pairs.iter().find(|(name, _)| name != "format") {
        Some((name, _)) => Err(ApiError::field(name.clone(), "is not a filter of this export")),
        None => Ok(()),
    }
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
            (column, *direction == SortDirection::Desc)
        })
        .collect();
    Ok(CustomerExport {
        status: filter.status.map(|s| s.as_str().to_owned()),
        tier: filter.tier.map(|t| t.as_str().to_owned()),
        assigned_to: filter.assigned_to,
        tags: filter.tags,
        customer_type: filter.customer_type.map(|t| t.as_str().to_owned()),
        search: filter.search,
        sort,
    })
}

fn products(filters: ProductFilters) -> Result<ProductExport, ApiError> {
    let status = present(&filters.status).map(ProductStatus::parse).transpose().map_err(|e| warehouse_error(&e))?;
    let sort = present(&filters.sort).map(ProductSort::parse).transpose().map_err(|e| warehouse_error(&e))?;
    let sort: Vec<SortKey> = match sort.unwrap_or_default() {
        ProductSort::NewestFirst => vec![("created_at", true)],
        ProductSort::OldestFirst => vec![("created_at", false)],
        ProductSort::NameAsc => vec![("name", false)],
        ProductSort::NameDesc => vec![("name", true)],
        ProductSort::SkuAsc => vec![("sku", false)],
        ProductSort::SkuDesc => vec![("sku", true)],
        ProductSort::PriceAsc => vec![("price", false)],
        ProductSort::PriceDesc => vec![("price", true)],
    };
    Ok(ProductExport {
        status: status.map(|s| s.as_str().to_owned()),
        category: filters.category,
        brand: filters.brand,
        search: filters.search,
        sort,
    })
}
