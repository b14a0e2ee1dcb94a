"""The command line: `python -m bench.faults [--scenario ...]`."""

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from bench import faults
from bench.faults.common import Checks
from bench.faults.db_restart import db_restart, ensure_postgres
from bench.faults.job_kill import job_kill
from bench.faults.worker_kill import worker_kill
from bench.harness import (
    gunicorn,
    migrate,
    postgres_url,
    seed_study,
    server_environment,
    setup_django,
    throwaway_database,
)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.faults", description=faults.__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--scenario", choices=["worker-kill", "db-restart", "job-kill", "all"], default="all"
    )
    parser.add_argument("--seconds", type=float, default=30, help="worker-kill: grading time")
    parser.add_argument("--graders", type=int, default=10)
    parser.add_argument("--responses", type=int, default=10, help="responses in the study")
    parser.add_argument("--criteria", type=int, default=10, help="criteria per task")
    parser.add_argument("--overlap", type=int, default=3)
    parser.add_argument("--think", type=float, default=0.05, help="mean pause between actions, s")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
    parser.add_argument("--kills", type=int, default=6, help="single-worker kills")
    parser.add_argument("--tasks", type=int, default=1000, help="db-restart: benchmark tasks")
    parser.add_argument(
        "--wait-idle",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="before each restart wait until no other client is connected (default on)",
    )
    parser.add_argument("--idle-timeout", type=float, default=300)
    parser.add_argument("--lease", type=float, default=10, help="job-kill: job lease, seconds")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the database")
    return parser.parse_args()


def main() -> int:
    args = arguments()
    name = f"l2annot_faults_{os.getpid()}"
    work = Path(tempfile.mkdtemp(prefix="l2annot-faults-"))
    env = server_environment(
        postgres_url(name),
        MEDIA_ROOT=str(work / "media"),
        IMPORTS_ROOT=str(work / "imports"),
        TASKS_BACKEND="django_tasks_db.DatabaseBackend",
        JOB_LEASE_SECONDS=str(args.lease),
    )
    checks = Checks()
    try:
        with throwaway_database(env["DATABASE_URL"], keep=args.keep_db):
            try:
                setup_django(env)
                migrate(static_files=True)
                # the last login is the probe's
                study_id, logins = seed_study(
                    args.graders + 1, args.responses, args.criteria, args.overlap
                )
                with gunicorn(env, workers=args.workers, threads=args.threads) as server:
                    if args.scenario in ("worker-kill", "all"):
                        worker_kill(args, checks, server, study_id, logins)
                    if args.scenario in ("job-kill", "all"):
                        job_kill(args, checks, server.port, env, work)
                    if args.scenario in ("db-restart", "all"):
                        try:
                            db_restart(args, checks, server.port, env, name, logins[-1], work)
                        finally:
                            ensure_postgres()
            finally:
                ensure_postgres()  # before the database is dropped
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return checks.report()


if __name__ == "__main__":
    sys.exit(main())
