-- Where an installed plugin came from (issue 39): the OCI registry (or
-- image-layout directory), repository, tag, the manifest and layer
-- digests it was pulled by, and who signed it. One row per module that
-- `agents plugin install` (or `update`) added; a module added from a file
-- has none, and a re-add from a file drops it. It goes with its plugin.

CREATE TABLE plugin_provenance (
    module           TEXT PRIMARY KEY REFERENCES plugins (module) ON DELETE CASCADE,
    registry         TEXT NOT NULL CHECK (length(registry) BETWEEN 1 AND 4096),
    repository       TEXT NOT NULL CHECK (length(repository) BETWEEN 1 AND 255),
    tag              TEXT CHECK (tag IS NULL OR length(tag) BETWEEN 1 AND 128),
    manifest_digest  TEXT NOT NULL CHECK (length(manifest_digest) = 71),
    layer_digest     TEXT NOT NULL CHECK (length(layer_digest) = 71),
    contract         TEXT NOT NULL CHECK (length(contract) BETWEEN 1 AND 32),
    signer           TEXT CHECK (signer IS NULL OR length(signer) = 16),
    unsigned_allowed INTEGER NOT NULL CHECK (unsigned_allowed IN (0, 1)),
    installed_at     TEXT NOT NULL
);
