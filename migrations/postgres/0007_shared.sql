-- What a registry shared by several machines needs (see
-- migrations/sqlite/0007_shared.sql).

CREATE TABLE plugin_components (
    sha256      TEXT COLLATE "C" PRIMARY KEY CHECK (length(sha256) = 64),
    component   BYTEA NOT NULL,
    size_bytes  BIGINT NOT NULL
);

CREATE TABLE machines (
    machine_id  TEXT COLLATE "C" PRIMARY KEY CHECK (length(machine_id) BETWEEN 1 AND 128),
    hostname    TEXT NOT NULL CHECK (length(hostname) <= 255),
    seen_at     TEXT NOT NULL
);

ALTER TABLE resources ADD COLUMN machine_id TEXT COLLATE "C" CHECK (length(machine_id) <= 128);
