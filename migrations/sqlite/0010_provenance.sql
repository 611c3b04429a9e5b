-- Provenance (issue 36): who registered each resource and who made each
-- link by hand, and through which face (cli, mcp, python, library, watch).
-- NULL: stored before this version, when nobody recorded it. A link made
-- by discovery records none (the files on disk put it there).
ALTER TABLE resources ADD COLUMN registered_face TEXT;
ALTER TABLE resources ADD COLUMN registered_by TEXT;
ALTER TABLE resource_links ADD COLUMN linked_face TEXT;
ALTER TABLE resource_links ADD COLUMN linked_by TEXT;
-- Each name's confusable skeleton (Unicode TR39), so that a chosen name
-- looking like an existing one in another script is found by an index;
-- filled for the rows already there by this migration's data step.
ALTER TABLE resources ADD COLUMN name_skeleton TEXT;
CREATE INDEX resources_name_skeleton ON resources (name_skeleton);
