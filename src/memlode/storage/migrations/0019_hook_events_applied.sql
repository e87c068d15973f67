-- The hook events a resident applied from a PostgreSQL store's spool (issue #35), by the id
-- each spooled line carries (memlode.hooks.handoff): written in the same transaction as the
-- rows the event's handler writes, so that a line applied again (a resident killed between
-- that commit and its offset) is found here and writes nothing twice. On SQLite no hook
-- spools (hooks write the file themselves): the table is here so both backends have the same
-- tables. Rows older than storage.hook_events.KEEP_DAYS are pruned.
CREATE TABLE hook_events_applied (
    id         TEXT PRIMARY KEY,
    event      TEXT NOT NULL,
    applied_at TEXT NOT NULL
);
CREATE INDEX idx_hook_events_applied_at ON hook_events_applied (applied_at);
