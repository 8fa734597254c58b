//! Health of a dependency, as the health endpoints report it.

use serde::Serialize;

/// How well a dependency works, from best to worst: the order is `Healthy < Degraded < Unhealthy`,
/// so the worst of several checks is their maximum. Lower-case on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HealthStatus {
    /// Works as it should.
    Healthy,
    /// Works, but impaired (slow, or running on a fallback).
    Degraded,
    /// Does not work.
    Unhealthy,
}

/// What one dependency's check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthCheck {
    /// The verdict.
    pub status: HealthStatus,
    /// A short human explanation (the backend, a latency, the failure), shown by the health endpoints.
    pub message: String,
}

impl HealthCheck {
    /// A [`HealthStatus::Healthy`] verdict with its explanation.
    pub fn healthy(message: impl Into<String>) -> Self {
        Self { status: HealthStatus::Healthy, message: message.into() }
    }

    /// A [`HealthStatus::Degraded`] verdict with its explanation.
    pub fn degraded(message: impl Into<String>) -> Self {
        Self { status: HealthStatus::Degraded, message: message.into() }
    }

    /// A [`HealthStatus::Unhealthy`] verdict with its explanation.
    pub fn unhealthy(message: impl Into<String>) -> Self {
        Self { status: HealthStatus::Unhealthy, message: message.into() }
    }
}
