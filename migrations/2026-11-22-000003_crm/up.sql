-- Customer management: companies, customers, deals, interactions, and the status/stage histories
-- analytics reads. Every list filter and sort has an index; soft-deleted rows are left out of them.

CREATE TABLE companies (
    id         UUID         PRIMARY KEY,
    name       VARCHAR(255) NOT NULL CHECK (btrim(name) <> ''),
    website    VARCHAR(500) CHECK (website ~* '^https?://'),
    industry   VARCHAR(100),
    created_at TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ  NOT NULL DEFAULT now(),
    deleted_at TIMESTAMPTZ
);
CREATE INDEX companies_list_idx ON companies (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX companies_name_trgm_idx ON companies USING gin (name gin_trgm_ops) WHERE deleted_at IS NULL;

CREATE TABLE customers (
    id          UUID         PRIMARY KEY,
    user_id     UUID         REFERENCES users (id),
    company_id  UUID         REFERENCES companies (id),
    name        VARCHAR(255) NOT NULL CHECK (btrim(name) <> ''),
    -- Stored lower-cased, so uniqueness and look-ups are case-insensitive.
    email       VARCHAR(255) NOT NULL CHECK (email = lower(btrim(email)) AND email <> ''),
    -- E.164, validated by the API.
    phone       VARCHAR(50)  CHECK (phone ~ '^\+[1-9][0-9]{1,14}$'),
    status      VARCHAR(16)  NOT NULL DEFAULT 'lead' CHECK (status IN ('lead', 'prospect', 'customer', 'churned')),
    tier        VARCHAR(16)  NOT NULL DEFAULT 'free' CHECK (tier IN ('free', 'basic', 'pro', 'enterprise')),
    -- Lifecycle and tier order, so `sort=status` / `sort=tier` follow the business order, not the alphabet.
    status_rank SMALLINT     GENERATED ALWAYS AS (CASE status WHEN 'lead' THEN 0 WHEN 'prospect' THEN 1
                                                  WHEN 'customer' THEN 2 ELSE 3 END) STORED,
    tier_rank   SMALLINT     GENERATED ALWAYS AS (CASE tier WHEN 'free' THEN 0 WHEN 'basic' THEN 1
                                                  WHEN 'pro' THEN 2 ELSE 3 END) STORED,
    source      VARCHAR(100),
    assigned_to UUID         REFERENCES users (id),
    tags        TEXT[]       NOT NULL DEFAULT '{}' CHECK (cardinality(tags) <= 50),
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    churned_at  TIMESTAMPTZ,
    deleted_at  TIMESTAMPTZ,
    CONSTRAINT customers_user_or_company_check CHECK (NOT (user_id IS NOT NULL AND company_id IS NOT NULL)),
    CONSTRAINT customers_churned_at_check CHECK ((status = 'churned') = (churned_at IS NOT NULL))
);
-- Email: unique globally without a company, per company with one; among non-deleted rows.
CREATE UNIQUE INDEX customers_email_key ON customers (lower(email)) WHERE company_id IS NULL AND deleted_at IS NULL;
CREATE UNIQUE INDEX customers_company_email_key ON customers (company_id, lower(email))
    WHERE company_id IS NOT NULL AND deleted_at IS NULL;
-- One customer per user account (the registration subscriber relies on it).
CREATE UNIQUE INDEX customers_user_key ON customers (user_id) WHERE user_id IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX customers_list_idx ON customers (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX customers_updated_idx ON customers (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX customers_name_idx ON customers (name, id) WHERE deleted_at IS NULL;
CREATE INDEX customers_email_sort_idx ON customers (email, id) WHERE deleted_at IS NULL;
CREATE INDEX customers_status_idx ON customers (status_rank, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX customers_tier_idx ON customers (tier_rank, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX customers_assigned_idx ON customers (assigned_to, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX customers_company_idx ON customers (company_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX customers_tags_idx ON customers USING gin (tags) WHERE deleted_at IS NULL;
CREATE INDEX customers_name_trgm_idx ON customers USING gin (name gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX customers_email_trgm_idx ON customers USING gin (email gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX customers_phone_trgm_idx ON customers USING gin (phone gin_trgm_ops) WHERE deleted_at IS NULL;

CREATE TABLE customer_status_history (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    customer_id UUID        NOT NULL REFERENCES customers (id),
    -- NULL for the row written at creation.
    from_status VARCHAR(16) CHECK (from_status IN ('lead', 'prospect', 'customer', 'churned')),
    to_status   VARCHAR(16) NOT NULL CHECK (to_status IN ('lead', 'prospect', 'customer', 'churned')),
    reason      TEXT,
    changed_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX customer_status_history_customer_idx ON customer_status_history (customer_id, changed_at);
CREATE INDEX customer_status_history_window_idx ON customer_status_history (changed_at, to_status);

CREATE TABLE deals (
    id                  UUID         PRIMARY KEY,
    customer_id         UUID         NOT NULL REFERENCES customers (id),
    assigned_to         UUID         NOT NULL REFERENCES users (id),
    name                VARCHAR(200) NOT NULL CHECK (btrim(name) <> ''),
    value               BIGINT       NOT NULL CHECK (value > 0),
    currency            CHAR(3)      NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$'),
    stage               VARCHAR(16)  NOT NULL DEFAULT 'lead'
                        CHECK (stage IN ('lead', 'qualified', 'proposal', 'negotiation', 'closed_won', 'closed_lost')),
    probability         SMALLINT     NOT NULL CHECK (probability BETWEEN 0 AND 100),
    source              VARCHAR(16)  NOT NULL DEFAULT 'inbound'
                        CHECK (source IN ('inbound', 'outbound', 'referral', 'partner')),
    expected_close_date DATE         NOT NULL,
    actual_close_date   DATE,
    loss_reason         TEXT,
    tags                TEXT[]       NOT NULL DEFAULT '{}' CHECK (cardinality(tags) <= 50),
    created_at          TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at          TIMESTAMPTZ  NOT NULL DEFAULT now(),
    deleted_at          TIMESTAMPTZ,
    -- Probability always follows the stage.
    CONSTRAINT deals_probability_stage_check CHECK (probability = CASE stage
        WHEN 'lead' THEN 10 WHEN 'qualified' THEN 25 WHEN 'proposal' THEN 50
        WHEN 'negotiation' THEN 75 WHEN 'closed_won' THEN 100 ELSE 0 END),
    CONSTRAINT deals_closed_check CHECK ((stage IN ('closed_won', 'closed_lost')) = (actual_close_date IS NOT NULL)),
    CONSTRAINT deals_loss_reason_check CHECK (loss_reason IS NULL OR stage = 'closed_lost')
);
CREATE INDEX deals_list_idx ON deals (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX deals_stage_idx ON deals (stage, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX deals_customer_idx ON deals (customer_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX deals_assigned_idx ON deals (assigned_to, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX deals_won_idx ON deals (currency, customer_id) INCLUDE (value)
    WHERE stage = 'closed_won' AND deleted_at IS NULL;

CREATE TABLE deal_stage_history (
    id         BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    deal_id    UUID        NOT NULL REFERENCES deals (id),
    -- NULL for the row written at creation.
    from_stage VARCHAR(16) CHECK (from_stage IN ('lead', 'qualified', 'proposal', 'negotiation', 'closed_won', 'closed_lost')),
    to_stage   VARCHAR(16) NOT NULL
               CHECK (to_stage IN ('lead', 'qualified', 'proposal', 'negotiation', 'closed_won', 'closed_lost')),
    changed_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX deal_stage_history_deal_idx ON deal_stage_history (deal_id, changed_at);
CREATE INDEX deal_stage_history_window_idx ON deal_stage_history (changed_at, to_stage);

CREATE TABLE interactions (
    id                 UUID         PRIMARY KEY,
    customer_id        UUID         NOT NULL REFERENCES customers (id),
    company_id         UUID         REFERENCES companies (id),
    type               VARCHAR(16)  NOT NULL CHECK (type IN ('call', 'email', 'meeting', 'note', 'sms', 'chat')),
    direction          VARCHAR(16)  NOT NULL CHECK (direction IN ('inbound', 'outbound')),
    outcome            VARCHAR(16)  CHECK (outcome IN ('successful', 'failed', 'no_answer', 'voicemail', 'busy',
                                                       'scheduled', 'not_interested')),
    subject            VARCHAR(255) NOT NULL CHECK (btrim(subject) <> ''),
    description        TEXT,
    created_by         UUID         NOT NULL REFERENCES users (id),
    -- User ids; existence is checked in the transaction that writes them (arrays cannot carry FKs).
    attendees          UUID[]       NOT NULL DEFAULT '{}',
    started_at         TIMESTAMPTZ  NOT NULL,
    ended_at           TIMESTAMPTZ,
    duration_sec       BIGINT       CHECK (duration_sec >= 0),
    follow_up_required BOOLEAN      NOT NULL DEFAULT FALSE,
    follow_up_date     TIMESTAMPTZ,
    follow_up_notes    TEXT,
    created_at         TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at         TIMESTAMPTZ  NOT NULL DEFAULT now(),
    deleted_at         TIMESTAMPTZ,
    CONSTRAINT interactions_ended_check CHECK ((ended_at IS NULL) = (duration_sec IS NULL)),
    CONSTRAINT interactions_order_check CHECK (ended_at IS NULL OR ended_at >= started_at)
);
CREATE INDEX interactions_list_idx ON interactions (started_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX interactions_customer_idx ON interactions (customer_id, started_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX interactions_company_idx ON interactions (company_id, started_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX interactions_type_idx ON interactions (type, started_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX interactions_created_by_idx ON interactions (created_by, started_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX interactions_follow_up_idx ON interactions (follow_up_date ASC NULLS LAST, id)
    WHERE follow_up_required AND deleted_at IS NULL;
CREATE INDEX interactions_attendees_idx ON interactions USING gin (attendees) WHERE deleted_at IS NULL;
