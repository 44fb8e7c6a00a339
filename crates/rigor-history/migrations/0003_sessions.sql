-- rigor history, schema version 3: sessions, and what a run's summary needs to be compared.
--
-- A session is one sitting of a machine in which runs are measured (a batch of versions measured
-- together, a farm's job, a bisection; `add` for results stored from files): what varies between
-- sessions is told from what varies between versions. Every run belongs to one; a run stored
-- without one gets a session of its own. The migration's second half (in Rust) makes the
-- sessions of the runs already stored, fills the spreads below and rewrites commit times in UTC.
--
-- Times are RFC 3339 text in UTC, as every time of the history.

CREATE TABLE sessions (
    id             INTEGER PRIMARY KEY,
    machine_id     INTEGER NOT NULL REFERENCES machines(id),
    kind           TEXT NOT NULL
                   CHECK (kind IN ('run', 'worker', 'bisect', 'add', 'confirm', 'check')),
    started        TEXT NOT NULL,
    -- NULL: still running, or killed.
    ended          TEXT,
    -- The machine's 1-minute load average as the session started and ended, when known.
    load_before    REAL,
    load_after     REAL,
    rigor_version  TEXT NOT NULL
);
CREATE INDEX sessions_by_machine ON sessions(machine_id);

-- The session of each run (SQLite cannot add a NOT NULL column that references a table: the
-- triggers below refuse a run without one).
ALTER TABLE runs ADD COLUMN session_id INTEGER REFERENCES sessions(id);
-- The SHA-256 (64 hexadecimal digits) of what the version's build produced, when known.
ALTER TABLE runs ADD COLUMN artifact TEXT CHECK (artifact IS NULL OR length(artifact) = 64);
-- What the run was measured for: a new version, an anchor measured again beside new ones, or a
-- version measured again to confirm a change.
ALTER TABLE runs ADD COLUMN role TEXT NOT NULL DEFAULT 'new'
    CHECK (role IN ('new', 'anchor', 'confirm'));
CREATE INDEX runs_by_session ON runs(session_id);
CREATE TRIGGER runs_need_a_session BEFORE INSERT ON runs WHEN NEW.session_id IS NULL
BEGIN
    SELECT RAISE(ABORT, 'a run needs a session');
END;
CREATE TRIGGER runs_keep_a_session BEFORE UPDATE OF session_id ON runs
WHEN NEW.session_id IS NULL
BEGIN
    SELECT RAISE(ABORT, 'a run needs a session');
END;

-- What comparing a run's mean with another's needs (Fieller's inputs), from the run's own
-- samples: the variance of the mean S²/r (in the square of the benchmark's unit) and the
-- top-level count r. NULL with fewer than two top-level units.
-- What a change rests on: detected over the series; confounded with a session boundary (no
-- session measured versions on both sides of it); confirmed or refuted by measuring both sides
-- again together. A confirmation or refutation survives later detections.
ALTER TABLE changes ADD COLUMN evidence TEXT NOT NULL DEFAULT 'detected'
    CHECK (evidence IN ('detected', 'confounded', 'confirmed', 'refuted'));

ALTER TABLE run_benchmarks ADD COLUMN var_of_mean REAL;
ALTER TABLE run_benchmarks ADD COLUMN units INTEGER;
-- The run's level as detection and the pages take it: a robust estimate of the mean (the median
-- of the top-level unit means) and its variance ((π/2)·σ̂²/r, σ̂ from their MAD). NULL with fewer
-- than two top-level units.
ALTER TABLE run_benchmarks ADD COLUMN level REAL;
ALTER TABLE run_benchmarks ADD COLUMN var_of_level REAL;
