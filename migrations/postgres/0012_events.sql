-- The event log (see migrations/sqlite/0012_events.sql).

CREATE TABLE IF NOT EXISTS events (
    seq           BIGINT PRIMARY KEY CHECK (seq > 0),
    txn           BIGINT NOT NULL CHECK (txn > 0 AND txn <= seq),
    at            TEXT COLLATE "C" NOT NULL CHECK (length(at) BETWEEN 1 AND 64),
    op            TEXT COLLATE "C" NOT NULL CHECK (length(op) BETWEEN 3 AND 64),
    kind          TEXT COLLATE "C" NOT NULL CHECK (length(kind) BETWEEN 1 AND 32),
    subject_id    TEXT COLLATE "C" CHECK (subject_id IS NULL OR length(subject_id) <= 1024),
    subject_name  TEXT COLLATE "C" CHECK (subject_name IS NULL OR length(subject_name) <= 4096),
    related_id    TEXT COLLATE "C" CHECK (related_id IS NULL OR length(related_id) <= 1024),
    changes_json  TEXT CHECK (changes_json IS NULL OR length(changes_json) <= 16384),
    actor_name    TEXT NOT NULL CHECK (length(actor_name) <= 1024),
    actor_face    TEXT COLLATE "C" NOT NULL CHECK (length(actor_face) BETWEEN 1 AND 16)
);

CREATE INDEX IF NOT EXISTS events_subject ON events (subject_id, seq);
CREATE INDEX IF NOT EXISTS events_related ON events (related_id, seq) WHERE related_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_name ON events (subject_name, seq);
CREATE INDEX IF NOT EXISTS events_at ON events (at);
