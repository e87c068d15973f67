"""L2 search: full-text (FTS5 BM25) candidates and the query sanitiser."""
