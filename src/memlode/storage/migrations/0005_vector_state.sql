-- A change counter per embedding model, bumped by triggers, so that an in-memory or on-disk
-- vector index can tell in one query whether it is stale.
CREATE TABLE vector_state (
    model   TEXT PRIMARY KEY,
    version INTEGER NOT NULL DEFAULT 0
);

CREATE TRIGGER memory_embeddings_ai AFTER INSERT ON memory_embeddings BEGIN
    INSERT INTO vector_state (model, version) VALUES (new.model, 1)
    ON CONFLICT (model) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER memory_embeddings_ad AFTER DELETE ON memory_embeddings BEGIN
    INSERT INTO vector_state (model, version) VALUES (old.model, 1)
    ON CONFLICT (model) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER memory_embeddings_au AFTER UPDATE ON memory_embeddings BEGIN
    INSERT INTO vector_state (model, version) VALUES (old.model, 1)
    ON CONFLICT (model) DO UPDATE SET version = version + 1;
    INSERT INTO vector_state (model, version) VALUES (new.model, 1)
    ON CONFLICT (model) DO UPDATE SET version = version + 1;
END;
