-- A movement's product and location are those of its inventory record. One composite foreign key
-- says so and replaces the three single-column ones: a stronger rule (nothing stopped a movement from
-- naming another product than its record's), and one check a movement row instead of three. The
-- order-flow benchmark writes two movements an order: the three checks took 38 µs a row (EXPLAIN
-- ANALYZE of a 100-row insert), the one takes 9. The product and the location still exist: the
-- record's own foreign keys hold them.
ALTER TABLE inventory ADD CONSTRAINT inventory_id_product_location_key UNIQUE (id, product_id, location_id);
CREATE INDEX stock_movements_inventory_product_location_idx
    ON stock_movements (inventory_id, product_id, location_id);
ALTER TABLE stock_movements
    ADD CONSTRAINT stock_movements_inventory_fkey FOREIGN KEY (inventory_id, product_id, location_id)
        REFERENCES inventory (id, product_id, location_id),
    DROP CONSTRAINT stock_movements_inventory_id_fkey,
    DROP CONSTRAINT stock_movements_product_id_fkey,
    DROP CONSTRAINT stock_movements_location_id_fkey;
