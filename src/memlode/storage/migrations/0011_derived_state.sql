-- Derived state and what it was built from (storage/derived.py). A row names one piece of state
-- rebuilt from the tables holding the data: 'graph:<namespace>' is what `memlode index` derives
-- after its commit (cross-repo links, cached centrality, the session map). ``generation`` counts
-- changes to the inputs and is bumped in the same transaction as the change, by the triggers
-- below, so a process killed after that commit and before the rebuild leaves ``built_from``
-- naming an older generation: the next index run, or the next read that uses the state, sees it
-- is stale. Depends only on the schema of migrations 0001-0009.
CREATE TABLE derived_state (
    name       TEXT PRIMARY KEY,
    generation INTEGER NOT NULL DEFAULT 0,
    built_from TEXT,                      -- JSON: what the last build saw; NULL: never built
    built_at   TEXT
);

-- Any change to the indexed files of a namespace (the index run writes symbols, references and
-- code edges in the same transaction as its files) makes that namespace's graph state stale.
-- Only the columns that change what is extracted count: a file whose size or mtime changed but
-- whose content did not is touched, and that derives nothing new.
CREATE TRIGGER derived_code_files_ai AFTER INSERT ON code_files BEGIN
    INSERT INTO derived_state (name, generation) VALUES ('graph:' || new.namespace, 1)
    ON CONFLICT (name) DO UPDATE SET generation = generation + 1;
END;

CREATE TRIGGER derived_code_files_ad AFTER DELETE ON code_files BEGIN
    INSERT INTO derived_state (name, generation) VALUES ('graph:' || old.namespace, 1)
    ON CONFLICT (name) DO UPDATE SET generation = generation + 1;
END;

CREATE TRIGGER derived_code_files_au AFTER UPDATE OF namespace, root, path, node_id, language,
    module, prefix, hash, status ON code_files BEGIN
    INSERT INTO derived_state (name, generation) VALUES ('graph:' || old.namespace, 1)
    ON CONFLICT (name) DO UPDATE SET generation = generation + 1;
    INSERT INTO derived_state (name, generation) VALUES ('graph:' || new.namespace, 1)
    ON CONFLICT (name) DO UPDATE SET generation = generation + 1;
END;

-- Stores indexed before this migration: their graph state was built by a version that did not
-- record it, so it is rebuilt once (a crash may already have left it empty).
INSERT INTO derived_state (name, generation)
SELECT DISTINCT 'graph:' || namespace, 1 FROM code_files;
