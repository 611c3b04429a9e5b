-- The plugin store: one row per module added with `agents plugin add`.
-- The component itself lives content-addressed under the home
-- (plugins/<sha256>.wasm) and is verified against `sha256` on every load.

CREATE TABLE plugins (
    module        TEXT PRIMARY KEY CHECK (length(module) BETWEEN 1 AND 200),
    version       TEXT NOT NULL,
    sha256        TEXT NOT NULL CHECK (length(sha256) = 64),
    classes_json  TEXT NOT NULL,
    size_bytes    INTEGER NOT NULL,
    source        TEXT NOT NULL,
    added_at      TEXT NOT NULL
);
