-- rigor history on PostgreSQL, schema version 3: the resolution of what was measured (seconds),
-- per execution and per benchmark of a run, as ../0002_resolution.sql adds it in SQLite. NULL:
-- none reported, which is every row stored before version 3 (no floor).

ALTER TABLE executions ADD COLUMN resolution DOUBLE PRECISION;
ALTER TABLE run_benchmarks ADD COLUMN resolution DOUBLE PRECISION;
