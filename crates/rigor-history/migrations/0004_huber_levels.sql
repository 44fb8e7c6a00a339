-- rigor history, schema version 4: run_benchmarks.level and var_of_level hold Huber's
-- M-estimate of the run's top-level unit means and its variance (before: their median and the
-- median's variance), efficient under ordinary noise and robust to slowed executions. The
-- values are recomputed from the stored samples by the code that opens the history (rows
-- without samples keep their mean, which stood for the level already).
SELECT 1;
