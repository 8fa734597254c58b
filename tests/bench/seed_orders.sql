-- :orders pending orders of two lines each over 200 products stocked in one warehouse, with far more
-- on hand than the orders need, for the order-flow benchmark (confirm → reserve by events).
INSERT INTO customers (id, name, email) VALUES (md5('order-buyer')::uuid, 'Order Bench Buyer', 'orders@bench.test');

INSERT INTO products (id, sku, name, price, currency)
SELECT md5('p' || n)::uuid, 'BENCH-' || n, 'Bench product ' || n, 1000, 'USD'
FROM generate_series(1, 200) AS n;

INSERT INTO locations (id, code, name, type, country)
VALUES (md5('bench-warehouse')::uuid, 'BENCH-WH', 'Bench warehouse', 'Warehouse', 'US');

INSERT INTO inventory (id, product_id, location_id, quantity_on_hand)
SELECT md5('i' || n)::uuid, md5('p' || n)::uuid, md5('bench-warehouse')::uuid, 1000000
FROM generate_series(1, 200) AS n;

INSERT INTO orders (id, order_number, customer_id, currency, subtotal, total)
SELECT md5('o' || n)::uuid, 'ORD-2099-' || lpad(n::text, 6, '0'), md5('order-buyer')::uuid, 'USD', 3000, 3000
FROM generate_series(1, :orders) AS n;

INSERT INTO order_lines (id, order_id, product_id, quantity, unit_price, subtotal)
SELECT md5('l' || n || '-' || k)::uuid, md5('o' || n)::uuid, md5('p' || (1 + (n * 7 + k) % 200))::uuid,
       1 + k, 1000, (1 + k) * 1000
FROM generate_series(1, :orders) AS n, generate_series(0, 1) AS k;

ANALYZE;
