//! What the warehouse holds for one order, as a state machine.
//!
//! The order flow's events can arrive in any order and more than once (the
//! bus delivers at least once, and a cancellation may overtake its
//! confirmation). One row per order (`order_stock_holds`) serialises them; this
//! type decides what each event does given what the row says.
//!
//! | state \ event | confirmed (reserve) | cancelled (release) | fulfilled (commit) |
//! |---|---|---|---|
//! | none yet | plan it → `Reserved`/`Failed` | `Released` (a late reserve then does nothing) | `Committed` |
//! | `Reserved` | already handled | `Released`, release the stock | `Committed`, commit the stock |
//! | `Failed` | already handled | `Released` (nothing held) | `Committed` (nothing held) |
//! | `Released` | nothing: the order was cancelled | `Released` (idempotent) | stays `Released` |
//! | `Committed` | already handled | `Released` (nothing left to release) | `Committed` (idempotent) |

/// The stored status of an order's hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HoldStatus {
    /// Stock is reserved for every line of the order.
    Reserved,
    /// The reservation was refused for lack of stock.
    Failed,
    /// The order was cancelled and what it held released; final (a late confirmation reserves
    /// nothing, a fulfilment commits nothing).
    Released,
    /// The order was fulfilled and what it held committed.
    Committed,
}

impl HoldStatus {
    /// Every hold status.
    pub const ALL: [HoldStatus; 4] = [Self::Reserved, Self::Failed, Self::Released, Self::Committed];

    /// The stored name (`reserved`, `failed`, `released`, `committed`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reserved => "reserved",
            Self::Failed => "failed",
            Self::Released => "released",
            Self::Committed => "committed",
        }
    }

    /// The status with exactly this stored name; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// An event of the order flow, as the warehouse sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldEvent {
    /// `order.confirmed`: reserve the lines.
    Reserve,
    /// `order.cancelled`: release what is held.
    Release,
    /// `order.fulfilled`: commit what is held.
    Commit,
}

impl HoldEvent {
    /// Every order-flow event.
    pub const ALL: [HoldEvent; 3] = [Self::Reserve, Self::Release, Self::Commit];
}

/// What handling an event must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldDecision {
    /// Plan the reservation; store `Reserved` or `Failed` with its outcome.
    PlanReservation,
    /// The order was released first: reserve nothing, say nothing.
    SkipReleased,
    /// This order's reservation was settled before: nothing to do.
    SkipHandled,
    /// Store `status` and settle (release or commit) what the order holds, which may be nothing.
    Settle {
        /// The hold status to store: `Released` or `Committed`.
        status: HoldStatus,
    },
}

/// The decision for `event` when the order's hold is `current` (`None`: no row yet), per the table
/// above.
pub fn decide(current: Option<HoldStatus>, event: HoldEvent) -> HoldDecision {
    use HoldStatus::{Committed, Released};
    match (event, current) {
        (HoldEvent::Reserve, None) => HoldDecision::PlanReservation,
        (HoldEvent::Reserve, Some(Released)) => HoldDecision::SkipReleased,
        (HoldEvent::Reserve, Some(_)) => HoldDecision::SkipHandled,
        (HoldEvent::Release, _) => HoldDecision::Settle { status: Released },
        // A cancelled order stays released: fulfilment cannot bring the hold back.
        (HoldEvent::Commit, Some(Released)) => HoldDecision::Settle { status: Released },
        (HoldEvent::Commit, _) => HoldDecision::Settle { status: Committed },
    }
}

/// The status a planned reservation leaves: `Reserved` when every line was served, else `Failed`.
pub fn after_planning(reserved: bool) -> HoldStatus {
    if reserved {
        HoldStatus::Reserved
    } else {
        HoldStatus::Failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use HoldDecision::*;
    use HoldStatus::*;

    /// Every state (and "no row yet") against every event.
    #[test]
    fn every_state_against_every_event() {
        let expected = |current: Option<HoldStatus>, event: HoldEvent| match (current, event) {
            (None, HoldEvent::Reserve) => PlanReservation,
            (None, HoldEvent::Release) => Settle { status: Released },
            (None, HoldEvent::Commit) => Settle { status: Committed },
            (Some(Reserved), HoldEvent::Reserve) => SkipHandled,
            (Some(Reserved), HoldEvent::Release) => Settle { status: Released },
            (Some(Reserved), HoldEvent::Commit) => Settle { status: Committed },
            (Some(Failed), HoldEvent::Reserve) => SkipHandled,
            (Some(Failed), HoldEvent::Release) => Settle { status: Released },
            (Some(Failed), HoldEvent::Commit) => Settle { status: Committed },
            (Some(Released), HoldEvent::Reserve) => SkipReleased,
            (Some(Released), HoldEvent::Release) => Settle { status: Released },
            (Some(Released), HoldEvent::Commit) => Settle { status: Released },
            (Some(Committed), HoldEvent::Reserve) => SkipHandled,
            (Some(Committed), HoldEvent::Release) => Settle { status: Released },
            (Some(Committed), HoldEvent::Commit) => Settle { status: Committed },
        };
        let states = std::iter::once(None).chain(HoldStatus::ALL.map(Some));
        let mut cases = 0;
        for current in states {
            for event in HoldEvent::ALL {
                assert_eq!(decide(current, event), expected(current, event), "{current:?} × {event:?}");
                cases += 1;
            }
        }
        assert_eq!(cases, 15);
    }

    #[test]
    fn a_release_before_its_reservation_wins() {
        let HoldDecision::Settle { status } = decide(None, HoldEvent::Release) else { panic!("settles") };
        assert_eq!(decide(Some(status), HoldEvent::Reserve), SkipReleased);
    }

    #[test]
    fn planning_ends_reserved_or_failed_and_names_round_trip() {
        assert_eq!((after_planning(true), after_planning(false)), (Reserved, Failed));
        for status in HoldStatus::ALL {
            assert_eq!(HoldStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(HoldStatus::parse("pending"), None);
    }
}
