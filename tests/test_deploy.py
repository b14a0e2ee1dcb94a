"""Production settings as a fresh process sees them (the test process itself uses plain static
files, so the suite needs no collectstatic)."""

import json
import os
import subprocess
import sys

from django.conf import settings

SHOW = (
    "import json, l2annot.settings as s; "
    "print(json.dumps([s.STORAGES['staticfiles']['BACKEND'], s.MIDDLEWARE[:2], s.DEBUG]))"
)


def settings_of(**env: str) -> list:
    environment = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}}
    out = subprocess.run(
        [sys.executable, "-c", SHOW],
        env=environment | env,
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def test_production_serves_hashed_compressed_static_files_through_whitenoise():
    storage, middleware, debug = settings_of(DEBUG="0")
    assert storage == "whitenoise.storage.CompressedManifestStaticFilesStorage"
    assert middleware[1] == "whitenoise.middleware.WhiteNoiseMiddleware"
    assert debug is False


def test_development_and_tests_serve_the_plain_files():
    plain = "django.contrib.staticfiles.storage.StaticFilesStorage"
    assert settings_of(DEBUG="1")[0] == plain
    assert settings.STORAGES["staticfiles"]["BACKEND"] == plain


def test_the_deployment_guide_states_the_limits_and_sqlite_settings_the_code_has():
    from core.formats import jsonl, l2bench_csv, offline_workbook
    from interchange import jobs
    from rubrics.models import criteria, tasks

    guide = (settings.BASE_DIR / "docs" / "deploy.md").read_text()
    limits = guide.split("## Limits on what is accepted", 1)[1].split("\n## ", 1)[0]
    for stated in (
        f"{jobs.MAX_MEMBERS:,} members",
        f"{jsonl.MAX_INTEGER_DIGITS} digits",
        f"{l2bench_csv.MAX_COLUMNS:,} columns",
        f"{l2bench_csv.MAX_CELL_CHARACTERS:,} characters in a cell",
        f"{offline_workbook.MAX_ROWS:,} rows and {offline_workbook.MAX_COLUMNS} columns",
        f"from -{criteria.WEIGHT_LIMIT} to {criteria.WEIGHT_LIMIT}",
        f"wording {criteria.WORDING_MAX:,} characters",
        f"guidance text {criteria.GUIDANCE_MAX:,}",
        f"task texts {tasks.TASK_TEXT_MAX:,}",
    ):
        assert stated in limits, stated
    sqlite = guide.split("## SQLite", 1)[1].split("\n## ", 1)[0]
    assert "WAL" in sqlite and "`IMMEDIATE`" in sqlite and "synchronous=NORMAL" in sqlite
    assert "| `SQLITE_BUSY_TIMEOUT` | `20` |" in guide
    out = subprocess.run(
        [sys.executable, "-c", "import l2annot.settings as s; print(s.DATABASES['default'])"],
        env={k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for setting in ("'IMMEDIATE'", "'timeout': 20", "journal_mode=WAL", "synchronous=NORMAL"):
        assert setting in out, setting
