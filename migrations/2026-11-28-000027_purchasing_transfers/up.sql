-- Purchasing and transfers (docs/purchasing-and-transfers.md): suppliers, purchase orders with their
-- lines, transfers between locations with theirs, the per-kind and per-year document-number counters,
-- and a product's preferred supplier. The database guards what it can: received never above ordered,
-- quantities positive, numbers unique, one line per product on a transfer, statuses and their
-- timestamps consistent.

CREATE TABLE suppliers (
    id             UUID          PRIMARY KEY,
    name           VARCHAR(255)  NOT NULL CHECK (btrim(name) <> ''),
    email          VARCHAR(254),
    phone          VARCHAR(32),
    currency       CHAR(3)       REFERENCES currencies (code),
    lead_time_days INTEGER       CHECK (lead_time_days BETWEEN 0 AND 365),
    notes          VARCHAR(5000),
    is_active      BOOLEAN       NOT NULL DEFAULT TRUE,
    created_at     TIMESTAMPTZ   NOT NULL DEFAULT now(),
    updated_at     TIMESTAMPTZ   NOT NULL DEFAULT now(),
    deleted_at     TIMESTAMPTZ,
    version        BIGINT        NOT NULL DEFAULT 1 CHECK (version >= 1)
);
CREATE TRIGGER suppliers_version BEFORE UPDATE ON suppliers FOR EACH ROW EXECUTE FUNCTION tally_bump_version();
CREATE INDEX suppliers_list_idx ON suppliers (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX suppliers_active_idx ON suppliers (is_active, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX suppliers_name_trgm_idx ON suppliers USING gin (lower(name) gin_trgm_ops)
    WITH (gin_pending_list_limit = 64) WHERE deleted_at IS NULL;
CREATE INDEX suppliers_email_trgm_idx ON suppliers USING gin (lower(email) gin_trgm_ops)
    WITH (gin_pending_list_limit = 64) WHERE deleted_at IS NULL;
CREATE INDEX suppliers_currency_idx ON suppliers (currency) WHERE currency IS NOT NULL;

-- A product's preferred supplier (reorder suggestions group by it).
ALTER TABLE products ADD COLUMN supplier_id UUID REFERENCES suppliers (id);
CREATE INDEX products_supplier_idx ON products (supplier_id) WHERE supplier_id IS NOT NULL;

-- One counter row per document kind and year, allocated with an upsert (never max()+1).
CREATE TABLE document_counters (
    kind VARCHAR(16) NOT NULL CHECK (kind IN ('purchase_order', 'transfer')),
    year INTEGER     NOT NULL CHECK (year BETWEEN 1 AND 9999),
    last INTEGER     NOT NULL CHECK (last BETWEEN 1 AND 999999),
    PRIMARY KEY (kind, year)
);

CREATE TABLE purchase_orders (
    id           UUID          PRIMARY KEY,
    po_number    VARCHAR(20)   NOT NULL CHECK (po_number ~ '^PO-[0-9]{4}-[0-9]{6}$'),
    supplier_id  UUID          NOT NULL REFERENCES suppliers (id),
    location_id  UUID          NOT NULL REFERENCES locations (id),
    currency     CHAR(3)       NOT NULL REFERENCES currencies (code),
    status       VARCHAR(24)   NOT NULL DEFAULT 'draft'
                 CHECK (status IN ('draft', 'ordered', 'partially_received', 'received', 'cancelled', 'closed')),
    subtotal     BIGINT        NOT NULL DEFAULT 0 CHECK (subtotal >= 0),
    expected_at  TIMESTAMPTZ,
    notes        VARCHAR(5000),
    submitted_at TIMESTAMPTZ,
    received_at  TIMESTAMPTZ,
    cancelled_at TIMESTAMPTZ,
    closed_at    TIMESTAMPTZ,
    created_by   UUID          REFERENCES users (id),
    created_at   TIMESTAMPTZ   NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ   NOT NULL DEFAULT now(),
    version      BIGINT        NOT NULL DEFAULT 1 CHECK (version >= 1),
    CONSTRAINT purchase_orders_submitted_check CHECK (status IN ('draft', 'cancelled') OR submitted_at IS NOT NULL),
    CONSTRAINT purchase_orders_received_check CHECK ((status = 'received') = (received_at IS NOT NULL)),
    CONSTRAINT purchase_orders_cancelled_check CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
    CONSTRAINT purchase_orders_closed_check CHECK ((status = 'closed') = (closed_at IS NOT NULL))
);
CREATE TRIGGER purchase_orders_version BEFORE UPDATE ON purchase_orders FOR EACH ROW EXECUTE FUNCTION tally_bump_version();
CREATE UNIQUE INDEX purchase_orders_number_key ON purchase_orders (po_number);
CREATE INDEX purchase_orders_list_idx ON purchase_orders (created_at DESC, id DESC);
CREATE INDEX purchase_orders_status_idx ON purchase_orders (status, created_at DESC, id DESC);
CREATE INDEX purchase_orders_supplier_idx ON purchase_orders (supplier_id, created_at DESC, id DESC);
CREATE INDEX purchase_orders_location_idx ON purchase_orders (location_id, created_at DESC, id DESC);
CREATE INDEX purchase_orders_currency_idx ON purchase_orders (currency);
CREATE INDEX purchase_orders_created_by_idx ON purchase_orders (created_by) WHERE created_by IS NOT NULL;
-- Open orders of a supplier (a supplier with any is not deleted) and of a location (incoming stock).
CREATE INDEX purchase_orders_open_idx ON purchase_orders (supplier_id)
    WHERE status IN ('draft', 'ordered', 'partially_received');

CREATE TABLE purchase_order_lines (
    id                UUID         PRIMARY KEY,
    purchase_order_id UUID         NOT NULL REFERENCES purchase_orders (id) ON DELETE CASCADE,
    product_id        UUID         NOT NULL REFERENCES products (id),
    sku               VARCHAR(64),
    description       VARCHAR(255),
    quantity_ordered  BIGINT       NOT NULL CHECK (quantity_ordered > 0),
    quantity_received BIGINT       NOT NULL DEFAULT 0,
    unit_cost         BIGINT       NOT NULL CHECK (unit_cost >= 0),
    subtotal          BIGINT       NOT NULL CHECK (subtotal >= 0 AND subtotal = quantity_ordered * unit_cost),
    created_at        TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at        TIMESTAMPTZ  NOT NULL DEFAULT now(),
    -- The last line of defence behind the conditional receipt: never more than was ordered.
    CONSTRAINT purchase_order_lines_received_check
        CHECK (0 <= quantity_received AND quantity_received <= quantity_ordered)
);
CREATE INDEX purchase_order_lines_order_idx ON purchase_order_lines (purchase_order_id, created_at, id);
CREATE INDEX purchase_order_lines_product_idx ON purchase_order_lines (product_id);

CREATE TABLE transfers (
    id               UUID          PRIMARY KEY,
    transfer_number  VARCHAR(20)   NOT NULL CHECK (transfer_number ~ '^TR-[0-9]{4}-[0-9]{6}$'),
    from_location_id UUID          NOT NULL REFERENCES locations (id),
    to_location_id   UUID          NOT NULL REFERENCES locations (id),
    status           VARCHAR(16)   NOT NULL DEFAULT 'draft'
                     CHECK (status IN ('draft', 'in_transit', 'received', 'cancelled')),
    notes            VARCHAR(5000),
    shipped_at       TIMESTAMPTZ,
    received_at      TIMESTAMPTZ,
    cancelled_at     TIMESTAMPTZ,
    created_by       UUID          REFERENCES users (id),
    created_at       TIMESTAMPTZ   NOT NULL DEFAULT now(),
    updated_at       TIMESTAMPTZ   NOT NULL DEFAULT now(),
    version          BIGINT        NOT NULL DEFAULT 1 CHECK (version >= 1),
    CONSTRAINT transfers_locations_differ_check CHECK (from_location_id <> to_location_id),
    CONSTRAINT transfers_shipped_check CHECK (status NOT IN ('in_transit', 'received') OR shipped_at IS NOT NULL),
    CONSTRAINT transfers_received_check CHECK ((status = 'received') = (received_at IS NOT NULL)),
    CONSTRAINT transfers_cancelled_check CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);
CREATE TRIGGER transfers_version BEFORE UPDATE ON transfers FOR EACH ROW EXECUTE FUNCTION tally_bump_version();
CREATE UNIQUE INDEX transfers_number_key ON transfers (transfer_number);
CREATE INDEX transfers_list_idx ON transfers (created_at DESC, id DESC);
CREATE INDEX transfers_status_idx ON transfers (status, created_at DESC, id DESC);
CREATE INDEX transfers_from_idx ON transfers (from_location_id, created_at DESC, id DESC);
CREATE INDEX transfers_to_idx ON transfers (to_location_id, created_at DESC, id DESC);
CREATE INDEX transfers_created_by_idx ON transfers (created_by) WHERE created_by IS NOT NULL;

CREATE TABLE transfer_lines (
    id          UUID        PRIMARY KEY,
    transfer_id UUID        NOT NULL REFERENCES transfers (id) ON DELETE CASCADE,
    product_id  UUID        NOT NULL REFERENCES products (id),
    quantity    BIGINT      NOT NULL CHECK (quantity > 0),
    CONSTRAINT transfer_lines_product_key UNIQUE (transfer_id, product_id)
);
CREATE INDEX transfer_lines_product_idx ON transfer_lines (product_id);
