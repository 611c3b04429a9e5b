-- The registry: resource types, resource instances and the DAG links
-- between them. Column names follow the spec's "Database Schema" tables.
--
-- Type rows hold what the type *declares* (a NULL scalar or list means
-- "inherited from `inherits`"); the effective type is resolved on read,
-- so replacing a parent type can never leave stale copies in subtypes.

CREATE TABLE resource_types (
    name                       TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 128),
    namespace                  TEXT NOT NULL CHECK (length(namespace) BETWEEN 1 AND 64),
    description                TEXT,
    resource_kind              TEXT CHECK (resource_kind IN ('physical', 'virtual')),
    sandbox_strategy           TEXT CHECK (sandbox_strategy IN
                                   ('git_worktree', 'copy_on_write', 'overlay',
                                    'transaction_rollback', 'none', 'inherit')),
    user_addable               INTEGER CHECK (user_addable IN (0, 1)),
    built_in                   INTEGER NOT NULL CHECK (built_in IN (0, 1)),
    handler                    TEXT CHECK (length(handler) <= 256),
    inherits                   TEXT REFERENCES resource_types (name) ON DELETE RESTRICT,
    args_schema_json           TEXT NOT NULL DEFAULT '[]',
    allowed_parent_types_json  TEXT NOT NULL DEFAULT '[]',
    allowed_child_types_json   TEXT NOT NULL DEFAULT '[]',
    auto_discover_json         TEXT,
    capabilities_json          TEXT NOT NULL DEFAULT '{}',
    equivalence_json           TEXT,
    -- Which collection fields replace, not merge: {"cli_args":bool,...}.
    replace_json               TEXT NOT NULL DEFAULT '{}',
    source                     TEXT NOT NULL CHECK (length(source) <= 256),
    created_at                 TEXT NOT NULL,
    updated_at                 TEXT NOT NULL
);

CREATE INDEX resource_types_namespace ON resource_types (namespace);
CREATE INDEX resource_types_inherits ON resource_types (inherits);

CREATE TABLE resources (
    resource_id       TEXT PRIMARY KEY CHECK (length(resource_id) = 26),
    namespaced_name   TEXT UNIQUE CHECK (length(namespaced_name) <= 256),
    namespace         TEXT CHECK (length(namespace) <= 64),
    type_name         TEXT NOT NULL REFERENCES resource_types (name) ON DELETE RESTRICT,
    resource_kind     TEXT NOT NULL CHECK (resource_kind IN ('physical', 'virtual')),
    location          TEXT,
    description       TEXT,
    read_only         INTEGER NOT NULL DEFAULT 0 CHECK (read_only IN (0, 1)),
    auto_discovered   INTEGER NOT NULL DEFAULT 0 CHECK (auto_discovered IN (0, 1)),
    sandbox_strategy  TEXT CHECK (sandbox_strategy IN
                          ('git_worktree', 'copy_on_write', 'overlay',
                           'transaction_rollback', 'none', 'inherit')),
    content_hash      TEXT CHECK (length(content_hash) <= 128),
    properties_json   TEXT NOT NULL DEFAULT '{}',
    metadata_json     TEXT NOT NULL DEFAULT '{}',
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);

CREATE INDEX resources_type_name ON resources (type_name);

-- Parent → child edges. The primary key serves "children of P"; the
-- second index serves "parents of C" and the cycle check's walk.
CREATE TABLE resource_links (
    parent_id        TEXT NOT NULL REFERENCES resources (resource_id) ON DELETE CASCADE,
    child_id         TEXT NOT NULL REFERENCES resources (resource_id) ON DELETE CASCADE,
    auto_discovered  INTEGER NOT NULL DEFAULT 0 CHECK (auto_discovered IN (0, 1)),
    created_at       TEXT NOT NULL,
    PRIMARY KEY (parent_id, child_id),
    CHECK (parent_id <> child_id)
) WITHOUT ROWID;

CREATE INDEX resource_links_child ON resource_links (child_id, parent_id);

-- Small facts about the registry itself (e.g. the fingerprint of the
-- built-in catalogue last bootstrapped).
CREATE TABLE registry_meta (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
) WITHOUT ROWID;
