DROP TABLE transfer_lines;
DROP TABLE transfers;
DROP TABLE purchase_order_lines;
DROP TABLE purchase_orders;
DROP TABLE document_counters;
ALTER TABLE products DROP COLUMN supplier_id;
DROP TABLE suppliers;
