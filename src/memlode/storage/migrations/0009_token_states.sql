-- Late interaction (search/late.py): the sign bits of each memory's content-token vectors, from
-- the same forward pass that made its embedding. A row here always has an embedding of the same
-- model beside it: both are written in one transaction, and the trigger drops the states when
-- the embedding goes (content changed, model replaced), so a re-embed makes them again.
CREATE TABLE memory_tokens (
    memory_id  TEXT PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    model      TEXT NOT NULL,
    states     BLOB NOT NULL          -- tokens x ceil(dim / 8) bytes of sign bits
);
CREATE INDEX idx_tokens_model ON memory_tokens (model);

CREATE TRIGGER memory_embeddings_drop_tokens AFTER DELETE ON memory_embeddings BEGIN
    DELETE FROM memory_tokens WHERE memory_id = old.memory_id;
END;
