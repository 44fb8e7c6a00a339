-- rigor history on PostgreSQL, schema version 5: the farm's jobs carry typed, versioned specs,
-- a cap on their attempts, a wait (a job handed back backs off) with its reason, and the keys
-- of the versions they measure, so that queuing a version again adds nothing whatever the
-- command line looked like.

ALTER TABLE jobs
    -- The spec's format (the application's number); a worker claims only the formats it reads.
    -- The jobs already queued are the command lines of `track enqueue`: format 1.
    ADD COLUMN format INTEGER NOT NULL DEFAULT 1,
    -- Attempts before the job is failed: claims that count (`attempts` − `uncounted`).
    ADD COLUMN max_attempts BIGINT NOT NULL DEFAULT 3,
    -- Claims that are not attempts: handed back to wait, or made before the job was queued
    -- again. (`attempts` counts every claim, and stays the lease token: it only grows, and a
    -- rigor of schema 4 still connected bumps it too.)
    ADD COLUMN uncounted BIGINT NOT NULL DEFAULT 0,
    -- Times the job was handed back to wait since it was queued (each wait twice as long as the
    -- one before).
    ADD COLUMN waits BIGINT NOT NULL DEFAULT 0,
    -- Not claimed before this (a job handed back to wait).
    ADD COLUMN not_before TIMESTAMPTZ,
    -- Why it waits or waited, in words (a commit not yet fetched, a newer format).
    ADD COLUMN note TEXT;
-- The versions a job measures, each by its key: the class, branch, version and measurement
-- settings hashed by the application. A version whose key a job holds is not queued again
-- (unless that job failed and is queued again).
CREATE TABLE job_versions (
    key     TEXT PRIMARY KEY,
    job_id  BIGINT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE
);
CREATE INDEX job_versions_by_job ON job_versions(job_id);
