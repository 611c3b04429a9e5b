-- A counter that moves whenever a type row is inserted, replaced or
-- deleted (by any process), so a registry may keep its resolved types
-- between operations and tell with one read whether they are current.
-- Kept by triggers, so no write path can forget it.

CREATE TABLE types_generation (
    generation  INTEGER NOT NULL
);

INSERT INTO types_generation (generation) VALUES (0);

CREATE TRIGGER resource_types_inserted AFTER INSERT ON resource_types
BEGIN
    UPDATE types_generation SET generation = generation + 1;
END;

CREATE TRIGGER resource_types_updated AFTER UPDATE ON resource_types
BEGIN
    UPDATE types_generation SET generation = generation + 1;
END;

CREATE TRIGGER resource_types_deleted AFTER DELETE ON resource_types
BEGIN
    UPDATE types_generation SET generation = generation + 1;
END;
