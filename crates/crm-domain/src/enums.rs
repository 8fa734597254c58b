//! The closed vocabularies of customer management, each with one wire spelling.
//!
//! Serde uses the snake_case spelling; `parse` accepts the same spelling in any case and with surrounding
//! blanks (query strings), and `as_str` gives it back (database columns, event payloads).

use serde::{Deserialize, Serialize};
use shared_kernel::error::{Classified, ErrorKind};
use std::fmt;
use std::str::FromStr;

/// A text that names no variant of the enum `what`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} '{value}'; expected one of: {}", .expected.join(", "))]
pub struct ParseEnumError {
    /// What was being parsed (`customer status`, `deal stage`).
    pub what: &'static str,
    /// The text as given, trimmed.
    pub value: String,
    /// Every accepted spelling, in declaration order.
    pub expected: &'static [&'static str],
}

impl Classified for ParseEnumError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Validation
    }

    fn code(&self) -> &'static str {
        "VALIDATION_ERROR"
    }
}

macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            const NAMES: &'static [&'static str] = &[$($text),+];

            /// The one wire spelling (snake_case), also used in database columns and event payloads.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The variant's place in [`Self::ALL`], the business order: what a generated
            /// `*_rank` column holds, so lists filter and sort by it on one index.
            pub fn rank(self) -> i16 {
                // At most a handful of variants: the place always fits.
                Self::ALL.iter().position(|v| *v == self).and_then(|at| i16::try_from(at).ok()).unwrap_or(-1)
            }

            /// The variant spelled `text`, in any case and with surrounding blanks; a
            /// [`ParseEnumError`] listing the accepted spellings otherwise.
            pub fn parse(text: &str) -> Result<Self, ParseEnumError> {
                let text = text.trim();
                Self::ALL.iter().copied().find(|v| v.as_str().eq_ignore_ascii_case(text)).ok_or_else(|| {
                    ParseEnumError { what: $what, value: text.to_owned(), expected: Self::NAMES }
                })
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = ParseEnumError;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Self::parse(text)
            }
        }
    };
}

wire_enum! {
    /// Where a customer stands in the lifecycle; the moves are in [`crate::customer::StatusMove`].
    #[derive(Default)]
    CustomerStatus, "customer status" {
        /// A possible buyer not yet qualified; the default for a new customer.
        #[default]
        Lead => "lead",
        /// Qualified: a real prospect of a sale.
        Prospect => "prospect",
        /// Buys from us.
        Customer => "customer",
        /// Stopped buying; `churned_at` says since when.
        Churned => "churned",
    }
}

wire_enum! {
    /// Subscription tier; the order (free < basic < pro < enterprise) is what an upgrade means.
    #[derive(PartialOrd, Ord, Default)]
    Tier, "tier" {
        /// The lowest tier; the default for a new customer.
        #[default]
        Free => "free",
        /// Above free.
        Basic => "basic",
        /// Above basic.
        Pro => "pro",
        /// The highest tier.
        Enterprise => "enterprise",
    }
}

wire_enum! {
    /// Derived, never stored: a customer with a company is a company contact.
    CustomerType, "customer type" {
        /// A customer without a company.
        Individual => "individual",
        /// A contact of a company (`company_id` set).
        Company => "company",
    }
}

wire_enum! {
    /// Pipeline stage of a deal; the probability follows from it.
    DealStage, "deal stage" {
        /// Open: a first opportunity; every deal starts here (10 %).
        Lead => "lead",
        /// Open: the need and budget are confirmed (25 %).
        Qualified => "qualified",
        /// Open: an offer was made (50 %).
        Proposal => "proposal",
        /// Open: terms are being agreed (75 %).
        Negotiation => "negotiation",
        /// Closed, final: the deal was won (100 %).
        ClosedWon => "closed_won",
        /// Closed, final: the deal was lost (0 %).
        ClosedLost => "closed_lost",
    }
}

impl DealStage {
    /// Win probability in percent, fixed per stage.
    pub fn probability(self) -> u8 {
        match self {
            DealStage::Lead => 10,
            DealStage::Qualified => 25,
            DealStage::Proposal => 50,
            DealStage::Negotiation => 75,
            DealStage::ClosedWon => 100,
            DealStage::ClosedLost => 0,
        }
    }

    /// Whether the stage is final (`closed_won` or `closed_lost`): no move, no edit.
    pub fn is_closed(self) -> bool {
        matches!(self, DealStage::ClosedWon | DealStage::ClosedLost)
    }
}

