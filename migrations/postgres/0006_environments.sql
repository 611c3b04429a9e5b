-- Execution-environment routing and the devcontainer lifecycle (see
-- migrations/sqlite/0006_environments.sql).

CREATE TABLE environment_settings (
    scope        TEXT COLLATE "C" NOT NULL CHECK (scope IN ('project', 'plan')),
    plan         TEXT COLLATE "C" NOT NULL DEFAULT '' CHECK (length(plan) <= 128),
    resource_id  TEXT COLLATE "C" REFERENCES resources (resource_id) ON DELETE CASCADE,
    priority     TEXT NOT NULL CHECK (priority IN ('override', 'fallback')),
    updated_at   TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (scope, plan)
);

CREATE TABLE container_states (
    resource_id   TEXT COLLATE "C" PRIMARY KEY REFERENCES resources (resource_id) ON DELETE CASCADE,
    state         TEXT NOT NULL CHECK (state IN
                      ('detected', 'building', 'running', 'stopped', 'failed')),
    container_id  TEXT CHECK (length(container_id) <= 256),
    tool          TEXT CHECK (length(tool) <= 64),
    config_hash   TEXT CHECK (length(config_hash) <= 128),
    last_error    TEXT CHECK (length(last_error) <= 4096),
    updated_at    TEXT NOT NULL
);
