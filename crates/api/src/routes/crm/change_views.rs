//! The short answers of partial updates, lifecycle moves and deal statistics:
//! typed, so the published contract describes exactly what is sent.

use std::collections::BTreeMap;

use crm_domain::{Customer, Deal};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::wire::timestamp;

/// `PUT /customers/{id}`: the id, the fields the request changed, `updated_at`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerDetailsChanged {
    pub id: Uuid,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// E.164; `null` when the request cleared it. Absent when unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub phone: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// Which fields a customer update touched.
pub struct ChangedFields {
    pub name: bool,
    pub phone: bool,
    pub tags: bool,
}

impl CustomerDetailsChanged {
    pub fn of(saved: Customer, changed: ChangedFields) -> Self {
        Self {
            id: saved.id,
            name: changed.name.then_some(saved.name),
            phone: changed.phone.then_some(saved.phone),
            tags: changed.tags.then_some(saved.tags),
            updated_at: timestamp(saved.updated_at),
        }
    }
}

/// `qualify` and `convert`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerStatusChanged {
    pub id: Uuid,
    #[schema(example = "prospect")]
    pub status: &'static str,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<&Customer> for CustomerStatusChanged {
    fn from(c: &Customer) -> Self {
        Self { id: c.id, status: c.status.as_str(), updated_at: timestamp(c.updated_at) }
    }
}

/// `churn`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerChurned {
    pub id: Uuid,
    #[schema(example = "churned")]
    pub status: &'static str,
    #[schema(format = DateTime)]
    pub churned_at: Option<String>,
}

impl From<&Customer> for CustomerChurned {
    fn from(c: &Customer) -> Self {
        Self { id: c.id, status: c.status.as_str(), churned_at: c.churned_at.map(timestamp) }
    }
}

/// `PATCH /customers/{id}/status`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerStatusSet {
    pub message: String,
    pub id: Uuid,
    pub status: &'static str,
}

impl From<&Customer> for CustomerStatusSet {
    fn from(c: &Customer) -> Self {
        Self {
            message: format!("customer status changed to {}", c.status.as_str()),
            id: c.id,
            status: c.status.as_str(),
        }
    }
}

/// `assign`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerAssigned {
    pub id: Uuid,
    pub assigned_to: Option<Uuid>,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<&Customer> for CustomerAssigned {
    fn from(c: &Customer) -> Self {
        Self { id: c.id, assigned_to: c.assigned_to, updated_at: timestamp(c.updated_at) }
    }
}

/// `GET /deals/stats/pipeline`: each of the six stages mapped to its count of deals.
#[derive(Debug, Serialize, ToSchema)]
pub struct PipelineStats {
    pub stats: BTreeMap<String, i64>,
}

/// `GET /deals/stats/won`.
#[derive(Debug, Serialize, ToSchema)]
pub struct WonStats {
    pub count: i64,
    /// Cents in `currency` (the reporting currency).
    pub total_value: i64,
    pub currency: String,
    /// Cents won per deal currency.
    pub by_currency: BTreeMap<String, i64>,
}

/// `PUT /deals/{id}/basic-info`: the id, the fields the request changed, `updated_at`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DealBasicInfoChanged {
    pub id: Uuid,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = Date)]
    pub expected_close_date: Option<String>,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl DealBasicInfoChanged {
    pub fn of(saved: &Deal, name_changed: bool, date_changed: bool) -> Self {
        Self {
            id: saved.id,
            name: name_changed.then(|| saved.name.clone()),
            expected_close_date: date_changed.then(|| saved.expected_close_date.to_string()),
            updated_at: timestamp(saved.updated_at),
        }
    }
}

/// `PUT /deals/{id}/value`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DealValueChanged {
    pub id: Uuid,
    /// Cents of `currency`.
    pub value: i64,
    pub currency: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<&Deal> for DealValueChanged {
    fn from(d: &Deal) -> Self {
        Self { id: d.id, value: d.value, currency: d.currency.as_str().to_owned(), updated_at: timestamp(d.updated_at) }
    }
}

/// `PUT /deals/{id}/stage`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DealStageMoved {
    pub id: Uuid,
    pub stage: &'static str,
    pub probability: u8,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<&Deal> for DealStageMoved {
    fn from(d: &Deal) -> Self {
        Self { id: d.id, stage: d.stage.as_str(), probability: d.probability, updated_at: timestamp(d.updated_at) }
    }
}

/// `win` and `lose` (`loss_reason` only on a loss).
#[derive(Debug, Serialize, ToSchema)]
pub struct DealClosed {
    pub id: Uuid,
    pub stage: &'static str,
    pub probability: u8,
    #[schema(format = Date)]
    pub actual_close_date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub loss_reason: Option<Option<String>>,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl DealClosed {
    pub fn won(d: &Deal) -> Self {
        Self::of(d, None)
    }

    pub fn lost(d: &Deal) -> Self {
        Self::of(d, Some(d.loss_reason.clone()))
    }

    fn of(d: &Deal, loss_reason: Option<Option<String>>) -> Self {
        Self {
            id: d.id,
            stage: d.stage.as_str(),
            probability: d.probability,
            actual_close_date: d.actual_close_date.map(|day| day.to_string()),
            loss_reason,
            updated_at: timestamp(d.updated_at),
        }
    }
}
