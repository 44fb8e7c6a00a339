-- rigor history, schema version 8: what other processes used of the machine's CPUs over each
-- run (the result's provenance.others_cpus: the machine's busy time less the run's own, in
-- CPUs), so that a check can tell a history measured on a quiet machine from one measured beside
-- other work. NULL where it was not measured (runs stored before, imported files, runs under a
-- quarter of a second).
ALTER TABLE runs ADD COLUMN others_cpus DOUBLE PRECISION;
