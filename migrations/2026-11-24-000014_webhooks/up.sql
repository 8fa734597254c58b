-- Outbound webhooks (docs/webhooks.md). An endpoint's signing secret is never stored: it is
-- HMAC(server key, endpoint id, secret_salt), so a dump of the database alone cannot sign.
CREATE TABLE webhook_endpoints (
    id                   UUID          PRIMARY KEY,
    url                  VARCHAR(2048) NOT NULL CHECK (url ~ '^https?://'),
    description          VARCHAR(500),
    -- Event names with `*` wildcards, as the owner wrote them.
    events               TEXT[]        NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 50),
    secret_salt          BYTEA         NOT NULL CHECK (length(secret_salt) = 32),
    -- After a rotation the previous secret still signs, beside the new one, until this time.
    previous_secret_salt BYTEA         CHECK (length(previous_secret_salt) = 32),
    previous_secret_until TIMESTAMPTZ,
    enabled              BOOLEAN       NOT NULL DEFAULT TRUE,
    -- Why a disabled endpoint is disabled: its owner said so, or it failed for too long.
    disabled_reason      VARCHAR(16)   CHECK (disabled_reason IN ('manual', 'failing')),
    -- The first failure since the last success; NULL while deliveries succeed.
    failing_since        TIMESTAMPTZ,
    created_by           UUID          REFERENCES users (id) ON DELETE SET NULL,
    created_at           TIMESTAMPTZ   NOT NULL,
    updated_at           TIMESTAMPTZ   NOT NULL,
    version              BIGINT        NOT NULL DEFAULT 1 CHECK (version >= 1),
    CHECK (enabled = (disabled_reason IS NULL)),
    CHECK ((previous_secret_salt IS NULL) = (previous_secret_until IS NULL))
);
CREATE INDEX webhook_endpoints_created_idx ON webhook_endpoints (created_at DESC, id DESC);
CREATE INDEX webhook_endpoints_created_by_idx ON webhook_endpoints (created_by);
CREATE TRIGGER webhook_endpoints_version BEFORE UPDATE ON webhook_endpoints
    FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

-- One delivery per (event, endpoint); its id is the `webhook-id` on every attempt.
CREATE TABLE webhook_deliveries (
    id              UUID         PRIMARY KEY,
    endpoint_id     UUID         NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    -- The outbox event delivered; NULL for a test ping.
    event_id        UUID,
    event_type      VARCHAR(100) NOT NULL,
    -- The exact body sent on every attempt.
    payload         TEXT         NOT NULL,
    status          VARCHAR(16)  NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        INTEGER      NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    -- When a pending delivery is due; while an instance sends it, the end of that instance's
    -- claim (a crashed instance's claim runs out and another instance takes it over).
    next_attempt_at TIMESTAMPTZ,
    claim           UUID,
    last_attempt_at TIMESTAMPTZ,
    last_response_status INTEGER CHECK (last_response_status BETWEEN 100 AND 999),
    created_at      TIMESTAMPTZ  NOT NULL DEFAULT now(),
    completed_at    TIMESTAMPTZ,
    UNIQUE (event_id, endpoint_id),
    CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
    CHECK ((status = 'pending') = (completed_at IS NULL)),
    -- Only a pending delivery is ever being sent.
    CHECK (claim IS NULL OR status = 'pending')
);
-- The worker's queue: due deliveries, oldest first.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- An endpoint's delivery log, newest first, all or by status.
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_endpoint_status_idx
    ON webhook_deliveries (endpoint_id, status, created_at DESC, id DESC);
-- Attempts under way, by endpoint (each endpoint gets a bounded share of the senders).
CREATE INDEX webhook_deliveries_claimed_idx ON webhook_deliveries (endpoint_id) WHERE claim IS NOT NULL;
-- Finished deliveries are forgotten after 30 days, oldest first.
CREATE INDEX webhook_deliveries_completed_idx ON webhook_deliveries (completed_at) WHERE completed_at IS NOT NULL;

-- Every attempt of a delivery: when, what came back, how long it took.
CREATE TABLE webhook_attempts (
    id              BIGSERIAL    PRIMARY KEY,
    delivery_id     UUID         NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempted_at    TIMESTAMPTZ  NOT NULL,
    -- NULL when no answer came (refused address, connection error, timeout).
    response_status INTEGER      CHECK (response_status BETWEEN 100 AND 999),
    duration_ms     INTEGER      NOT NULL CHECK (duration_ms >= 0),
    -- The first 1 KiB of the answer's body.
    response_body   TEXT         NOT NULL DEFAULT '' CHECK (octet_length(response_body) <= 1024),
    error           VARCHAR(500)
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);

-- The `webhooks` permission resource; administrators hold it through `*:*`.
INSERT INTO permissions (id, resource, action, description)
VALUES ('01900000-0000-7000-9001-000000000001', 'webhooks', 'create', 'Create webhooks'),
       ('01900000-0000-7000-9001-000000000002', 'webhooks', 'read', 'Read webhooks'),
       ('01900000-0000-7000-9001-000000000003', 'webhooks', 'update', 'Update webhooks'),
       ('01900000-0000-7000-9001-000000000004', 'webhooks', 'delete', 'Delete webhooks'),
       ('01900000-0000-7000-9001-000000000005', 'webhooks', '*', 'Every action on webhooks')
ON CONFLICT (resource, action) DO NOTHING;
