-- Trust (issue 22): a person's decision that a devcontainer's
-- configuration may be activated (built, started, its commands run).
--
-- One row per devcontainer-instance and person: the machine they decided
-- on ('' where machines are not told apart — a SQLite home), their uid
-- and user name as the CLI handed them in, and when. digest binds the
-- decision to the configuration and every file it builds from (files:
-- the JSON list of {role, path, sha256} it covers, so a refusal can say
-- which changed); summary: the JSON of what the person was shown. A
-- decision goes with its resource when that is removed. Not exported
-- or imported: a person's consent is given here, never carried in a file.

CREATE TABLE devcontainer_trust (
    resource_id  TEXT NOT NULL REFERENCES resources (resource_id) ON DELETE CASCADE,
    machine_id   TEXT NOT NULL DEFAULT '' CHECK (length(machine_id) <= 128),
    uid          INTEGER NOT NULL CHECK (uid >= 0),
    user_name    TEXT NOT NULL CHECK (length(user_name) BETWEEN 1 AND 256),
    digest       TEXT NOT NULL CHECK (length(digest) = 64),
    files        TEXT NOT NULL CHECK (length(files) <= 1048576),
    summary      TEXT NOT NULL CHECK (length(summary) <= 1048576),
    trusted_at   TEXT NOT NULL,
    PRIMARY KEY (resource_id, machine_id, uid)
) WITHOUT ROWID;
