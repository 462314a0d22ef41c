-- PostgreSQL's words for migration 015 (snapshots written compactly): the compressed snapshot is BYTEA here.
ALTER TABLE games ADD COLUMN snapshot_z BYTEA;
