-- The vector index asks, before each refresh that is not a plain load, how many embedding rows
-- a model has and what their rowids add up to (vector/index.py). With an index on the model
-- alone SQLite read every row to check its dim: about 100 ms at 100k rows of 1.5 KB vectors.
-- On (model, dim) both figures, and the rows added since a rowid, come from the index.
DROP INDEX IF EXISTS idx_embeddings_model;
CREATE INDEX idx_embeddings_model_dim ON memory_embeddings (model, dim);
