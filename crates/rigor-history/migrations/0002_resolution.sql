-- rigor history, schema version 2: the resolution of what was measured — the step its times
-- move in, in seconds (a timer's step divided by the evaluations per sample) — so that intervals
-- and changes computed from the history are floored at ± half a step, as `rigor compare` floors
-- them. Per execution, as the result file keeps it, and per benchmark of a run (the coarsest of
-- its measured executions) beside the stored summary. NULL: none reported, which is every row
-- stored before version 2 (no floor).

ALTER TABLE executions ADD COLUMN resolution REAL;
ALTER TABLE run_benchmarks ADD COLUMN resolution REAL;
