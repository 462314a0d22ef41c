-- PostgreSQL's words for migration 017 (exactly-once announcements): the lease's end is `lease_until`, a time of
-- the server's own clock (now()), so that processes whose clocks disagree still agree on when a lease runs out.
-- A row a commit writes gets the grace by default (ANNOUNCE_GRACE in data/store/frontend.py: 2 minutes); `due_at`
-- (the committing process's clock) is no longer read here.
ALTER TABLE announcements ADD COLUMN owner TEXT;
ALTER TABLE announcements ADD COLUMN lease_until TIMESTAMPTZ NOT NULL DEFAULT now() + interval '2 minutes';
CREATE INDEX announcements_lease ON announcements (lease_until);
