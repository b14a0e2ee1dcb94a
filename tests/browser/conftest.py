"""Browser tests: a real headless Chromium (Debian's package) driven by Playwright against the
live test server. Playwright's own browser download is not used."""

import os
import shutil

import pytest

from accounts.roles import Role
from tests.browser import axe

# Playwright's sync API keeps an event loop in this thread; the ORM calls the tests make between
# browser steps are ordinary synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")


def pytest_collection_modifyitems(items):
    # By the fixture, not the folder: the pure tests of axe.py run with the other pure tests.
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def axe_script() -> str:
    return axe.source() + axe.RUNNER


@pytest.fixture(scope="session")
def axe_states() -> dict[str, list[axe.Violation]]:
    """The failing violations of every page state a browser test of this process showed."""
    return {}


@pytest.fixture
def new_page(browser, live_server, axe_script, axe_states):
    """new_page() -> a page in a fresh browser context (its own cookies); closed after the test,
    which fails if axe-core found a serious accessibility problem on any page it showed."""
    contexts = []
    findings = axe.Findings(axe_states)

    def make(width: int = 1024):
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": width, "height": 800}
        )
        context.set_default_timeout(10_000)
        context.expose_binding("axeRecall", findings.recall)
        context.expose_binding("axeReport", findings.report)
        context.add_init_script(axe_script)
        contexts.append(context)
        page = context.new_page()
        page.csp_errors = []
        page.on(
            "console",
            lambda msg: (
                page.csp_errors.append(msg.text) if "Content Security Policy" in msg.text else None
            ),
        )
        return page

    yield make
    for context in contexts:
        for page in context.pages:
            if page.url.startswith(live_server.url):
                page.evaluate(axe.FINAL_CHECK)  # the state the test left the page in
        context.close()
    assert findings.checked, "axe-core checked no page"
    assert not findings.failing, findings.message()


@pytest.fixture
def log_in(make_user):
    """log_in(page, Role.AUTHOR) -> the user, after typing their credentials into the login form."""

    def do(page, role: Role):
        user = make_user(role)
        page.goto("/accounts/login/")
        page.get_by_label("Username").fill(user.username)
        page.get_by_label("Password").fill(f"pw-{user.username}")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url("**/")
        return user

    return do
