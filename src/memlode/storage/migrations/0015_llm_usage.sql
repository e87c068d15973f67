-- The optional language model's ledger (memlode.llm, the compress cycle): tokens used per UTC
-- day, provider and model, as the provider reported them (estimated from the text's length
-- when it did not). The daily budget (llm.daily_tokens) is checked against the day's sum before
-- each request; failed requests are counted with the tokens they were charged (none, mostly).
-- Number 0015: 0014 belongs to another branch; the runner allows gaps.
CREATE TABLE llm_usage (
    day           TEXT NOT NULL,
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    requests      INTEGER NOT NULL DEFAULT 0,
    failures      INTEGER NOT NULL DEFAULT 0,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, provider, model)
) WITHOUT ROWID;
