-- rigor history, schema version 7 (SQLite's 5): metrics besides wall time (CPU time, peak
-- memory, what a program reports). The process-level metrics of each execution were kept from
-- the start (executions.user_time, sys_time, max_rss); this adds what an execution reported
-- besides them, and a metric to each change, so that a change is one benchmark's change in one
-- metric at one version. Everything stored before is wall time.

-- Each execution's reported metrics (ExecutionRecord.metrics): by the execution's position
-- among its benchmark's executions in the run (from 0), the metric's name, the unit its values
-- are in (the quantity's base unit: s, B, count, or the program's own) and the values (a JSON
-- array: one, or one per iteration).
CREATE TABLE execution_metrics (
    run_id         BIGINT NOT NULL,
    benchmark_id   BIGINT NOT NULL,
    pos            BIGINT NOT NULL,
    name           TEXT NOT NULL,
    unit           TEXT NOT NULL,
    metric_values  TEXT NOT NULL,
    PRIMARY KEY (run_id, benchmark_id, pos, name),
    FOREIGN KEY (run_id, benchmark_id) REFERENCES run_benchmarks(run_id, benchmark_id) ON DELETE CASCADE
);

-- wall, cpu, user, system, peak-memory, instructions, cycles, or a reported metric's name.
ALTER TABLE changes ADD COLUMN metric TEXT NOT NULL DEFAULT 'wall';
ALTER TABLE changes DROP CONSTRAINT changes_benchmark_id_machine_id_branch_version_id_key;
ALTER TABLE changes ADD CONSTRAINT changes_benchmark_metric_version_key
    UNIQUE (benchmark_id, machine_id, branch, version_id, metric);
