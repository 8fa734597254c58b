//! Interaction figures: totals by type and outcome, average duration, pending follow-ups.

use crm_domain::{InteractionType, Outcome};
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::QueryableByName;

use super::{load_rows, ratio};
use postgres_toolkit::{DbError, DbPool};

#[derive(Debug, Clone, PartialEq)]
pub struct InteractionInsights {
    pub total: i64,
    /// Every type, zero when unused.
    pub by_type: Vec<(InteractionType, i64)>,
    /// Every outcome, zero when unused; interactions without an outcome are in no bucket.
    pub by_outcome: Vec<(Outcome, i64)>,
    /// Over ended interactions (the only ones with a duration).
    pub avg_duration_minutes: f64,
    /// Live interactions with `follow_up_required`.
    pub pending_follow_ups: i64,
}

#[derive(QueryableByName)]
struct GroupRow {
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = Nullable<Text>)]
    outcome: Option<String>,
    #[diesel(sql_type = BigInt)]
    interactions: i64,
    #[diesel(sql_type = BigInt)]
    seconds: i64,
    #[diesel(sql_type = BigInt)]
    timed: i64,
    #[diesel(sql_type = BigInt)]
    follow_ups: i64,
}

/// Live interactions by (type, outcome) from `interactions_analytics_idx`, minus those of deleted
/// customers (a few index look-ups): at most 48 rows, folded here.
const INSIGHTS_SQL: &str = "\
SELECT t.kind::text AS kind, t.outcome::text AS outcome, sum(t.interactions)::bigint AS interactions,
       coalesce(sum(t.seconds), 0)::bigint AS seconds, sum(t.timed)::bigint AS timed,
       sum(t.follow_ups)::bigint AS follow_ups
FROM (
    SELECT i.type AS kind, i.outcome, count(*) AS interactions, sum(i.duration_sec) AS seconds,
           count(i.duration_sec) AS timed, count(*) FILTER (WHERE i.follow_up_required) AS follow_ups
    FROM interactions i WHERE i.deleted_at IS NULL
    GROUP BY i.type, i.outcome
    UNION ALL
    SELECT i.type, i.outcome, -count(*), -sum(i.duration_sec), -count(i.duration_sec),
           -count(*) FILTER (WHERE i.follow_up_required)
    FROM customers gone
    CROSS JOIN LATERAL (SELECT i.type, i.outcome, i.duration_sec, i.follow_up_required FROM interactions i
                        WHERE i.customer_id = gone.id AND i.deleted_at IS NULL OFFSET 0) AS i
    WHERE gone.deleted_at IS NOT NULL
    GROUP BY i.type, i.outcome
) AS t
GROUP BY t.kind, t.outcome";

pub async fn interaction_insights(pool: &DbPool) -> Result<InteractionInsights, DbError> {
    let rows: Vec<GroupRow> = load_rows(pool, diesel::sql_query(INSIGHTS_SQL).into_boxed()).await?;
    let mut insights = InteractionInsights {
        total: 0,
        by_type: InteractionType::ALL.iter().map(|t| (*t, 0)).collect(),
        by_outcome: Outcome::ALL.iter().map(|o| (*o, 0)).collect(),
        avg_duration_minutes: 0.0,
        pending_follow_ups: 0,
    };
    let (mut seconds, mut timed) = (0, 0);
    for row in rows {
        insights.total += row.interactions;
        insights.pending_follow_ups += row.follow_ups;
        seconds += row.seconds;
        timed += row.timed;
        if let Some(slot) = insights.by_type.iter_mut().find(|(t, _)| t.as_str() == row.kind) {
            slot.1 += row.interactions;
        }
        if let Some(slot) = insights.by_outcome.iter_mut().find(|(o, _)| Some(o.as_str()) == row.outcome.as_deref()) {
            slot.1 += row.interactions;
        }
    }
    insights.avg_duration_minutes = ratio(seconds as f64 / 60.0, timed);
    Ok(insights)
}
