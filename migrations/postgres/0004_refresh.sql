-- Change detection and equivalence (see migrations/sqlite/0004_refresh.sql).

ALTER TABLE resources ADD COLUMN discovered_at TEXT COLLATE "C";
ALTER TABLE resources ADD COLUMN stale_reason TEXT CHECK (length(stale_reason) <= 4096);

UPDATE resources SET discovered_at = updated_at
 WHERE resource_id IN (SELECT parent_id FROM resource_links WHERE auto_discovered = 1);

ALTER TABLE resource_links ADD COLUMN derived SMALLINT NOT NULL DEFAULT 0 CHECK (derived IN (0, 1));
