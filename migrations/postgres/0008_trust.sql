-- Trust: a person's decision that a devcontainer's configuration may be
-- activated (see migrations/sqlite/0008_trust.sql).

CREATE TABLE devcontainer_trust (
    resource_id  TEXT COLLATE "C" NOT NULL REFERENCES resources (resource_id) ON DELETE CASCADE,
    machine_id   TEXT COLLATE "C" NOT NULL DEFAULT '' CHECK (length(machine_id) <= 128),
    uid          BIGINT NOT NULL CHECK (uid >= 0),
    user_name    TEXT NOT NULL CHECK (length(user_name) BETWEEN 1 AND 256),
    digest       TEXT COLLATE "C" NOT NULL CHECK (length(digest) = 64),
    files        TEXT NOT NULL CHECK (length(files) <= 1048576),
    summary      TEXT NOT NULL CHECK (length(summary) <= 1048576),
    trusted_at   TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (resource_id, machine_id, uid)
);
