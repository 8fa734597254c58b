-- Order management and warehouse management: products, locations, inventory, the append-only stock
-- ledger, orders with their lines, the per-year order-number counter and the warehouse's per-order hold
-- state. Quantities and money are BIGINT (cents / units); every status or type column has a CHECK;
-- every list filter and sort has an index; soft-deleted rows are left out of those indexes.

CREATE TABLE products (
    id           UUID          PRIMARY KEY,
    sku          VARCHAR(64)   NOT NULL CHECK (btrim(sku) <> ''),
    name         VARCHAR(255)  NOT NULL CHECK (btrim(name) <> ''),
    description  VARCHAR(5000),
    category     VARCHAR(100),
    brand        VARCHAR(100),
    weight_grams BIGINT        CHECK (weight_grams >= 0),
    length_mm    BIGINT        CHECK (length_mm >= 0),
    width_mm     BIGINT        CHECK (width_mm >= 0),
    height_mm    BIGINT        CHECK (height_mm >= 0),
    price        BIGINT        CHECK (price >= 0),
    currency     CHAR(3)       REFERENCES currencies (code),
    status       VARCHAR(16)   NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'discontinued')),
    created_at   TIMESTAMPTZ   NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ   NOT NULL DEFAULT now(),
    deleted_at   TIMESTAMPTZ,
    CONSTRAINT products_price_currency_check CHECK (price IS NULL OR currency IS NOT NULL)
);
-- SKU unique case-insensitively among non-deleted rows; also serves GET /products/sku/:sku.
CREATE UNIQUE INDEX products_sku_key ON products (lower(sku)) WHERE deleted_at IS NULL;
CREATE INDEX products_list_idx ON products (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX products_status_idx ON products (status, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX products_category_idx ON products (lower(category), created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX products_brand_idx ON products (lower(brand), created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX products_name_sort_idx ON products (name, id) WHERE deleted_at IS NULL;
CREATE INDEX products_sku_sort_idx ON products (sku, id) WHERE deleted_at IS NULL;
CREATE INDEX products_price_sort_idx ON products (price, id) WHERE deleted_at IS NULL;
CREATE INDEX products_currency_idx ON products (currency);
CREATE INDEX products_name_trgm_idx ON products USING gin (lower(name) gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX products_sku_trgm_idx ON products USING gin (lower(sku) gin_trgm_ops) WHERE deleted_at IS NULL;

CREATE TABLE locations (
    id          UUID         PRIMARY KEY,
    code        VARCHAR(64)  NOT NULL CHECK (btrim(code) <> ''),
    name        VARCHAR(255) NOT NULL CHECK (btrim(name) <> ''),
    type        VARCHAR(16)  NOT NULL CHECK (type IN ('Warehouse', 'Retail', 'Dropship', 'Virtual')),
    street      VARCHAR(255),
    city        VARCHAR(255),
    state       VARCHAR(255),
    postal_code VARCHAR(20),
    country     CHAR(2)      NOT NULL REFERENCES countries (code),
    capacity    BIGINT       CHECK (capacity >= 0),
    is_active   BOOLEAN      NOT NULL DEFAULT TRUE,
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    deleted_at  TIMESTAMPTZ
);
CREATE UNIQUE INDEX locations_code_key ON locations (lower(code)) WHERE deleted_at IS NULL;
CREATE INDEX locations_list_idx ON locations (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX locations_type_idx ON locations (type, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX locations_country_idx ON locations (country, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX locations_active_idx ON locations (is_active, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX locations_code_trgm_idx ON locations USING gin (lower(code) gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX locations_name_trgm_idx ON locations USING gin (lower(name) gin_trgm_ops) WHERE deleted_at IS NULL;

CREATE TABLE inventory (
    id                 UUID        PRIMARY KEY,
    product_id         UUID        NOT NULL REFERENCES products (id),
    location_id        UUID        NOT NULL REFERENCES locations (id),
    quantity_on_hand   BIGINT      NOT NULL DEFAULT 0,
    quantity_reserved  BIGINT      NOT NULL DEFAULT 0,
    quantity_committed BIGINT      NOT NULL DEFAULT 0,
    reorder_point      BIGINT      CHECK (reorder_point >= 0),
    min_stock          BIGINT      CHECK (min_stock >= 0),
    max_stock          BIGINT      CHECK (max_stock >= 0),
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    deleted_at         TIMESTAMPTZ,
    -- The last line of defence behind the compare-and-set updates.
    CONSTRAINT inventory_reserved_within_on_hand_check
        CHECK (0 <= quantity_reserved AND quantity_reserved <= quantity_on_hand),
    CONSTRAINT inventory_committed_check CHECK (quantity_committed >= 0),
    CONSTRAINT inventory_min_max_check CHECK (min_stock IS NULL OR max_stock IS NULL OR min_stock <= max_stock)
);
-- One record per (product, location) among non-deleted rows.
CREATE UNIQUE INDEX inventory_product_location_key ON inventory (product_id, location_id) WHERE deleted_at IS NULL;
CREATE INDEX inventory_list_idx ON inventory (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX inventory_product_idx ON inventory (product_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX inventory_location_idx ON inventory (location_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX inventory_low_stock_idx ON inventory (created_at DESC, id DESC)
    WHERE deleted_at IS NULL AND reorder_point IS NOT NULL AND quantity_on_hand - quantity_reserved <= reorder_point;

-- The stock ledger: one row per quantity change, written in the change's transaction, never changed.
CREATE TABLE stock_movements (
    id              UUID         PRIMARY KEY,
    inventory_id    UUID         NOT NULL REFERENCES inventory (id),
    product_id      UUID         NOT NULL REFERENCES products (id),
    location_id     UUID         NOT NULL REFERENCES locations (id),
    type            VARCHAR(24)  NOT NULL CHECK (type IN ('Receipt', 'Reservation', 'ReservationRelease', 'Commit',
                                                          'Adjustment', 'Transfer', 'Damage', 'Return')),
    quantity        BIGINT       NOT NULL CHECK (quantity > 0),
    quantity_before BIGINT       NOT NULL CHECK (quantity_before >= 0),
    quantity_after  BIGINT       NOT NULL CHECK (quantity_after >= 0),
    reserved_before BIGINT       NOT NULL CHECK (reserved_before >= 0),
    reserved_after  BIGINT       NOT NULL CHECK (reserved_after >= 0),
    unit_cost       BIGINT       CHECK (unit_cost >= 0),
    total_cost      BIGINT       CHECK (total_cost >= 0),
    currency        CHAR(3)      REFERENCES currencies (code),
    reference_type  VARCHAR(16)  NOT NULL CHECK (reference_type IN ('order', 'purchase_order', 'transfer', 'manual')),
    reference_id    UUID,
    reason          VARCHAR(500),
    created_by      UUID         REFERENCES users (id),
    created_at      TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT stock_movements_cost_currency_check CHECK (unit_cost IS NULL OR currency IS NOT NULL)
);
CREATE INDEX stock_movements_list_idx ON stock_movements (created_at DESC, id DESC);
CREATE INDEX stock_movements_inventory_idx ON stock_movements (inventory_id, created_at DESC, id DESC);
CREATE INDEX stock_movements_product_idx ON stock_movements (product_id, created_at DESC, id DESC);
CREATE INDEX stock_movements_location_idx ON stock_movements (location_id, created_at DESC, id DESC);
CREATE INDEX stock_movements_type_idx ON stock_movements (type, created_at DESC, id DESC);
CREATE INDEX stock_movements_reference_idx ON stock_movements (reference_id, created_at DESC, id DESC)
    WHERE reference_id IS NOT NULL;
CREATE INDEX stock_movements_currency_idx ON stock_movements (currency) WHERE currency IS NOT NULL;
CREATE INDEX stock_movements_created_by_idx ON stock_movements (created_by) WHERE created_by IS NOT NULL;

-- Append-only: any UPDATE, DELETE or TRUNCATE of the ledger fails.
CREATE FUNCTION stock_movements_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'stock_movements is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER stock_movements_no_update_or_delete BEFORE UPDATE OR DELETE ON stock_movements
    FOR EACH ROW EXECUTE FUNCTION stock_movements_append_only();
CREATE TRIGGER stock_movements_no_truncate BEFORE TRUNCATE ON stock_movements
    FOR EACH STATEMENT EXECUTE FUNCTION stock_movements_append_only();

-- One counter row per year: the order-number sequence, allocated with an upsert (never max()+1).
CREATE TABLE order_counters (
    year INTEGER PRIMARY KEY CHECK (year BETWEEN 1 AND 9999),
    last INTEGER NOT NULL CHECK (last BETWEEN 1 AND 999999)
);

CREATE TABLE orders (
    id                 UUID         PRIMARY KEY,
    order_number       VARCHAR(20)  NOT NULL CHECK (order_number ~ '^ORD-[0-9]{4}-[0-9]{6}$'),
    customer_id        UUID         NOT NULL REFERENCES customers (id),
    company_id         UUID         REFERENCES companies (id),
    status             VARCHAR(16)  NOT NULL DEFAULT 'pending'
                       CHECK (status IN ('pending', 'confirmed', 'processing', 'fulfilled', 'cancelled')),
    currency           CHAR(3)      NOT NULL REFERENCES currencies (code),
    subtotal           BIGINT       NOT NULL DEFAULT 0 CHECK (subtotal >= 0),
    tax                BIGINT       NOT NULL DEFAULT 0 CHECK (tax >= 0),
    discount           BIGINT       NOT NULL DEFAULT 0 CHECK (discount >= 0),
    total              BIGINT       NOT NULL DEFAULT 0 CHECK (total >= 0),
    notes              VARCHAR(5000),
    reservation_status VARCHAR(16)  NOT NULL DEFAULT 'none'
                       CHECK (reservation_status IN ('none', 'pending', 'reserved', 'failed', 'released', 'committed')),
    reservation_error  VARCHAR(1000),
    confirmed_at       TIMESTAMPTZ,
    fulfilled_at       TIMESTAMPTZ,
    cancelled_at       TIMESTAMPTZ,
    -- Compare-and-set counter: every saved change is `… WHERE version = expected`.
    version            BIGINT       NOT NULL DEFAULT 1 CHECK (version >= 1),
    created_at         TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at         TIMESTAMPTZ  NOT NULL DEFAULT now(),
    deleted_at         TIMESTAMPTZ,
    CONSTRAINT orders_confirmed_at_check CHECK (status = 'pending' OR status = 'cancelled' OR confirmed_at IS NOT NULL),
    CONSTRAINT orders_fulfilled_at_check CHECK ((status = 'fulfilled') = (fulfilled_at IS NOT NULL)),
    CONSTRAINT orders_cancelled_at_check CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);
-- Numbers are never reused, not even after a delete.
CREATE UNIQUE INDEX orders_order_number_key ON orders (order_number);
CREATE INDEX orders_list_idx ON orders (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX orders_customer_idx ON orders (customer_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX orders_status_idx ON orders (status, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX orders_company_idx ON orders (company_id) WHERE company_id IS NOT NULL;
CREATE INDEX orders_currency_idx ON orders (currency);

CREATE TABLE order_lines (
    id          UUID         PRIMARY KEY,
    order_id    UUID         NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    product_id  UUID         NOT NULL REFERENCES products (id),
    quantity    BIGINT       NOT NULL CHECK (quantity > 0),
    unit_price  BIGINT       NOT NULL CHECK (unit_price >= 0),
    subtotal    BIGINT       NOT NULL CHECK (subtotal >= 0 AND subtotal = quantity * unit_price),
    description VARCHAR(255),
    sku         VARCHAR(64),
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ  NOT NULL DEFAULT now()
);
CREATE INDEX order_lines_order_idx ON order_lines (order_id, created_at, id);
CREATE INDEX order_lines_product_idx ON order_lines (product_id);

-- What the warehouse did for an order, so events handled out of order settle correctly: a release
-- that overtakes its reservation marks the order `released`, and the late reservation reserves nothing.
-- Not a foreign key to orders: the warehouse only knows order ids from events.
CREATE TABLE order_stock_holds (
    order_id   UUID        PRIMARY KEY,
    status     VARCHAR(16) NOT NULL CHECK (status IN ('pending', 'reserved', 'failed', 'released', 'committed')),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
