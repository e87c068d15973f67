"""L2 sources: readers that turn files (memory files, docs, transcripts) into retrievable text."""
