-- The clock's announcements not yet sent (an outbox): each catch-up the Discord clock applies gets a row in the
-- same transaction, and loses it once its announcement is sent. A row still here at `due_at` (its process died
-- between the commit and the message) is taken by whichever process's clock sees it first, and announced then.
CREATE TABLE announcements (
    action_id INTEGER PRIMARY KEY REFERENCES actions (id) ON DELETE CASCADE,
    game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    due_at    TEXT    NOT NULL                 -- ISO-8601 UTC: when another process may announce it
);
CREATE INDEX announcements_due ON announcements (due_at);
