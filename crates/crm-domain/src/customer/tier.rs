//! Tier changes: upgrades only (free < basic < pro < enterprise); anything else is `INVALID_TIER_CHANGE`.

use shared_kernel::EventEnvelope;
use time::OffsetDateTime;

use super::{Customer, CustomerError};
use crate::enums::Tier;
use crate::events::{CustomerTierUpgraded, Topic};

/// An upgrade: save it with `CustomerRepository::save_tier_change`, conditional on `from`, so two
/// concurrent upgrades cannot end in a downgrade.
#[derive(Debug, Clone, PartialEq)]
pub struct TierChange {
    /// The customer at the new tier, `updated_at` set.
    pub customer: Customer,
    /// The tier it was read at, which the conditional update expects.
    pub from: Tier,
    /// `customer.tier_upgraded`.
    pub events: Vec<EventEnvelope>,
}

impl Customer {
    /// Upgrades the customer to `to`; `InvalidTierChange` unless `to` is above the current tier.
    pub fn change_tier(&self, to: Tier, now: OffsetDateTime) -> Result<TierChange, CustomerError> {
        let from = self.tier;
        if to <= from {
            return Err(CustomerError::InvalidTierChange { from, to });
        }
        let upgraded = CustomerTierUpgraded {
            customer_id: self.id,
            from: from.as_str().to_owned(),
            to: to.as_str().to_owned(),
            timestamp: now,
        }
        .to_event(self.id, now);
        Ok(TierChange {
            customer: Customer { tier: to, updated_at: now, ..self.clone() },
            from,
            events: vec![upgraded],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{customer_in, LATER};
    use super::*;
    use crate::enums::CustomerStatus;
    use serde_json::json;
    use shared_kernel::error::{Classified, ErrorKind};

    #[test]
    fn every_pair_of_tiers() {
        let mut upgrades = 0;
        for &from in Tier::ALL {
            let customer = Customer { tier: from, ..customer_in(CustomerStatus::Customer) };
            for &to in Tier::ALL {
                let result = customer.change_tier(to, LATER);
                let from_rank = Tier::ALL.iter().position(|t| *t == from);
                let to_rank = Tier::ALL.iter().position(|t| *t == to);
                if to_rank > from_rank {
                    upgrades += 1;
                    let change = result.unwrap_or_else(|e| panic!("{from} -> {to}: {e}"));
                    assert_eq!((change.from, change.customer.tier, change.customer.updated_at), (from, to, LATER));
                    assert_eq!(change.events.len(), 1);
                    let event = &change.events[0];
                    assert_eq!(event.name, "customer.tier_upgraded");
                    assert_eq!(
                        event.data,
                        json!({"customer_id": customer.id, "from": from.as_str(), "to": to.as_str(),
                               "timestamp": "2026-03-02T09:30:00Z"})
                    );
                } else {
                    let error = result.expect_err("not an upgrade");
                    assert_eq!(error, CustomerError::InvalidTierChange { from, to });
                    assert_eq!((error.code(), error.kind()), ("INVALID_TIER_CHANGE", ErrorKind::Conflict));
                }
            }
        }
        assert_eq!(upgrades, 6);
    }
}
