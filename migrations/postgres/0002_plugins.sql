-- The plugin store's index (see migrations/sqlite/0002_plugins.sql).

CREATE TABLE plugins (
    module        TEXT COLLATE "C" PRIMARY KEY CHECK (length(module) BETWEEN 1 AND 200),
    version       TEXT NOT NULL,
    sha256        TEXT COLLATE "C" NOT NULL CHECK (length(sha256) = 64),
    classes_json  TEXT NOT NULL,
    size_bytes    BIGINT NOT NULL,
    source        TEXT NOT NULL,
    added_at      TEXT COLLATE "C" NOT NULL
);
