ALTER TABLE stock_movements
    ADD CONSTRAINT stock_movements_inventory_id_fkey FOREIGN KEY (inventory_id) REFERENCES inventory (id),
    ADD CONSTRAINT stock_movements_product_id_fkey FOREIGN KEY (product_id) REFERENCES products (id),
    ADD CONSTRAINT stock_movements_location_id_fkey FOREIGN KEY (location_id) REFERENCES locations (id),
    DROP CONSTRAINT stock_movements_inventory_fkey;
DROP INDEX stock_movements_inventory_product_location_idx;
ALTER TABLE inventory DROP CONSTRAINT inventory_id_product_location_key;
