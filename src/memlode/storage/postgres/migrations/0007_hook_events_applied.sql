-- SQLite migration 0019: the ids of the spooled hook events applied, written in the same
-- transaction as the rows of the event's handler (memlode.resident.hook_queue), so that a line
-- applied again after a crash writes nothing twice.
CREATE TABLE hook_events_applied (
    id         text COLLATE "C" PRIMARY KEY,
    event      text NOT NULL,
    applied_at text COLLATE "C" NOT NULL
);
CREATE INDEX idx_hook_events_applied_at ON hook_events_applied (applied_at);
