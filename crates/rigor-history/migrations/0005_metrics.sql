-- rigor history, schema version 5: metrics besides wall time (CPU time, peak memory, what a
-- program reports). The process-level metrics of each execution were kept from version 1 on
-- (executions.user_time, sys_time, max_rss); version 5 adds what an execution reported besides
-- them, and a metric to each change, so that a change is one benchmark's change in one metric
-- at one version. Everything stored before is wall time.

-- Each execution's reported metrics (ExecutionRecord.metrics): by the execution's position
-- among its benchmark's executions in the run (from 0, the order `executions` keeps), the
-- metric's name, the unit its values are in (the quantity's base unit: s, B, count, or the
-- program's own) and the values (a JSON array: one, or one per iteration).
CREATE TABLE execution_metrics (
    run_id         INTEGER NOT NULL,
    benchmark_id   INTEGER NOT NULL,
    pos            INTEGER NOT NULL,
    name           TEXT NOT NULL,
    unit           TEXT NOT NULL,
    metric_values  TEXT NOT NULL,
    PRIMARY KEY (run_id, benchmark_id, pos, name),
    FOREIGN KEY (run_id, benchmark_id) REFERENCES run_benchmarks(run_id, benchmark_id) ON DELETE CASCADE
);

-- The changes, with the metric they are of (SQLite cannot change a table's UNIQUE constraint:
-- the table is made again, its rows and ids kept).
CREATE TABLE changes_v5 (
    id                   INTEGER PRIMARY KEY,
    benchmark_id         INTEGER NOT NULL REFERENCES benchmarks(id),
    machine_id           INTEGER NOT NULL REFERENCES machines(id),
    branch               TEXT NOT NULL,
    version_id           INTEGER NOT NULL REFERENCES versions(id),
    previous_version_id  INTEGER REFERENCES versions(id),
    ratio                REAL NOT NULL,
    ci_lower             REAL,
    ci_upper             REAL,
    p_value              REAL NOT NULL,
    q_value              REAL,
    verdict              TEXT NOT NULL,
    method               TEXT NOT NULL,
    status               TEXT NOT NULL DEFAULT 'new',
    current              INTEGER NOT NULL DEFAULT 1,
    detected_at          TEXT NOT NULL,
    evidence             TEXT NOT NULL DEFAULT 'detected'
                         CHECK (evidence IN ('detected', 'confounded', 'confirmed', 'refuted')),
    -- wall, cpu, user, system, peak-memory, instructions, cycles, or a reported metric's name.
    metric               TEXT NOT NULL DEFAULT 'wall',
    UNIQUE (benchmark_id, machine_id, branch, version_id, metric)
);
INSERT INTO changes_v5 (id, benchmark_id, machine_id, branch, version_id, previous_version_id,
    ratio, ci_lower, ci_upper, p_value, q_value, verdict, method, status, current, detected_at,
    evidence, metric)
SELECT id, benchmark_id, machine_id, branch, version_id, previous_version_id, ratio, ci_lower,
    ci_upper, p_value, q_value, verdict, method, status, current, detected_at, evidence, 'wall'
FROM changes;
DROP TABLE changes;
ALTER TABLE changes_v5 RENAME TO changes;
