-- /game digest: when the GM last made a digest without `since:` (the next digest starts there).
ALTER TABLE games ADD COLUMN last_digest_at TEXT;
