-- Platform foundation: reference data, transactional outbox, inbox, dead letters.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE countries (
    code          CHAR(2)      PRIMARY KEY CHECK (code ~ '^[A-Z]{2}$'),
    name          VARCHAR(100) NOT NULL UNIQUE,
    region        VARCHAR(50)  NOT NULL
                  CHECK (region IN ('Africa', 'Americas', 'Asia', 'Europe', 'Oceania', 'Antarctica')),
    currency_code CHAR(3)      NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$'),
    calling_code  VARCHAR(20)  NOT NULL,
    local_name    VARCHAR(200) NOT NULL,
    language_code CHAR(2)      NOT NULL,
    is_active     BOOLEAN      NOT NULL DEFAULT TRUE,
    created_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ  NOT NULL DEFAULT now()
);
CREATE INDEX countries_region_idx ON countries (region, name);
CREATE INDEX countries_active_idx ON countries (is_active, name);
CREATE INDEX countries_name_trgm_idx ON countries USING gin (lower(name) gin_trgm_ops);

CREATE TABLE currencies (
    code           CHAR(3)      PRIMARY KEY CHECK (code ~ '^[A-Z]{3}$'),
    name           VARCHAR(100) NOT NULL,
    symbol         VARCHAR(10)  NOT NULL,
    decimal_digits SMALLINT     NOT NULL DEFAULT 2 CHECK (decimal_digits BETWEEN 0 AND 4),
    is_active      BOOLEAN      NOT NULL DEFAULT TRUE,
    created_at     TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at     TIMESTAMPTZ  NOT NULL DEFAULT now()
);
CREATE INDEX currencies_active_idx ON currencies (is_active, code);

CREATE TABLE languages (
    code        CHAR(2)      PRIMARY KEY CHECK (code ~ '^[a-z]{2}$'),
    name        VARCHAR(100) NOT NULL,
    native_name VARCHAR(200) NOT NULL,
    direction   VARCHAR(3)   NOT NULL DEFAULT 'LTR' CHECK (direction IN ('LTR', 'RTL')),
    is_active   BOOLEAN      NOT NULL DEFAULT TRUE,
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ  NOT NULL DEFAULT now()
);
CREATE INDEX languages_active_idx ON languages (is_active, code);

CREATE TABLE timezones (
    code         VARCHAR(50)  PRIMARY KEY,
    name         VARCHAR(100) NOT NULL,
    utc_offset   VARCHAR(6)   NOT NULL CHECK (utc_offset ~ '^[+-][0-9]{2}:[0-9]{2}$'),
    supports_dst BOOLEAN      NOT NULL,
    region       VARCHAR(50)  NOT NULL,
    is_active    BOOLEAN      NOT NULL DEFAULT TRUE,
    created_at   TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ  NOT NULL DEFAULT now()
);
CREATE INDEX timezones_region_idx ON timezones (region, code);
CREATE UNIQUE INDEX timezones_code_lower_idx ON timezones (lower(code));

-- Every event is recorded here in the transaction of the change that raised it.
-- Rows are kept (they are the event log of GET /events); the relay marks them.
CREATE TABLE outbox_events (
    id           UUID         PRIMARY KEY,
    name         VARCHAR(100) NOT NULL,
    aggregate_id UUID         NOT NULL,
    occurred_at  TIMESTAMPTZ  NOT NULL,
    data         JSONB        NOT NULL DEFAULT '{}'::jsonb,
    -- handed to the bus
    published_at TIMESTAMPTZ,
    -- every handler finished (the in-process bus reports this; durable buses
    -- set it together with published_at)
    completed_at TIMESTAMPTZ,
    CHECK (completed_at IS NULL OR published_at IS NOT NULL)
);
CREATE INDEX outbox_unpublished_idx ON outbox_events (occurred_at, id) WHERE published_at IS NULL;
CREATE INDEX outbox_incomplete_idx ON outbox_events (id) WHERE published_at IS NOT NULL AND completed_at IS NULL;
CREATE INDEX outbox_log_idx ON outbox_events (occurred_at DESC, id DESC);
CREATE INDEX outbox_name_idx ON outbox_events (name, occurred_at DESC, id DESC);
CREATE INDEX outbox_aggregate_idx ON outbox_events (aggregate_id, occurred_at DESC, id DESC);

-- One row per (event, handler) already handled: makes redelivery harmless.
CREATE TABLE inbox (
    event_id   UUID         NOT NULL,
    handler    VARCHAR(100) NOT NULL,
    handled_at TIMESTAMPTZ  NOT NULL DEFAULT now(),
    PRIMARY KEY (event_id, handler)
);

CREATE TABLE dead_letters (
    id          UUID         PRIMARY KEY,
    event_id    UUID         NOT NULL,
    event_name  VARCHAR(100) NOT NULL,
    handler     VARCHAR(100) NOT NULL,
    event       JSONB        NOT NULL,
    last_error  TEXT         NOT NULL,
    attempts    INTEGER      NOT NULL CHECK (attempts > 0),
    failed_at   TIMESTAMPTZ  NOT NULL DEFAULT now(),
    requeued_at TIMESTAMPTZ
);
CREATE INDEX dead_letters_open_idx ON dead_letters (failed_at DESC, id DESC) WHERE requeued_at IS NULL;
CREATE INDEX dead_letters_event_idx ON dead_letters (event_id);
