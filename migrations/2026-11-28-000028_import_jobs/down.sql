DROP FUNCTION tally_rfc3339(TIMESTAMPTZ);
DELETE FROM permissions WHERE resource = 'imports';
DROP TABLE import_row_errors;
DROP TABLE import_chunks;
DROP TABLE import_jobs;
