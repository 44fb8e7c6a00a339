-- rigor history on PostgreSQL, schema version 2: the job queue of a benchmark farm.
-- A job is one comparison: versions measured together (shuffled interleaved rounds) by a worker
-- of one machine class. Workers claim with SELECT … FOR UPDATE SKIP LOCKED, hold a lease they
-- renew (heartbeat), and complete the job in the transaction that stores its results.

CREATE TABLE jobs (
    id             BIGSERIAL PRIMARY KEY,
    -- Same class, branch and spec: the same job (enqueueing twice adds nothing).
    key            TEXT NOT NULL UNIQUE,
    class          TEXT NOT NULL,
    branch         TEXT NOT NULL,
    -- What to measure (JSON: the versions and the experiment's arguments).
    spec           TEXT NOT NULL,
    -- queued | running | done | failed
    state          TEXT NOT NULL DEFAULT 'queued',
    -- Claims so far; a claim's number is its lease token.
    attempts       BIGINT NOT NULL DEFAULT 0,
    worker         TEXT,
    lease_until    TIMESTAMPTZ,
    enqueued_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    started_at     TIMESTAMPTZ,
    finished_at    TIMESTAMPTZ,
    error          TEXT,
    -- The runs its results were stored as (JSON list of run ids).
    runs           TEXT
);
-- Claiming looks at unfinished jobs only: finished ones pile up and must not be scanned.
CREATE INDEX jobs_to_claim ON jobs(class, id) WHERE state IN ('queued', 'running');
