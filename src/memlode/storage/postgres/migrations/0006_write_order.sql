-- Writers take turns per store, as on SQLite (BEGIN IMMEDIATE): a write transaction takes one
-- transaction-level advisory lock first (PgDatabase.write calls memlode_write_lock), and any
-- statement that changes a memory's searchable text takes it too (the trigger below, for a
-- write made some other way). Reads never wait for it.
--
-- Why: the text change log (memories_fts_log, migration 0001) numbers a change when it is
-- written, not when it commits. With writers in parallel, a reader could catch up to number 11
-- while the transaction holding 10 was still open, and never see 10. With writers in turn, the
-- committed numbers are always 1..n with nothing missing. Taking the lock first in every write
-- transaction also keeps the order of locks the same everywhere, so two writers cannot
-- deadlock on it.
CREATE FUNCTION memlode_write_lock() RETURNS void LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':memlode-writes'))
$$;

CREATE FUNCTION memlode_lock_text_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM memlode_write_lock();
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER memories_write_order
    BEFORE INSERT OR DELETE OR UPDATE OF content, tags, search_terms, context_near, context_far
    ON memories FOR EACH ROW EXECUTE FUNCTION memlode_lock_text_change();
