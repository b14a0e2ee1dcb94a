"""`manage.py check --deploy` is clean with the environment production sets (docs/deploy.md).

Run in a fresh process: settings.py reads the environment once, at import, and that mapping from
variables to settings is what is under test.
"""

import os
import secrets
import subprocess
import sys

from django.conf import settings

PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "annot.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://annot.example.org",
    "SECURE_SSL_REDIRECT": "1",
    "BEHIND_TLS_PROXY": "1",
}


# Set by the browser tests' live server in the same process; never in production.
NOT_IN_PRODUCTION = {"DJANGO_ALLOW_ASYNC_UNSAFE", *PRODUCTION}


def _check_deploy(env: dict[str, str], *tags: str) -> subprocess.CompletedProcess[str]:
    """`manage.py check --deploy` under `env`: the checks of those tags, or all of them."""
    return subprocess.run(
        [
            sys.executable,
            "manage.py",
            "check",
            "--deploy",
            "--fail-level",
            "WARNING",
            *(f"--tag={tag}" for tag in tags),
        ],
        cwd=settings.BASE_DIR,
        env={k: v for k, v in os.environ.items() if k not in NOT_IN_PRODUCTION} | env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_under_production_settings() -> None:
    result = _check_deploy(PRODUCTION)

    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


# The two tests below change what only the security checks read (the key, HSTS): they run those
# alone, half the time of every check (drf-spectacular's builds the whole API schema), which
# ran clean under the production settings above.


def test_check_deploy_flags_the_development_key() -> None:
    result = _check_deploy({k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}, "security")

    assert result.returncode != 0
    assert "security.W009" in result.stderr


def test_hsts_preload_is_an_opt_in_that_check_deploy_accepts() -> None:
    assert _check_deploy(PRODUCTION | {"SECURE_HSTS_PRELOAD": "1"}, "security").returncode == 0


def test_production_hashes_passwords_at_least_as_strongly_as_djangos_default() -> None:
    """A sign-in's time is its password hash (docs/deploy.md, "Sign-in time"): never bought
    back by weakening it. The tests themselves hash fast (tests/conftest.py), production not."""
    read = (
        "from django.contrib.auth.hashers import get_hasher; "
        "print(get_hasher().algorithm, getattr(get_hasher(), 'iterations', 0))"
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "--verbosity", "0", "-c", read],
        cwd=settings.BASE_DIR,
        env={k: v for k, v in os.environ.items() if k not in NOT_IN_PRODUCTION} | PRODUCTION,
        capture_output=True,
        text=True,
        timeout=120,
    )
    algorithm, iterations = result.stdout.split()
    assert algorithm in ("pbkdf2_sha256", "argon2", "scrypt"), result.stderr
    assert algorithm != "pbkdf2_sha256" or int(iterations) >= 1_500_000
