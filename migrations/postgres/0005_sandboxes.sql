-- Sandboxes (see migrations/sqlite/0005_sandboxes.sql).

CREATE TABLE sandboxes (
    sandbox_id   TEXT COLLATE "C" PRIMARY KEY CHECK (length(sandbox_id) = 26),
    resource_id  TEXT COLLATE "C" NOT NULL REFERENCES resources (resource_id) ON DELETE RESTRICT,
    strategy     TEXT NOT NULL CHECK (strategy IN
                     ('git_worktree', 'copy_on_write', 'overlay',
                      'transaction_rollback', 'none')),
    state        TEXT NOT NULL CHECK (state IN ('creating', 'active', 'destroying')),
    original     TEXT NOT NULL,
    area         TEXT NOT NULL,
    workdir      TEXT,
    base         TEXT,
    last_error   TEXT CHECK (length(last_error) <= 4096),
    created_at   TEXT COLLATE "C" NOT NULL,
    updated_at   TEXT COLLATE "C" NOT NULL
);

CREATE INDEX sandboxes_resource ON sandboxes (resource_id);

CREATE TABLE sandbox_checkpoints (
    sandbox_id  TEXT COLLATE "C" NOT NULL REFERENCES sandboxes (sandbox_id) ON DELETE CASCADE,
    number      BIGINT NOT NULL CHECK (number >= 1),
    label       TEXT CHECK (length(label) <= 200),
    reference   TEXT NOT NULL CHECK (length(reference) <= 4096),
    created_at  TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (sandbox_id, number)
);
