-- Execution-environment routing and the devcontainer lifecycle (issue 13).
--
-- environment_settings: the project's setting (scope 'project', plan ''),
-- and one per named plan (scope 'plan'; the plan named 'default' when a
-- command names none). resource_id NULL means the host. A setting goes
-- with its resource when that is removed (the routing then falls through
-- to the next level).

CREATE TABLE environment_settings (
    scope        TEXT NOT NULL CHECK (scope IN ('project', 'plan')),
    plan         TEXT NOT NULL DEFAULT '' CHECK (length(plan) <= 128),
    resource_id  TEXT REFERENCES resources (resource_id) ON DELETE CASCADE,
    priority     TEXT NOT NULL CHECK (priority IN ('override', 'fallback')),
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (scope, plan)
) WITHOUT ROWID;

-- The lifecycle of a container resource (a devcontainer-instance found by
-- discovery starts 'detected'; no row means the same). container_id: the
-- engine's id while one exists; config_hash: the devcontainer.json (and
-- Dockerfile) digest it was built from, so `show` can say when it is out
-- of date; last_error: why the last build or start failed.
CREATE TABLE container_states (
    resource_id   TEXT PRIMARY KEY REFERENCES resources (resource_id) ON DELETE CASCADE,
    state         TEXT NOT NULL CHECK (state IN
                      ('detected', 'building', 'running', 'stopped', 'failed')),
    container_id  TEXT CHECK (length(container_id) <= 256),
    tool          TEXT CHECK (length(tool) <= 64),
    config_hash   TEXT CHECK (length(config_hash) <= 128),
    last_error    TEXT CHECK (length(last_error) <= 4096),
    updated_at    TEXT NOT NULL
) WITHOUT ROWID;
