-- Readable discovered names (issue 26): a discovered name part keeps the
-- file's name as it is (`my notes.txt`, `café.txt`) and escapes only what
-- cannot be shown or typed, as `%XX`. The rename of names the old `_XX`
-- encoding made is a data step in Rust (src/store/readable_names.rs), run
-- right after this file in the same transaction: SQL cannot decode them.
-- Ids and links are unchanged.
SELECT 1;
