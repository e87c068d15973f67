-- SQLite's json_patch() (RFC 7396 merge patch: an object merges key by key, recursively; a null
-- removes its key; anything else replaces) for merging a resumed session's metadata
-- (storage/postgres/capture_session.py). jsonb's || merges only the top level.
CREATE FUNCTION memlode_json_patch(target jsonb, patch jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    base jsonb := CASE WHEN jsonb_typeof(target) = 'object' THEN target ELSE '{}' END;
    merged jsonb;
BEGIN
    IF patch IS NULL OR jsonb_typeof(patch) <> 'object' THEN
        RETURN patch;
    END IF;
    SELECT coalesce(jsonb_object_agg(key, value), '{}') INTO merged FROM (
        SELECT t.key, t.value FROM jsonb_each(base) AS t WHERE NOT patch ? t.key
        UNION ALL
        SELECT p.key, memlode_json_patch(base -> p.key, p.value)
        FROM jsonb_each(patch) AS p WHERE jsonb_typeof(p.value) <> 'null'
    ) AS kept;
    RETURN merged;
END $$;
