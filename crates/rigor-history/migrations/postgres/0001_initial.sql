-- rigor history on PostgreSQL, schema version 1: the tables of ../0001_initial.sql (SQLite) with
-- PostgreSQL's types. Differences, all invisible through the History trait:
--   * ids are BIGSERIAL (SQLite: INTEGER PRIMARY KEY), REAL is DOUBLE PRECISION, flags are BOOLEAN;
--   * versions.first_seen comes from a sequence (safe with concurrent writers);
--   * samples and executions keep their order in `pos` (SQLite reads them in rowid order).

CREATE TABLE machines (
    id        BIGSERIAL PRIMARY KEY,
    name      TEXT NOT NULL UNIQUE,
    host      TEXT NOT NULL,
    os        TEXT NOT NULL,
    cpu       TEXT NOT NULL,
    cpus      BIGINT NOT NULL,
    governor  TEXT
);

CREATE TABLE versions (
    id           BIGSERIAL PRIMARY KEY,
    rev          TEXT NOT NULL UNIQUE,
    commit_id    TEXT,
    parents      TEXT,
    author       TEXT,
    commit_time  TEXT,
    subject      TEXT,
    order_key    BIGINT,
    first_seen   BIGSERIAL
);

CREATE TABLE runs (
    id             BIGSERIAL PRIMARY KEY,
    fingerprint    TEXT NOT NULL UNIQUE,
    version_id     BIGINT NOT NULL REFERENCES versions(id),
    machine_id     BIGINT NOT NULL REFERENCES machines(id),
    branch         TEXT NOT NULL,
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
    id    BIGSERIAL PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE
);

CREATE TABLE run_benchmarks (
    run_id        BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    benchmark_id  BIGINT NOT NULL REFERENCES benchmarks(id),
    command       TEXT NOT NULL,
    levels        TEXT NOT NULL,
    level_names   TEXT,
    unit          TEXT NOT NULL,
    mean          DOUBLE PRECISION,
    ci_lower      DOUBLE PRECISION,
    ci_upper      DOUBLE PRECISION,
    ci_level      DOUBLE PRECISION,
    components    TEXT,
    failures      TEXT NOT NULL,
    PRIMARY KEY (run_id, benchmark_id)
);

CREATE TABLE samples (
    run_id        BIGINT NOT NULL,
    benchmark_id  BIGINT NOT NULL,
    pos           BIGINT NOT NULL,
    build         BIGINT,
    round         BIGINT NOT NULL,
    execution     BIGINT NOT NULL,
    iteration     BIGINT NOT NULL,
    value         DOUBLE PRECISION NOT NULL,
    warmup        BOOLEAN NOT NULL,
    FOREIGN KEY (run_id, benchmark_id) REFERENCES run_benchmarks(run_id, benchmark_id) ON DELETE CASCADE
);
CREATE INDEX samples_by_run ON samples(run_id, benchmark_id);

CREATE TABLE executions (
    run_id        BIGINT NOT NULL,
    benchmark_id  BIGINT NOT NULL,
    pos           BIGINT NOT NULL,
    build         BIGINT,
    round         BIGINT NOT NULL,
    execution     BIGINT NOT NULL,
    warmup        BOOLEAN NOT NULL,
    wall          DOUBLE PRECISION NOT NULL,
    user_time     DOUBLE PRECISION NOT NULL,
    sys_time      DOUBLE PRECISION NOT NULL,
    max_rss       BIGINT NOT NULL,
    FOREIGN KEY (run_id, benchmark_id) REFERENCES run_benchmarks(run_id, benchmark_id) ON DELETE CASCADE
);
CREATE INDEX executions_by_run ON executions(run_id, benchmark_id);

CREATE TABLE changes (
    id                   BIGSERIAL PRIMARY KEY,
    benchmark_id         BIGINT NOT NULL REFERENCES benchmarks(id),
    machine_id           BIGINT NOT NULL REFERENCES machines(id),
    branch               TEXT NOT NULL,
    version_id           BIGINT NOT NULL REFERENCES versions(id),
    previous_version_id  BIGINT REFERENCES versions(id),
    ratio                DOUBLE PRECISION NOT NULL,
    ci_lower             DOUBLE PRECISION,
    ci_upper             DOUBLE PRECISION,
    p_value              DOUBLE PRECISION NOT NULL,
    q_value              DOUBLE PRECISION,
    verdict              TEXT NOT NULL,
    method               TEXT NOT NULL,
    status               TEXT NOT NULL DEFAULT 'new',
    current              BOOLEAN NOT NULL DEFAULT TRUE,
    detected_at          TEXT NOT NULL,
    UNIQUE (benchmark_id, machine_id, branch, version_id)
);
