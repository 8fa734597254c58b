DROP INDEX outbox_in_flight_instance_idx;
ALTER TABLE outbox_in_flight DROP COLUMN instance_id;
DROP TABLE bus_instances;
