-- rigor history, schema version 1.
-- Portable SQL: the same tables are meant to live in PostgreSQL (INTEGER ids, TEXT, REAL).
-- Raw samples are kept whole; summaries are derived and can be rebuilt from them.

CREATE TABLE machines (
    id        INTEGER PRIMARY KEY,
    name      TEXT NOT NULL UNIQUE,
    host      TEXT NOT NULL,
    os        TEXT NOT NULL,
    cpu       TEXT NOT NULL,
    cpus      INTEGER NOT NULL,
    governor  TEXT
);

-- A version: a commit (with its graph facts) or a label (a compiler, a VM, a release).
CREATE TABLE versions (
    id           INTEGER PRIMARY KEY,
    rev          TEXT NOT NULL UNIQUE,
    commit_id    TEXT,
    parents      TEXT,
    author       TEXT,
    commit_time  TEXT,
    subject      TEXT,
    -- Position in the history: the first-parent generation of a commit, or a given order key.
    order_key    INTEGER,
    first_seen   INTEGER NOT NULL
);

CREATE TABLE runs (
    id             INTEGER PRIMARY KEY,
    -- Content hash of the ingested result: the same result twice is stored once.
    fingerprint    TEXT NOT NULL UNIQUE,
    version_id     INTEGER NOT NULL REFERENCES versions(id),
    machine_id     INTEGER NOT NULL REFERENCES machines(id),
    branch         TEXT NOT NULL,
    -- complete | interrupted | running | failed
    status         TEXT NOT NULL,
    seed           TEXT NOT NULL,
    started        TEXT,
    ended          TEXT,
    rigor_version  TEXT NOT NULL,
    settings       TEXT,
    note           TEXT,
    ingested_at    TEXT NOT NULL
);
CREATE INDEX runs_by_version ON runs(machine_id, branch, version_id);

CREATE TABLE benchmarks (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE
);

-- One benchmark of one run: its layout and derived summary.
CREATE TABLE run_benchmarks (
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    benchmark_id  INTEGER NOT NULL REFERENCES benchmarks(id),
    command       TEXT NOT NULL,
    levels        TEXT NOT NULL,
    level_names   TEXT,
    unit          TEXT NOT NULL,
    mean          REAL,
    ci_lower      REAL,
    ci_upper      REAL,
    ci_level      REAL,
    components    TEXT,
    failures      TEXT NOT NULL,
    PRIMARY KEY (run_id, benchmark_id)
);

-- Every lowest-level measurement with its full hierarchy.
CREATE TABLE samples (
    run_id        INTEGER NOT NULL,
    benchmark_id  INTEGER NOT NULL,
    build         INTEGER,
    round         INTEGER NOT NULL,
    execution     INTEGER NOT NULL,
    iteration     INTEGER NOT NULL,
    value         REAL NOT NULL,
    warmup        INTEGER NOT NULL,
    FOREIGN KEY (run_id, benchmark_id) REFERENCES run_benchmarks(run_id, benchmark_id) ON DELETE CASCADE
);
CREATE INDEX samples_by_run ON samples(run_id, benchmark_id);

-- Process-level measurements of each execution.
CREATE TABLE executions (
    run_id        INTEGER NOT NULL,
    benchmark_id  INTEGER NOT NULL,
    build         INTEGER,
    round         INTEGER NOT NULL,
    execution     INTEGER NOT NULL,
    warmup        INTEGER NOT NULL,
    wall          REAL NOT NULL,
    user_time     REAL NOT NULL,
    sys_time      REAL NOT NULL,
    max_rss       INTEGER NOT NULL,
    FOREIGN KEY (run_id, benchmark_id) REFERENCES run_benchmarks(run_id, benchmark_id) ON DELETE CASCADE
);
CREATE INDEX executions_by_run ON executions(run_id, benchmark_id);

-- Detected changes; a user sets their status.
CREATE TABLE changes (
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
    -- new | acknowledged | invalid
    status               TEXT NOT NULL DEFAULT 'new',
    -- Whether the latest detection still finds it (a user's status is kept either way).
    current              INTEGER NOT NULL DEFAULT 1,
    detected_at          TEXT NOT NULL,
    UNIQUE (benchmark_id, machine_id, branch, version_id)
);