wire_enum! {
    /// Where a deal came from.
    #[derive(Default)]
    DealSource, "deal source" {
        /// The customer came to us; the default.
        #[default]
        Inbound => "inbound",
        /// We reached out to the customer.
        Outbound => "outbound",
        /// Someone recommended us.
        Referral => "referral",
        /// A partner brought the deal.
        Partner => "partner",
    }
}

wire_enum! {
    /// The channel of an interaction (`type` on the wire).
    InteractionType, "interaction type" {
        /// A phone call.
        Call => "call",
        /// An email exchange.
        Email => "email",
        /// A meeting, in person or online.
        Meeting => "meeting",
        /// An internal note about the customer.
        Note => "note",
        /// A text message.
        Sms => "sms",
        /// A chat conversation.
        Chat => "chat",
    }
}

wire_enum! {
    /// Who started an interaction.
    Direction, "direction" {
        /// The customer contacted us.
        Inbound => "inbound",
        /// We contacted the customer.
        Outbound => "outbound",
    }
}

wire_enum! {
    /// How an interaction went.
    Outcome, "outcome" {
        /// It reached its goal.
        Successful => "successful",
        /// It did not reach its goal.
        Failed => "failed",
        /// Nobody answered.
        NoAnswer => "no_answer",
        /// A voicemail was left.
        Voicemail => "voicemail",
        /// The line was busy.
        Busy => "busy",
        /// A next contact was scheduled.
        Scheduled => "scheduled",
        /// The customer is not interested.
        NotInterested => "not_interested",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `as_str`, serde and `parse` must agree on every spelling.
    fn round_trips<T>(all: &[T])
    where
        T: Copy + PartialEq + fmt::Debug + fmt::Display + Serialize + for<'de> Deserialize<'de> + FromStr,
        <T as FromStr>::Err: fmt::Debug,
    {
        for &value in all {
            let text = value.to_string();
            assert_eq!(serde_json::to_value(value).expect("serializes"), serde_json::json!(text));
            assert_eq!(serde_json::from_value::<T>(serde_json::json!(text)).expect("deserializes"), value);
            assert_eq!(format!(" {} ", text.to_uppercase()).parse::<T>().expect("parses"), value);
        }
    }

    #[test]
    fn every_enum_round_trips() {
        round_trips(CustomerStatus::ALL);
        round_trips(Tier::ALL);
        round_trips(CustomerType::ALL);
        round_trips(DealStage::ALL);
        round_trips(DealSource::ALL);
        round_trips(InteractionType::ALL);
        round_trips(Direction::ALL);
        round_trips(Outcome::ALL);
        assert_eq!(Outcome::NoAnswer.as_str(), "no_answer");
        assert_eq!(DealStage::ClosedWon.as_str(), "closed_won");
    }

    #[test]
    fn unknown_text_is_a_validation_error() {
        let error = CustomerStatus::parse("vip").expect_err("unknown");
        assert_eq!(error.code(), "VALIDATION_ERROR");
        assert_eq!(
            error.to_string(),
            "unknown customer status 'vip'; expected one of: lead, prospect, customer, churned"
        );
        assert!(serde_json::from_str::<Tier>("\"gold\"").is_err());
    }

    #[test]
    fn tiers_are_ordered() {
        assert!(Tier::Free < Tier::Basic && Tier::Basic < Tier::Pro && Tier::Pro < Tier::Enterprise);
        assert_eq!(Tier::ALL.iter().max(), Some(&Tier::Enterprise));
    }

    #[test]
    fn probability_table() {
        let table: Vec<(DealStage, u8)> = DealStage::ALL.iter().map(|s| (*s, s.probability())).collect();
        assert_eq!(
            table,
            vec![
                (DealStage::Lead, 10),
                (DealStage::Qualified, 25),
                (DealStage::Proposal, 50),
                (DealStage::Negotiation, 75),
                (DealStage::ClosedWon, 100),
                (DealStage::ClosedLost, 0),
            ]
        );
        let closed: Vec<DealStage> = DealStage::ALL.iter().copied().filter(|s| s.is_closed()).collect();
        assert_eq!(closed, vec![DealStage::ClosedWon, DealStage::ClosedLost]);
    }

    #[test]
    fn defaults_follow_the_spec() {
        assert_eq!(CustomerStatus::default(), CustomerStatus::Lead);
        assert_eq!(Tier::default(), Tier::Free);
        assert_eq!(DealSource::default(), DealSource::Inbound);
    }
}
