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
