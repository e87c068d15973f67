-- Consolidation (SQLite migrations 0013 and 0015): the decay bookkeeping, the clusters of
-- observations with their summaries (and the records of the reflect and compress cycles), the
-- members those summaries demote, and the optional language model's usage ledger.

CREATE TABLE memory_decay (
    memory_id text COLLATE "C" PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    base      double precision NOT NULL,
    written   double precision NOT NULL
);

CREATE TABLE consolidation_clusters (
    namespace  text COLLATE "C" NOT NULL,
    kind       text COLLATE "C" NOT NULL,
    key        text COLLATE "C" NOT NULL,
    summary_id text COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    members    text NOT NULL,
    PRIMARY KEY (namespace, kind, key)
);
CREATE INDEX idx_consolidation_clusters_summary ON consolidation_clusters (summary_id);

CREATE TABLE memory_demotions (
    memory_id  text COLLATE "C" PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    summary_id text COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE
);
CREATE INDEX idx_memory_demotions_summary ON memory_demotions (summary_id);

CREATE TABLE llm_usage (
    day           text COLLATE "C" NOT NULL,
    provider      text COLLATE "C" NOT NULL,
    model         text COLLATE "C" NOT NULL,
    requests      bigint NOT NULL DEFAULT 0,
    failures      bigint NOT NULL DEFAULT 0,
    input_tokens  bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (day, provider, model)
);
