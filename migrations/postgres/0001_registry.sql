-- The registry on PostgreSQL: the same tables, columns and constraints
-- as migrations/sqlite/0001_registry.sql, spelled for PostgreSQL.
--
-- Differences, each deliberate:
-- * Text columns compare and sort with COLLATE "C" (bytewise, as SQLite
--   does), whatever the database's locale: listings come out in the same
--   order on both backends.
-- * Flags stay integers 0/1 (SMALLINT), so statements are shared.
-- * Integers are BIGINT (SQLite's are 64-bit).
-- * The per-connection record of written resource types (SQLite: temporary
--   triggers on a temporary table) is a permanent trigger writing into an
--   unlogged table keyed by the server process of the connection: no
--   per-connection setup (a temporary table costs a catalog write on every
--   connection), and rows are transactional like any other.

CREATE TABLE resource_types (
    name                       TEXT COLLATE "C" PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 128),
    namespace                  TEXT COLLATE "C" NOT NULL CHECK (length(namespace) BETWEEN 1 AND 64),
    description                TEXT,
    resource_kind              TEXT CHECK (resource_kind IN ('physical', 'virtual')),
    sandbox_strategy           TEXT CHECK (sandbox_strategy IN
                                   ('git_worktree', 'copy_on_write', 'overlay',
                                    'transaction_rollback', 'none', 'inherit')),
    user_addable               SMALLINT CHECK (user_addable IN (0, 1)),
    built_in                   SMALLINT NOT NULL CHECK (built_in IN (0, 1)),
    handler                    TEXT COLLATE "C" CHECK (length(handler) <= 256),
    inherits                   TEXT COLLATE "C" REFERENCES resource_types (name) ON DELETE RESTRICT,
    args_schema_json           TEXT NOT NULL DEFAULT '[]',
    allowed_parent_types_json  TEXT NOT NULL DEFAULT '[]',
    allowed_child_types_json   TEXT NOT NULL DEFAULT '[]',
    auto_discover_json         TEXT,
    capabilities_json          TEXT NOT NULL DEFAULT '{}',
    equivalence_json           TEXT,
    replace_json               TEXT NOT NULL DEFAULT '{}',
    source                     TEXT NOT NULL CHECK (length(source) <= 256),
    created_at                 TEXT COLLATE "C" NOT NULL,
    updated_at                 TEXT COLLATE "C" NOT NULL
);

CREATE INDEX resource_types_namespace ON resource_types (namespace);
CREATE INDEX resource_types_inherits ON resource_types (inherits);

CREATE TABLE resources (
    resource_id       TEXT COLLATE "C" PRIMARY KEY CHECK (length(resource_id) = 26),
    namespaced_name   TEXT COLLATE "C" UNIQUE CHECK (length(namespaced_name) <= 256),
    namespace         TEXT COLLATE "C" CHECK (length(namespace) <= 64),
    type_name         TEXT COLLATE "C" NOT NULL REFERENCES resource_types (name) ON DELETE RESTRICT,
    resource_kind     TEXT NOT NULL CHECK (resource_kind IN ('physical', 'virtual')),
    location          TEXT COLLATE "C",
    description       TEXT,
    read_only         SMALLINT NOT NULL DEFAULT 0 CHECK (read_only IN (0, 1)),
    auto_discovered   SMALLINT NOT NULL DEFAULT 0 CHECK (auto_discovered IN (0, 1)),
    sandbox_strategy  TEXT CHECK (sandbox_strategy IN
                          ('git_worktree', 'copy_on_write', 'overlay',
                           'transaction_rollback', 'none', 'inherit')),
    content_hash      TEXT CHECK (length(content_hash) <= 128),
    properties_json   TEXT NOT NULL DEFAULT '{}',
    metadata_json     TEXT NOT NULL DEFAULT '{}',
    created_at        TEXT COLLATE "C" NOT NULL,
    updated_at        TEXT COLLATE "C" NOT NULL
);

CREATE INDEX resources_type_name ON resources (type_name);

CREATE TABLE resource_links (
    parent_id        TEXT COLLATE "C" NOT NULL REFERENCES resources (resource_id) ON DELETE CASCADE,
    child_id         TEXT COLLATE "C" NOT NULL REFERENCES resources (resource_id) ON DELETE CASCADE,
    auto_discovered  SMALLINT NOT NULL DEFAULT 0 CHECK (auto_discovered IN (0, 1)),
    created_at       TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (parent_id, child_id),
    CHECK (parent_id <> child_id)
);

CREATE INDEX resource_links_child ON resource_links (child_id, parent_id);

CREATE TABLE registry_meta (
    key    TEXT COLLATE "C" PRIMARY KEY,
    value  TEXT NOT NULL
);

-- The types of resources a connection's transactions insert, delete or
-- change the properties of, until the registry has reconciled identities
-- for them (see `registry::equivalence`). A row left by a connection that
-- ended is only extra work for a later one with the same process id.
CREATE UNLOGGED TABLE written_types (
    backend_pid  INTEGER NOT NULL,
    type_name    TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (backend_pid, type_name)
);

CREATE FUNCTION agents_note_written_type() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO written_types VALUES (pg_backend_pid(), NEW.type_name)
            ON CONFLICT DO NOTHING;
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        INSERT INTO written_types VALUES (pg_backend_pid(), OLD.type_name)
            ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER resources_written
AFTER INSERT OR DELETE OR UPDATE OF properties_json, type_name ON resources
FOR EACH ROW EXECUTE FUNCTION agents_note_written_type();
