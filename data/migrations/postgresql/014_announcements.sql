-- PostgreSQL's words for migration 014 (the clock's outbox of announcements): ids are BIGINT here.
CREATE TABLE announcements (
    action_id BIGINT PRIMARY KEY REFERENCES actions (id) ON DELETE CASCADE,
    game_id   BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    due_at    TEXT   NOT NULL
);
CREATE INDEX announcements_due ON announcements (due_at);
