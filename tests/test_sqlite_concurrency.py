"""The default setup (`make run`: SQLite file, development server, background worker) under
concurrent writes: graders saving and submitting, an admin adding users, the worker polling.
Every request must be answered without a server error ("database is locked" was a 500).

This runs the real processes on a SQLite file, as `make run` does: the test database of the
suite is in memory, where SQLite's file locking does not happen.
"""

import re
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from accounts.models import User
from accounts.roles import Role
from tests import factories
from tests.app_processes import csrf_token, running_server

pytestmark = pytest.mark.skipif(
    not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"),
    reason="the SQLite file setup of `make run`",
)

GRADERS = ["annotator", "annotator2", "annotator3"]
ROUNDS = 3  # each grader saves every criterion of their response this many times, then submits
NEW_USERS = 6
PASSWORD = "pw-everyone"


@pytest.fixture
def running_app(transactional_db, make_user, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`make run` on a SQLite file: the suite's migrated database with three graders, an admin
    and a study, copied to a file; the background worker and the development server on it."""
    graders = [make_user(Role.ANNOTATOR, name) for name in GRADERS]
    make_user(Role.ADMIN, "admin")
    # The server checks passwords with production's hasher, which takes a third of a second of
    # CPU a password: the users share one, hashed once (the suite's own hasher is not the
    # server's), and each login still checks it in full.
    hasher = PBKDF2PasswordHasher()
    User.objects.update(password=hasher.encode(PASSWORD, hasher.salt()))
    # A grader's submit claims their next response at once: with two responses a grader, one
    # who submits before another has claimed a first cannot take the other's.
    factories.study(graders, responses=2 * len(GRADERS), overlap=1)
    with running_server(tmp_path) as (base, start):
        # Without the reloader, as the development server: it watches files, not the database.
        start("db_worker", "--no-reload", "--interval", "0.05")
        yield base, tmp_path / "db.sqlite3"


def _server_errors(folder: Path) -> str:
    """The exception lines of the development server's log (`running_server` writes it)."""
    lines = [
        line
        for log in sorted(folder.glob("runserver-*.log"))
        for line in log.read_text(errors="replace").splitlines()
        if "Error" in line or "locked" in line
    ]
    return "\n".join(lines[-20:])


def _summary(answer: requests.Response) -> str:
    """A server error in one line: the exception the development server's error page names."""
    title = re.search(r"<title>(.*?)</title>", answer.text, re.S)
    return f"{answer.status_code} {title.group(1).strip() if title else answer.text[:200]}"


def _login(base: str, username: str) -> requests.Session:
    session = requests.Session()
    page = session.get(f"{base}/accounts/login/", timeout=30)
    answer = session.post(
        f"{base}/accounts/login/",
        data={
            "username": username,
            "password": PASSWORD,
            "csrfmiddlewaretoken": csrf_token(page.text),
        },
        headers={"Referer": f"{base}/accounts/login/"},
        timeout=30,
    )
    assert answer.ok and "sessionid" in session.cookies, f"{username} could not log in"
    return session


def _grade(base: str, username: str, statuses: Counter, errors: list[str]) -> None:
    session = _login(base, username)

    def record(answer: requests.Response, what: str) -> requests.Response:
        statuses[answer.status_code] += 1
        if answer.status_code >= 500:
            errors.append(f"{username} {what}: {_summary(answer)}")
        return answer

    index = session.get(f"{base}/grading/", timeout=30)
    study = re.search(r"/grading/studies/(\d+)/next/", index.text)
    assert study, f"{username} has no study to grade"
    page = record(
        session.post(
            f"{base}/grading/studies/{study.group(1)}/next/",
            data={"csrfmiddlewaretoken": csrf_token(index.text)},
            headers={"Referer": index.url},
            timeout=60,
        ),
        "next",
    )
    if not page.ok:
        return
    token = csrf_token(page.text)
    save_urls = sorted(set(re.findall(r"/grading/assignments/\d+/criteria/\d+/", page.text)))
    assert save_urls, f"{username}'s grading page has no criterion to save"
    for round_ in range(ROUNDS):
        for url in save_urls:
            verdict = "fail" if round_ % 2 else "pass"
            record(
                session.post(
                    base + url,
                    data={
                        "verdict": verdict,
                        "rationale": f"round {round_}",
                        "csrfmiddlewaretoken": token,
                    },
                    headers={"HX-Request": "true", "Referer": page.url},
                    timeout=60,
                ),
                f"save {url}",
            )
    for url in sorted(set(re.findall(r"/grading/assignments/\d+/likert/\d+/", page.text))):
        record(
            session.post(
                base + url,
                data={"value": "4", "csrfmiddlewaretoken": token},
                headers={"HX-Request": "true", "Referer": page.url},
                timeout=60,
            ),
            f"rate {url}",
        )
    submit_url = re.search(r"/grading/assignments/\d+/submit/", page.text)
    assert submit_url
    record(
        session.post(
            base + submit_url.group(0),
            data={"csrfmiddlewaretoken": token},
            headers={"Referer": page.url},
            timeout=60,
        ),
        "submit",
    )


def _add_users(base: str, statuses: Counter, errors: list[str]) -> None:
    session = _login(base, "admin")
    for n in range(NEW_USERS):
        form = session.get(f"{base}/admin/accounts/user/add/", timeout=30)
        answer = session.post(
            f"{base}/admin/accounts/user/add/",
            data={
                "username": f"newcomer{n}",
                "password1": "a-long-enough-pass-1",
                "password2": "a-long-enough-pass-1",
                "usable_password": "true",
                "csrfmiddlewaretoken": csrf_token(form.text),
            },
            headers={"Referer": form.url},
            timeout=60,
        )
        statuses[answer.status_code] += 1
        if answer.status_code >= 500:
            errors.append(f"add user {n}: {_summary(answer)}")


def test_concurrent_writes_on_the_default_sqlite_setup_never_answer_a_server_error(
    running_app: tuple[str, Path],
) -> None:
    base, database = running_app
    statuses: Counter = Counter()
    errors: list[str] = []
    failures: list[BaseException] = []

    def run(target, *args) -> None:
        try:
            target(*args)
        except BaseException as error:  # reported below, with the thread's name
            failures.append(error)

    threads = [
        threading.Thread(target=run, args=(_grade, base, name, statuses, errors))
        for name in GRADERS
    ]
    threads.append(threading.Thread(target=run, args=(_add_users, base, statuses, errors)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=240)

    assert not failures, failures
    assert errors == [], (
        f"{len(errors)} server errors, first: {errors[:3]}; the server said:\n"
        + _server_errors(database.parent)
    )
    assert sum(statuses.values()) > len(GRADERS) * ROUNDS
    with sqlite3.connect(database) as db:
        (added,) = db.execute(
            "SELECT COUNT(*) FROM accounts_user WHERE username LIKE 'newcomer%'"
        ).fetchone()
        (submitted,) = db.execute(
            "SELECT COUNT(*) FROM grading_assignment WHERE status = 'submitted'"
        ).fetchone()
    assert added == NEW_USERS
    assert submitted >= len(GRADERS), statuses
