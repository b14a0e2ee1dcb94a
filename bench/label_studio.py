"""Responses import against Label Studio's API import of the same 10,000 responses.

Label Studio is not a dependency of this project: install it in a virtual environment of its
own and give its command to the script (it is started on a free loopback port with a data
folder in /tmp, its own SQLite database, and stopped at the end):

    python3.12 -m venv /tmp/lsvenv && /tmp/lsvenv/bin/pip install label-studio==1.23.2
    .venv/bin/python -m bench.label_studio --label-studio /tmp/lsvenv/bin/label-studio
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python -m bench.label_studio ...

In the same run, `--repeats` times in turn (so that a busy moment weighs on both alike): one
POST of the 10,000 responses as Label Studio tasks (text, model, epoch, task key) to
/api/projects/<id>/import of a new project with a pass/fail labelling config, answered when
the tasks are stored; and our `import_responses` of the same responses from JSONL into a
fresh copy of the imported benchmark (on SQLite in memory, or a throw-away PostgreSQL database
like bench.bench_import). Prints the medians and their ratio; exits 1 above TARGET_RATIO.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from bench.bench_import import database_url
from bench.harness import free_port, generated_benchmark, migrate, setup_django, throwaway_database

TARGET_RATIO = 0.33
TOKEN = "benchtoken0123456789"
CONFIG = (
    '<View><Text name="text" value="$text"/>'
    '<Choices name="verdict" toName="text"><Choice value="pass"/><Choice value="fail"/></Choices>'
    "</View>"
)


def call(base: str, method: str, path: str, body: object = None, timeout: float = 600) -> object:
    request = urllib.request.Request(
        base + path,
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"Authorization": f"Token {TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read() or b"null")


def start_label_studio(command: str, data: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(
        os.environ,
        LABEL_STUDIO_BASE_DATA_DIR=data,
        DJANGO_DB="sqlite",
        COLLECT_ANALYTICS="false",  # no call out of the machine
        SENTRY_DSN="",
        FRONTEND_SENTRY_DSN="",
    )
    # Ours, inherited from setup_django: Label Studio, a Django project too, would read them
    # (with l2annot.settings it exits at once: no module named l2annot).
    env.pop("DATABASE_URL", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    process = subprocess.Popen(
        [
            command,
            "start",
            "--no-browser",
            "--internal-host",
            "127.0.0.1",
            "-p",
            str(port),
            "--username",
            "bench@example.com",
            "--password",
            "bench-password-1",
            "--user-token",
            TOKEN,
            "--enable-legacy-api-token",  # the token above; 1.23 turns them off by default
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600  # the first start migrates its database
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Label Studio exited with status {process.returncode}")
        try:
            call(base, "GET", "/api/projects")
            return process, base
        except urllib.error.HTTPError as error:  # up, but refusing the token: say so at once
            process.terminate()
            raise RuntimeError(f"Label Studio refused the API token: {error}") from error
        except OSError:
            time.sleep(2)
    process.terminate()
    raise RuntimeError("Label Studio did not answer within 10 minutes")


def label_studio_import(base: str, tasks: list[dict[str, object]]) -> float:
    project = call(base, "POST", "/api/projects", {"title": "bench", "label_config": CONFIG})
    start = time.perf_counter()
    result = call(base, "POST", f"/api/projects/{project['id']}/import", tasks)  # type: ignore[index]
    seconds = time.perf_counter() - start
    stored = call(base, "GET", f"/api/projects/{project['id']}")
    assert stored["task_number"] == len(tasks), (result, stored)  # type: ignore[index]
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--label-studio", default="", help="the label-studio command to start")
    parser.add_argument(
        "--url", default="", help=f"a Label Studio already running, user token {TOKEN}"
    )
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="bench-ls-data-")
    process = None
    ours, theirs = [], []
    try:
        with throwaway_database(database_url()) as url:
            setup_django({"DATABASE_URL": url})
            migrate()
            from django.db import connection

            generated = generated_benchmark("bench-ls-")
            tasks = [
                {"text": r.response, "model": r.model, "epoch": r.epoch, "task_key": r.task_key}
                for r in generated.responses
            ]
            if args.url:
                base = args.url.rstrip("/")
            else:
                process, base = start_label_studio(args.label_studio, data)

            from audit.models import AuditEvent
            from interchange.importers import import_l2bench, import_responses
            from rubrics.models import Response

            assert import_l2bench(generated.folder / "bench", generated.framework).ok
            for _ in range(args.repeats):
                theirs.append(label_studio_import(base, tasks))
                start = time.perf_counter()
                report = import_responses(generated.folder / "responses.jsonl", generated.framework)
                ours.append(time.perf_counter() - start)
                assert report.ok and report.counts["responses"].created == len(tasks)
                AuditEvent.objects.filter(content_type__model="response").delete()
                Response.objects.all().delete()
            vendor = connection.vendor
    finally:
        if process is not None:
            process.terminate()
            process.wait(30)
        shutil.rmtree(data, ignore_errors=True)
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(f"{len(tasks)} responses; our database: {vendor}; Label Studio on its SQLite")
    print(f"Label Studio API import: {', '.join(f'{s:.2f}' for s in theirs)} s")
    print(f"import_responses:        {', '.join(f'{s:.2f}' for s in ours)} s")
    print(f"ratio of the medians: {ratio:.2f} (target <= {TARGET_RATIO})")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
