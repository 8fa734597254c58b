//! Health of a dependency, as the health endpoints report it.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HealthStatus {
    Healthy,
    Degraded,
    Unhealthy,
}

/// What one dependency's check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthCheck {
    pub status: HealthStatus,
    pub message: String,
}

impl HealthCheck {
    pub fn healthy(message: impl Into<String>) -> Self {
        Self { status: HealthStatus::Healthy, message: message.into() }
    }

    pub fn degraded(message: impl Into<String>) -> Self {
        Self { status: HealthStatus::Degraded, message: message.into() }
    }

    pub fn unhealthy(message: impl Into<String>) -> Self {
        Self { status: HealthStatus::Unhealthy, message: message.into() }
    }
}
