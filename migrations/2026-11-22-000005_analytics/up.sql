-- Indexes behind the analytics aggregates (docs/analytics.md). Each big aggregate reads
-- one narrow covering index of live rows (an index-only scan) instead of the table; the small partial
-- indexes find the few rows that are then subtracted or evaluated one by one.

-- The deleted rows: few, and the only ones the aggregates must take back out.
CREATE INDEX customers_deleted_idx ON customers (id) WHERE deleted_at IS NOT NULL;
CREATE INDEX deals_deleted_idx ON deals (id) WHERE deleted_at IS NOT NULL;
-- A deleted customer's live deals and interactions, to subtract them without touching the tables.
CREATE INDEX deals_customer_analytics_idx ON deals (customer_id)
    INCLUDE (stage, currency, value, created_at, actual_close_date, assigned_to) WHERE deleted_at IS NULL;
CREATE INDEX interactions_customer_analytics_idx ON interactions (customer_id)
    INCLUDE (type, outcome, duration_sec, follow_up_required) WHERE deleted_at IS NULL;

-- Customers by status and tier with their lifetimes (overview, segmentation, lifecycle).
CREATE INDEX customers_analytics_idx ON customers (status, tier) INCLUDE (created_at, churned_at)
    WHERE deleted_at IS NULL;
-- Active customers per sales rep.
CREATE INDEX customers_active_rep_idx ON customers (assigned_to) WHERE status = 'customer' AND deleted_at IS NULL;

-- The pipeline by stage and currency.
CREATE INDEX deals_stage_analytics_idx ON deals (stage, currency) INCLUDE (value, created_at, actual_close_date)
    WHERE deleted_at IS NULL;
-- Closed deals per sales rep.
CREATE INDEX deals_rep_analytics_idx ON deals (assigned_to, stage, currency)
    INCLUDE (value, created_at, actual_close_date)
    WHERE deleted_at IS NULL AND stage IN ('closed_won', 'closed_lost');
-- Revenue time series: won deals by close date.
CREATE INDEX deals_won_close_date_idx ON deals (actual_close_date) INCLUDE (currency, value, customer_id)
    WHERE stage = 'closed_won' AND deleted_at IS NULL;

-- Stage conversions: history rows counted by move, one deal's rows, and the rare backward moves.
CREATE INDEX deal_stage_history_moves_idx ON deal_stage_history (to_stage, from_stage);
CREATE INDEX deal_stage_history_analytics_idx ON deal_stage_history (deal_id) INCLUDE (from_stage, to_stage, changed_at);
CREATE INDEX deal_stage_history_backward_idx ON deal_stage_history (deal_id)
    WHERE from_stage IS NOT NULL
      AND (CASE to_stage WHEN 'lead' THEN 0 WHEN 'qualified' THEN 1 WHEN 'proposal' THEN 2 WHEN 'negotiation' THEN 3 ELSE 4 END)
       <= (CASE from_stage WHEN 'lead' THEN 0 WHEN 'qualified' THEN 1 WHEN 'proposal' THEN 2 WHEN 'negotiation' THEN 3 ELSE 4 END);

-- Lifecycle rates: the window's status changes, and the rare reactivations among them.
CREATE INDEX customer_status_history_analytics_idx ON customer_status_history (changed_at)
    INCLUDE (customer_id, from_status, to_status);
CREATE INDEX customer_status_history_reactivation_idx ON customer_status_history (changed_at) INCLUDE (customer_id)
    WHERE from_status = 'churned';

-- Interaction insights by type and outcome.
CREATE INDEX interactions_analytics_idx ON interactions (type, outcome) INCLUDE (duration_sec, follow_up_required)
    WHERE deleted_at IS NULL;
