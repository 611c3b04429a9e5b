-- What a registry shared by several machines needs (issue 14); on a
-- SQLite home the same tables exist, so a registry moves between backends
-- unchanged.
--
-- plugin_components: each added plugin's component bytes, by sha256, so a
-- plugin added on one machine runs on another (each machine keeps a
-- verified local copy under its home; the compile cache stays local).
-- A component goes when no plugin row names its hash.
CREATE TABLE plugin_components (
    sha256      TEXT PRIMARY KEY CHECK (length(sha256) = 64),
    component   BLOB NOT NULL,
    size_bytes  INTEGER NOT NULL
) WITHOUT ROWID;

-- machines: who registered resources with locations — a stable machine id
-- and the host name it last had, for messages.
CREATE TABLE machines (
    machine_id  TEXT PRIMARY KEY CHECK (length(machine_id) BETWEEN 1 AND 128),
    hostname    TEXT NOT NULL CHECK (length(hostname) <= 255),
    seen_at     TEXT NOT NULL
) WITHOUT ROWID;

-- The machine whose filesystem a resource's location is a path on (NULL:
-- no location, or registered where machines are not told apart — a
-- SQLite home).
ALTER TABLE resources ADD COLUMN machine_id TEXT CHECK (length(machine_id) <= 128);
