"""The OpenID provider of tests/oidc_provider in its own process on a free loopback port, and
a person's part of its login (the provider's login form and its consent page), with requests.
Starting it (migrations, an RSA key) takes a few seconds: once per test module."""

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from html import unescape
from pathlib import Path

import requests
from django.conf import settings

from tests.app_processes import free_port
from tests.oidc_provider.people import PASSWORD


@contextmanager
def running_provider(tmp_path: Path, redirect_uri: str) -> Iterator[str]:
    """Yields the provider's issuer (`http://127.0.0.1:<port>/openid`)."""
    port = free_port()
    log = (tmp_path / "oidc-provider.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.oidc_provider.serve", str(port),
         str(tmp_path / "provider.sqlite3"), redirect_uri],
        cwd=settings.BASE_DIR,
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    log.close()
    issuer = f"http://127.0.0.1:{port}/openid"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(f"{issuer}/.well-known/openid-configuration", timeout=5)
                break
            except requests.ConnectionError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.1)
        yield issuer
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _form_fields(html: str) -> dict[str, str]:
    fields = re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', html)
    return {name: unescape(value) for name, value in fields}


def log_in_at_provider(authorize_url: str, username: str, *, allow: bool = True) -> str:
    """What a person does at the provider: log in there, then allow (or decline) the request
    on its consent page. Returns the address the provider sends the browser back to."""
    browser = requests.Session()
    login_page = browser.get(authorize_url, timeout=10)  # the provider's login form
    answer = browser.post(
        login_page.url,
        data={
            "csrfmiddlewaretoken": _form_fields(login_page.text)["csrfmiddlewaretoken"],
            "username": username,
            "password": PASSWORD,
            "next": _form_fields(login_page.text)["next"],
        },
        timeout=10,
    )  # now the consent page
    consent = _form_fields(answer.text)
    consent.pop("allow", None)
    if allow:
        consent["allow"] = "Authorize"
    back = browser.post(answer.url, data=consent, allow_redirects=False, timeout=10)
    assert back.status_code == 302, back.text[:500]
    return back.headers["Location"]
