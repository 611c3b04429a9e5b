-- The event log (issue 40): one row per change, written in the same
-- transaction as the change, so a rolled-back or crashed write leaves
-- neither. `seq` is taken as max(seq) + 1 under the write lock (gap-free,
-- in commit order); `registry_meta`'s `events.last_seq` keeps the
-- high-water mark when pruning removes the newest rows, so a number is
-- never reused. `txn` is the seq of the first event its transaction wrote
-- (a registration and its children's changes fold under it). `at` is
-- RFC 3339 UTC text of fixed width (it sorts as time). The subject is
-- named as it was at the time; `related_id` is the other resource a change
-- names (a link's parent, a sandbox's resource).

CREATE TABLE IF NOT EXISTS events (
    seq           INTEGER PRIMARY KEY CHECK (seq > 0),
    txn           INTEGER NOT NULL CHECK (txn > 0 AND txn <= seq),
    at            TEXT NOT NULL CHECK (length(at) BETWEEN 1 AND 64),
    op            TEXT NOT NULL CHECK (length(op) BETWEEN 3 AND 64),
    kind          TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 32),
    subject_id    TEXT CHECK (subject_id IS NULL OR length(subject_id) <= 1024),
    subject_name  TEXT CHECK (subject_name IS NULL OR length(subject_name) <= 4096),
    related_id    TEXT CHECK (related_id IS NULL OR length(related_id) <= 1024),
    changes_json  TEXT CHECK (changes_json IS NULL OR length(changes_json) <= 16384),
    actor_name    TEXT NOT NULL CHECK (length(actor_name) <= 1024),
    actor_face    TEXT NOT NULL CHECK (length(actor_face) BETWEEN 1 AND 16)
);

CREATE INDEX IF NOT EXISTS events_subject ON events (subject_id, seq);
CREATE INDEX IF NOT EXISTS events_related ON events (related_id, seq) WHERE related_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_name ON events (subject_name, seq);
CREATE INDEX IF NOT EXISTS events_at ON events (at);
