-- API keys (docs/identity.md): a service's credential, owned by a user, stored only as the
-- sha256 of the key (the key has 256 random bits, so a fast hash is enough).
CREATE TABLE api_keys (
    id           UUID         PRIMARY KEY,
    user_id      UUID         NOT NULL REFERENCES users (id),
    name         VARCHAR(100) NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
    -- The first characters of the key, shown in lists so a person can tell keys apart.
    prefix       VARCHAR(16)  NOT NULL,
    key_hash     BYTEA        NOT NULL CHECK (length(key_hash) = 32),
    permissions  TEXT[]       NOT NULL CHECK (cardinality(permissions) BETWEEN 1 AND 200),
    created_at   TIMESTAMPTZ  NOT NULL,
    last_used_at TIMESTAMPTZ,
    expires_at   TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ,
    CHECK (expires_at IS NULL OR expires_at > created_at)
);

-- Authentication looks a key up by its hash.
CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash);
-- A user's keys, newest first; everyone's for administrators.
CREATE INDEX api_keys_user_created_idx ON api_keys (user_id, created_at DESC, id DESC);
CREATE INDEX api_keys_created_idx ON api_keys (created_at DESC, id DESC);
