-- Change detection (`agents resource refresh`, `watch`) and equivalence.
--
-- discovered_at: when the resource's handler last listed its children.
--   NULL means never: the resource lies at the edge of what was explored
--   (found by its parent, not visited), and a refresh leaves it there
--   rather than exploring deeper than anyone asked.
-- stale_reason: why the last refresh could not bring the resource up to
--   date (its location vanished, `validate` refused it, its handler
--   failed); NULL when it is current. A stale resource keeps its row,
--   children and links until it is refreshed successfully or removed.

ALTER TABLE resources ADD COLUMN discovered_at TEXT;
ALTER TABLE resources ADD COLUMN stale_reason TEXT CHECK (length(stale_reason) <= 4096);

-- Registered before this migration: a resource with discovered children
-- was explored.
UPDATE resources SET discovered_at = updated_at
 WHERE resource_id IN (SELECT parent_id FROM resource_links WHERE auto_discovered = 1);

-- derived: a link from a virtual identity to one of its members (an
-- `fs-file` and the `git-tree-entry` at the same path; one commit in two
-- repositories). The registry keeps these in step with the members'
-- properties; an identity never keeps a member (removal ignores them).
ALTER TABLE resource_links ADD COLUMN derived INTEGER NOT NULL DEFAULT 0 CHECK (derived IN (0, 1));
