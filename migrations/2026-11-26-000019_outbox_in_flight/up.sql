-- The in-process bus's unfinished events in a narrow table of their own
-- (docs/adr/0014-events-handed-over-from-memory.md).
--
-- An event's row used to be marked done with `UPDATE outbox_events SET completed_at = now()`: a new
-- version of the whole row (its JSON data too) and an entry in each of the outbox's four indexes, for
-- every event. Now the event is inserted here with its outbox row, in the same statement, when it is
-- handed to the in-process bus (or claimed for it), and deleted when every handler is done: a small
-- insert and a delete, and the outbox rows are never updated after they are published. Start-up hands
-- the events still here to the bus again.
--
-- No foreign key to outbox_events: its check would lock the event's row (a write to the row it exists
-- to leave alone). The rows are only ever written by the statements that write or claim their events.
CREATE TABLE outbox_in_flight (
    event_id UUID PRIMARY KEY
);

INSERT INTO outbox_in_flight (event_id)
SELECT id FROM outbox_events WHERE published_at IS NOT NULL AND completed_at IS NULL;

DROP INDEX outbox_incomplete_idx;
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_check;
ALTER TABLE outbox_events DROP COLUMN completed_at;
