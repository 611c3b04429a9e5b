-- Where an installed plugin came from (see
-- migrations/sqlite/0011_plugin_provenance.sql).

CREATE TABLE plugin_provenance (
    module           TEXT COLLATE "C" PRIMARY KEY REFERENCES plugins (module) ON DELETE CASCADE,
    registry         TEXT NOT NULL CHECK (length(registry) BETWEEN 1 AND 4096),
    repository       TEXT NOT NULL CHECK (length(repository) BETWEEN 1 AND 255),
    tag              TEXT CHECK (tag IS NULL OR length(tag) BETWEEN 1 AND 128),
    manifest_digest  TEXT COLLATE "C" NOT NULL CHECK (length(manifest_digest) = 71),
    layer_digest     TEXT COLLATE "C" NOT NULL CHECK (length(layer_digest) = 71),
    contract         TEXT NOT NULL CHECK (length(contract) BETWEEN 1 AND 32),
    signer           TEXT COLLATE "C" CHECK (signer IS NULL OR length(signer) = 16),
    unsigned_allowed SMALLINT NOT NULL CHECK (unsigned_allowed IN (0, 1)),
    installed_at     TEXT COLLATE "C" NOT NULL
);
