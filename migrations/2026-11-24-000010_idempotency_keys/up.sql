-- Idempotency keys (docs/retries.md): the answer a keyed POST gave, written in the
-- same transaction as the change it reports, kept 24 hours.
CREATE TABLE idempotency_keys (
    -- `user:<uuid>` for an authenticated caller, `public` for the public endpoints.
    scope         TEXT         NOT NULL CHECK (length(scope) BETWEEN 1 AND 64),
    key           TEXT         NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    -- sha256 of method, path with query and body: a retry must send the same request.
    request_hash  BYTEA        NOT NULL CHECK (length(request_hash) = 32),
    status        SMALLINT     NOT NULL CHECK (status BETWEEN 200 AND 499 AND status <> 429),
    -- The headers that matter to a replay (content type, location, etag), as name/value pairs.
    headers       JSONB        NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(headers) = 'array'),
    body          BYTEA        NOT NULL,
    created_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    expires_at    TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (scope, key),
    CHECK (expires_at > created_at)
);

-- The sweeper deletes by expiry.
CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);
