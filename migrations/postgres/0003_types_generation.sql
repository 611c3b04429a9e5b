-- A counter that moves whenever a type row is inserted, replaced or
-- deleted (see migrations/sqlite/0003_types_generation.sql).

CREATE TABLE types_generation (
    generation  BIGINT NOT NULL
);

INSERT INTO types_generation (generation) VALUES (0);

CREATE FUNCTION agents_types_generation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE types_generation SET generation = generation + 1;
    RETURN NULL;
END
$$;

CREATE TRIGGER resource_types_written
AFTER INSERT OR UPDATE OR DELETE ON resource_types
FOR EACH ROW EXECUTE FUNCTION agents_types_generation();
