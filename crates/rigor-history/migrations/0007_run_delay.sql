-- rigor history, schema version 7: how long each execution's process waited, ready to run, for a
-- CPU other processes held (the result's executions[].run_delay, seconds: Linux's run-queue
-- delay), so that a check can tell contention from a program's own waiting. NULL where it was not
-- measured (executions stored before, imported files, other systems, commands whose work ran in
-- child processes or threads).
ALTER TABLE executions ADD COLUMN run_delay REAL;
