-- Snapshots written compactly: a game's snapshot document as zlib-compressed JSON (`snapshot_z`, about a quarter
-- of the text's size), written on every command and every clock catch-up. A row written so has `snapshot` NULL;
-- a row written before keeps its text until its game is next written (the store reads either form).
ALTER TABLE games ADD COLUMN snapshot_z BLOB;
