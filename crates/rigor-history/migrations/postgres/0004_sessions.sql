-- rigor history on PostgreSQL, schema version 4: sessions, and what a run's summary needs to be
-- compared, as ../0003_sessions.sql adds them in SQLite (the same schema; PostgreSQL's count is
-- one more for the job queue). The migration's second half (in Rust) makes the sessions of the
-- runs already stored, fills the spreads and rewrites commit times in UTC, then validates that
-- every run has a session.

CREATE TABLE sessions (
    id             BIGSERIAL PRIMARY KEY,
    machine_id     BIGINT NOT NULL REFERENCES machines(id),
    kind           TEXT NOT NULL
                   CHECK (kind IN ('run', 'worker', 'bisect', 'add', 'confirm', 'check')),
    started        TEXT NOT NULL,
    ended          TEXT,
    load_before    DOUBLE PRECISION,
    load_after     DOUBLE PRECISION,
    rigor_version  TEXT NOT NULL
);
CREATE INDEX sessions_by_machine ON sessions(machine_id);

ALTER TABLE runs
    ADD COLUMN session_id BIGINT REFERENCES sessions(id),
    ADD COLUMN artifact TEXT CHECK (artifact IS NULL OR length(artifact) = 64),
    ADD COLUMN role TEXT NOT NULL DEFAULT 'new' CHECK (role IN ('new', 'anchor', 'confirm')),
    -- Checked for every run written from now on; the runs already stored get their sessions
    -- next, and the constraint is then validated.
    ADD CONSTRAINT runs_need_a_session CHECK (session_id IS NOT NULL) NOT VALID;
CREATE INDEX runs_by_session ON runs(session_id);

-- What a change rests on (see the SQLite migration).
ALTER TABLE changes ADD COLUMN evidence TEXT NOT NULL DEFAULT 'detected'
    CHECK (evidence IN ('detected', 'confounded', 'confirmed', 'refuted'));

ALTER TABLE run_benchmarks
    ADD COLUMN var_of_mean DOUBLE PRECISION,
    ADD COLUMN units BIGINT,
    -- The run's level as detection and the pages take it (the median of the top-level unit
    -- means) and its variance; NULL with fewer than two top-level units.
    ADD COLUMN level DOUBLE PRECISION,
    ADD COLUMN var_of_level DOUBLE PRECISION;
