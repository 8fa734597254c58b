-- Identity: users, roles, permissions, contacts, profiles.

CREATE TABLE users (
    id                 UUID         PRIMARY KEY,
    email              VARCHAR(255) NOT NULL CHECK (email = lower(btrim(email)) AND email <> ''),
    name               VARCHAR(255) NOT NULL CHECK (btrim(name) <> ''),
    password_hash      TEXT         NOT NULL,
    status             VARCHAR(16)  NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'banned')),
    is_email_verified  BOOLEAN      NOT NULL DEFAULT FALSE,
    failed_login_count INTEGER      NOT NULL DEFAULT 0 CHECK (failed_login_count >= 0),
    locked_until       TIMESTAMPTZ,
    last_login_at      TIMESTAMPTZ,
    -- Bumped by password changes, suspension and bans: older tokens stop working.
    token_version      INTEGER      NOT NULL DEFAULT 0 CHECK (token_version >= 0),
    created_at         TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at         TIMESTAMPTZ  NOT NULL DEFAULT now(),
    deleted_at         TIMESTAMPTZ
);
CREATE UNIQUE INDEX users_email_key ON users (email) WHERE deleted_at IS NULL;
CREATE INDEX users_list_idx ON users (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX users_status_idx ON users (status, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX users_verified_idx ON users (is_email_verified, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX users_email_trgm_idx ON users USING gin (email gin_trgm_ops);
CREATE INDEX users_name_trgm_idx ON users USING gin (lower(name) gin_trgm_ops);

CREATE TABLE roles (
    id           UUID         PRIMARY KEY,
    name         VARCHAR(50)  NOT NULL CHECK (name ~ '^[a-z][a-z0-9_-]{1,49}$'),
    display_name VARCHAR(100) NOT NULL,
    description  TEXT         NOT NULL DEFAULT '',
    is_system    BOOLEAN      NOT NULL DEFAULT FALSE,
    created_at   TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ  NOT NULL DEFAULT now(),
    deleted_at   TIMESTAMPTZ,
    CHECK (NOT (is_system AND deleted_at IS NOT NULL))
);
CREATE UNIQUE INDEX roles_name_key ON roles (name) WHERE deleted_at IS NULL;

CREATE TABLE permissions (
    id          UUID        PRIMARY KEY,
    resource    VARCHAR(50) NOT NULL CHECK (resource ~ '^(\*|[a-z][a-z0-9_]*)$'),
    action      VARCHAR(50) NOT NULL CHECK (action ~ '^(\*|[a-z][a-z0-9_]*)$'),
    name        VARCHAR(101) GENERATED ALWAYS AS (resource || ':' || action) STORED,
    description TEXT        NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (resource, action)
);
CREATE UNIQUE INDEX permissions_name_key ON permissions (name);

CREATE TABLE role_permissions (
    role_id       UUID        NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    permission_id UUID        NOT NULL REFERENCES permissions (id) ON DELETE CASCADE,
    assigned_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (role_id, permission_id)
);
CREATE INDEX role_permissions_permission_idx ON role_permissions (permission_id);

CREATE TABLE user_roles (
    user_id     UUID        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role_id     UUID        NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    assigned_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, role_id)
);
CREATE INDEX user_roles_role_idx ON user_roles (role_id);

CREATE TABLE contacts (
    id          UUID         PRIMARY KEY,
    user_id     UUID         NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type        VARCHAR(10)  NOT NULL CHECK (type IN ('email', 'phone', 'address')),
    label       VARCHAR(100) NOT NULL DEFAULT '',
    email       VARCHAR(255),
    phone       VARCHAR(50),
    street      VARCHAR(255),
    city        VARCHAR(100),
    state       VARCHAR(100),
    postal_code VARCHAR(20),
    country     CHAR(2)      REFERENCES countries (code),
    is_primary  BOOLEAN      NOT NULL DEFAULT FALSE,
    is_verified BOOLEAN      NOT NULL DEFAULT FALSE,
    is_public   BOOLEAN      NOT NULL DEFAULT FALSE,
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    deleted_at  TIMESTAMPTZ,
    -- Only the value matching the type is populated.
    CHECK (
        (type = 'email' AND email IS NOT NULL AND phone IS NULL AND country IS NULL AND street IS NULL AND city IS NULL AND state IS NULL AND postal_code IS NULL)
     OR (type = 'phone' AND phone IS NOT NULL AND email IS NULL AND country IS NULL AND street IS NULL AND city IS NULL AND state IS NULL AND postal_code IS NULL)
     OR (type = 'address' AND country IS NOT NULL AND email IS NULL AND phone IS NULL)
    )
);
CREATE INDEX contacts_user_idx ON contacts (user_id, type, created_at DESC) WHERE deleted_at IS NULL;
-- At most one primary contact per user and type.
CREATE UNIQUE INDEX contacts_one_primary_key ON contacts (user_id, type) WHERE is_primary AND deleted_at IS NULL;

CREATE TABLE profiles (
    id            UUID         PRIMARY KEY,
    user_id       UUID         NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    display_name  VARCHAR(255) NOT NULL CHECK (btrim(display_name) <> ''),
    first_name    VARCHAR(100),
    last_name     VARCHAR(100),
    gender        VARCHAR(16)  CHECK (gender IN ('male', 'female', 'other', 'not_specify')),
    date_of_birth DATE,
    bio           VARCHAR(500),
    avatar_url    VARCHAR(500),
    timezone      VARCHAR(50)  REFERENCES timezones (code),
    language      CHAR(2)      REFERENCES languages (code),
    country       CHAR(2)      REFERENCES countries (code),
    website       VARCHAR(500),
    linkedin_url  VARCHAR(500),
    twitter_url   VARCHAR(500),
    github_url    VARCHAR(500),
    is_public     BOOLEAN      NOT NULL DEFAULT FALSE,
    is_active     BOOLEAN      NOT NULL DEFAULT TRUE,
    is_banned     BOOLEAN      NOT NULL DEFAULT FALSE,
    is_verified   BOOLEAN      NOT NULL DEFAULT FALSE,
    created_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    deleted_at    TIMESTAMPTZ
);
CREATE UNIQUE INDEX profiles_user_key ON profiles (user_id) WHERE deleted_at IS NULL;
CREATE INDEX profiles_public_idx ON profiles (created_at DESC, id DESC)
    WHERE is_public AND is_active AND NOT is_banned AND deleted_at IS NULL;

-- System roles and permissions, seeded once: later operator changes are kept.
INSERT INTO roles (id, name, display_name, description, is_system) VALUES
    ('01900000-0000-7000-8000-000000000001', 'superadmin', 'Super administrator', 'Every permission', TRUE),
    ('01900000-0000-7000-8000-000000000002', 'admin', 'Administrator', 'Every permission', TRUE),
    ('01900000-0000-7000-8000-000000000003', 'manager', 'Manager', 'Runs the business data', TRUE),
    ('01900000-0000-7000-8000-000000000004', 'user', 'User', 'Works with the business data', TRUE),
    ('01900000-0000-7000-8000-000000000005', 'guest', 'Guest', 'Reads the business data', TRUE);

INSERT INTO permissions (id, resource, action, description)
SELECT ('01900000-0000-7000-9000-' || lpad(to_hex(row_number() OVER (ORDER BY r.ord, a.ord)::int), 12, '0'))::uuid,
       r.resource, a.action, initcap(a.action) || ' ' || replace(r.resource, '_', ' ')
FROM (VALUES (1, 'customers'), (2, 'companies'), (3, 'deals'), (4, 'interactions'), (5, 'orders'), (6, 'products'),
             (7, 'inventory'), (8, 'stock_movements'), (9, 'locations'), (10, 'analytics'), (11, 'users'),
             (12, 'roles'), (13, 'permissions'), (14, 'events')) AS r (ord, resource)
CROSS JOIN (VALUES (1, 'create'), (2, 'read'), (3, 'update'), (4, 'delete'), (5, '*')) AS a (ord, action);

INSERT INTO permissions (id, resource, action, description)
VALUES ('01900000-0000-7000-9000-ffffffffffff', '*', '*', 'Every action on every resource');

INSERT INTO role_permissions (role_id, permission_id)
SELECT r.id, p.id FROM roles r, permissions p
WHERE (r.name IN ('superadmin', 'admin') AND p.name = '*:*')
   OR (r.name = 'manager' AND (p.name IN ('customers:*', 'companies:*', 'deals:*', 'interactions:*', 'orders:*',
       'products:*', 'inventory:*', 'stock_movements:*', 'locations:*', 'analytics:read', 'users:read')))
   OR (r.name = 'user' AND (
          (p.resource IN ('customers', 'companies', 'deals', 'interactions', 'orders') AND p.action IN ('create', 'read', 'update'))
       OR (p.resource IN ('products', 'inventory', 'stock_movements', 'locations') AND p.action = 'read')
       OR p.name IN ('analytics:read', 'interactions:delete')))
   OR (r.name = 'guest' AND p.action = 'read'
       AND p.resource IN ('customers', 'companies', 'deals', 'interactions', 'orders', 'products', 'inventory',
                          'stock_movements', 'locations'));
