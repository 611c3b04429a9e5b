-- Sandboxes (`agents sandbox …`, issue 12): a private copy of a resource
-- an agent may change, checkpoint, roll back, diff and apply. The files
-- live under the home (sandboxes/<sandbox_id>/); these rows say what
-- exists, so sandboxes survive restarts.
--
-- state:
--   creating    the row was written before the strategy made anything on
--               disk; a crash leaves this, and `destroy` cleans it up.
--   active      usable.
--   destroying  `destroy` began removing the files; a crash leaves this,
--               and `destroy` finishes the job.
-- A resource with a sandbox row cannot be removed (RESTRICT): the
-- registry refuses first, naming the sandboxes, unless asked to destroy
-- them.

CREATE TABLE sandboxes (
    sandbox_id   TEXT PRIMARY KEY CHECK (length(sandbox_id) = 26),
    resource_id  TEXT NOT NULL REFERENCES resources (resource_id) ON DELETE RESTRICT,
    strategy     TEXT NOT NULL CHECK (strategy IN
                     ('git_worktree', 'copy_on_write', 'overlay',
                      'transaction_rollback', 'none')),
    state        TEXT NOT NULL CHECK (state IN ('creating', 'active', 'destroying')),
    original     TEXT NOT NULL,
    area         TEXT NOT NULL,
    workdir      TEXT,
    base         TEXT,
    last_error   TEXT CHECK (length(last_error) <= 4096),
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);

CREATE INDEX sandboxes_resource ON sandboxes (resource_id);

-- Checkpoints, numbered from 1 per sandbox. A row is written only after
-- its strategy finished the checkpoint on disk, so a crash halfway leaves
-- no half-recorded checkpoint (at worst an unreferenced one on disk, which
-- `destroy` removes with the rest).
CREATE TABLE sandbox_checkpoints (
    sandbox_id  TEXT NOT NULL REFERENCES sandboxes (sandbox_id) ON DELETE CASCADE,
    number      INTEGER NOT NULL CHECK (number >= 1),
    label       TEXT CHECK (length(label) <= 200),
    reference   TEXT NOT NULL CHECK (length(reference) <= 4096),
    created_at  TEXT NOT NULL,
    PRIMARY KEY (sandbox_id, number)
) WITHOUT ROWID;
