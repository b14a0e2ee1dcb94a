"""Faults: gunicorn workers killed mid-request, PostgreSQL restarted mid-import.

    .venv/bin/python -m bench.faults                          # every scenario
    .venv/bin/python -m bench.faults --scenario worker-kill   # safe beside other test runs
    .venv/bin/python -m bench.faults --scenario db-restart    # restarts the local cluster
    .venv/bin/python -m bench.faults --scenario job-kill      # safe beside other test runs

Creates a fresh database (l2annot_faults_<pid>) on the local PostgreSQL, seeds a study (the
same generated study as bench.grading_load) and starts gunicorn on a free loopback port.

worker-kill: graders save grades, rate and submit over HTTP while the script SIGKILLs a
gunicorn worker (a child of the master) several times, then every worker at once. Checks:
every save a client saw acknowledged is stored with that value; no grade is half-saved
(an empty grade row, a submitted assignment with a verdict missing, a change of a submitted
grade without its revision); the master respawns the workers and the app answers again
without any manual step (time to recovery measured); a request that died got a connection
error, never a 2xx for something not stored.

db-restart: runs `manage.py import_l2bench` on a generated benchmark (1,000 tasks) and
restarts PostgreSQL (`pg_ctlcluster ... restart -m fast`) while it writes, then while it
publishes; then runs a background import (the upload page's path, `manage.py db_worker`) and
restarts PostgreSQL under it. Checks: the command exits non-zero with a clear message, the
database and MEDIA_ROOT hold none of the import, the running gunicorn serves logged-in pages
again at once (no 500, no restart), the background job ends "failed" (never stuck "running")
and the worker keeps taking jobs, and a re-run of the import gives the whole benchmark.

job-kill: queues a benchmark import as the upload page does, SIGKILLs `manage.py db_worker` in
the middle of it, and follows the job's page as a maintainer. Checks: the job ends "failed"
within the lease (JOB_LEASE_SECONDS) with a message saying its worker stopped, never
"running" for ever; the database holds none of the import; a worker started again runs the next
job.

**db-restart restarts the whole local cluster: never run it beside the test suite.** With
--wait-idle (the default) it waits, before each restart, until no other client is connected to
any other database, and gives up (a failed check) after --idle-timeout seconds. Whatever
happens, PostgreSQL is started again at the end and the database is dropped. Exits 1 if any
check fails. Only 127.0.0.1 is ever contacted.

One module a scenario (`worker_kill`, `db_restart`, `job_kill`), what they share in `common`,
the command line in `__main__`.
"""
