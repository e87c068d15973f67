-- Who stored a memory (issue #21): on a team's PostgreSQL store the connection's created_by
-- setting, kept per row; a SQLite store has one author and leaves it empty. The column is here
-- so that one repository reads the same columns on both backends.
ALTER TABLE memories ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
