-- Exactly-once announcements (issue 33): a row of the outbox (migration 014) is claimed by one process at a time,
-- its `owner` (a random id each store makes for itself), with a lease: `due_at`, until when no other process may
-- take it (SQLite's time is the process's own clock: one process owns a SQLite file). The owner renews the lease
-- while the announcement is queued or being sent, checks it just before sending (a lease lost: not sent), and
-- deletes the row once sent; another process takes the row only once the lease has run out unrenewed.
-- A row a commit writes has no owner yet: it is the committing process's for the grace (its `due_at`), which
-- claims it then. An owner '' is nobody's: any process may take it at once (a refused command's catch-up).
ALTER TABLE announcements ADD COLUMN owner TEXT;
