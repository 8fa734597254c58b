-- Bulk import jobs (docs/imports-and-exports.md). The upload is kept in PostgreSQL, in chunks, until
-- the job ends (its chunks are dropped 7 days after), so any instance can run or resume a job.
CREATE TABLE import_jobs (
    id               UUID         PRIMARY KEY,
    created_by       UUID         NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    resource         VARCHAR(20)  NOT NULL CHECK (resource IN ('customers', 'companies', 'products', 'inventory')),
    format           VARCHAR(8)   NOT NULL CHECK (format IN ('csv', 'jsonl')),
    mode             VARCHAR(8)   NOT NULL CHECK (mode IN ('create', 'upsert')),
    dry_run          BOOLEAN      NOT NULL,
    atomic           BOOLEAN      NOT NULL,
    -- `uploading` is internal: the body is still streaming in; such a job is invisible to the API
    -- and never claimed. A failed upload deletes its job; a crashed one is swept after a day.
    status           VARCHAR(16)  NOT NULL DEFAULT 'uploading'
                     CHECK (status IN ('uploading', 'queued', 'running', 'succeeded', 'failed', 'cancelled')),
    total_rows       BIGINT       NOT NULL DEFAULT 0 CHECK (total_rows >= 0),
    processed_rows   BIGINT       NOT NULL DEFAULT 0 CHECK (processed_rows >= 0),
    created          BIGINT       NOT NULL DEFAULT 0 CHECK (created >= 0),
    updated          BIGINT       NOT NULL DEFAULT 0 CHECK (updated >= 0),
    unchanged        BIGINT       NOT NULL DEFAULT 0 CHECK (unchanged >= 0),
    failed_rows      BIGINT       NOT NULL DEFAULT 0 CHECK (failed_rows >= 0),
    error            TEXT,
    upload_bytes     BIGINT       NOT NULL DEFAULT 0 CHECK (upload_bytes >= 0),
    -- The instance running the job and until when its claim holds; renewed while it runs. An
    -- expired claim on a running job is taken over by any instance (it resumes after
    -- `processed_rows`, the last committed batch).
    lease_holder     UUID,
    lease_expires_at TIMESTAMPTZ,
    created_at       TIMESTAMPTZ  NOT NULL,
    started_at       TIMESTAMPTZ,
    finished_at      TIMESTAMPTZ,
    CHECK (processed_rows <= total_rows OR status IN ('uploading', 'queued', 'running')),
    CHECK ((finished_at IS NOT NULL) = (status IN ('succeeded', 'failed', 'cancelled'))),
    CHECK ((lease_holder IS NULL) = (lease_expires_at IS NULL)),
    CHECK (lease_holder IS NULL OR status = 'running')
);
-- A caller's jobs, newest first; every job, newest first (admins).
CREATE INDEX import_jobs_owner_idx ON import_jobs (created_by, created_at DESC, id DESC);
CREATE INDEX import_jobs_created_idx ON import_jobs (created_at DESC, id DESC);
-- The runners' queue: jobs waiting, and running ones whose claim may run out.
CREATE INDEX import_jobs_due_idx ON import_jobs (created_at) WHERE status IN ('queued', 'running');
-- Finished jobs whose upload or errors are to be dropped; uploads abandoned half-way.
CREATE INDEX import_jobs_finished_idx ON import_jobs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX import_jobs_uploading_idx ON import_jobs (created_at) WHERE status = 'uploading';

-- The uploaded file, in the order it arrived.
CREATE TABLE import_chunks (
    job_id UUID    NOT NULL REFERENCES import_jobs (id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL CHECK (seq >= 0),
    data   BYTEA   NOT NULL,
    PRIMARY KEY (job_id, seq)
);

-- Every problem of every refused row: `GET /imports/{id}/errors`, by row.
CREATE TABLE import_row_errors (
    job_id     UUID         NOT NULL REFERENCES import_jobs (id) ON DELETE CASCADE,
    row_number BIGINT       NOT NULL CHECK (row_number >= 1),
    seq        INTEGER      NOT NULL CHECK (seq >= 0),
    field      VARCHAR(200),
    code       VARCHAR(64)  NOT NULL,
    message    TEXT         NOT NULL,
    PRIMARY KEY (job_id, row_number, seq)
);

-- The `imports` permission resource: managers everything, staff create and read (their own jobs;
-- the handlers confine them), administrators through `*:*`.
INSERT INTO permissions (id, resource, action, description)
VALUES ('01900000-0000-7000-9002-000000000001', 'imports', 'create', 'Create imports'),
       ('01900000-0000-7000-9002-000000000002', 'imports', 'read', 'Read imports'),
       ('01900000-0000-7000-9002-000000000003', 'imports', 'update', 'Update imports'),
       ('01900000-0000-7000-9002-000000000004', 'imports', 'delete', 'Delete imports'),
       ('01900000-0000-7000-9002-000000000005', 'imports', '*', 'Every action on imports')
ON CONFLICT (resource, action) DO NOTHING;

INSERT INTO role_permissions (role_id, permission_id)
SELECT r.id, p.id FROM roles r, permissions p
WHERE r.deleted_at IS NULL
  AND ((r.name = 'manager' AND p.name = 'imports:*')
    OR (r.name = 'staff' AND p.name IN ('imports:create', 'imports:read')))
ON CONFLICT DO NOTHING;

-- An instant as the API writes it (RFC 3339 in UTC, the fraction without trailing zeros), for the
-- exports' JSON built by their statements (docs/imports-and-exports.md).
CREATE FUNCTION tally_rfc3339(t TIMESTAMPTZ) RETURNS TEXT
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN regexp_replace(to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '\.?0+$', '') || 'Z';
