"""The grading page on a slow link: how long until it is ready for the keyboard, on a phone.

    .venv/bin/python -m bench.slow_link                                   # SQLite data set
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python -m bench.slow_link

The app runs under gunicorn with production settings (DEBUG off, collected static files served
by whitenoise, responses compressed) on the benchmark-scale data set of `bench.pages` (built
there on first use): a grader's open assignment of 30 criteria. A headless Chromium (Debian's
package, driven by Playwright) with a phone's viewport (390 x 844) logs in on the unthrottled
link, then the link is throttled through the DevTools protocol
(`Network.emulateNetworkConditions`: 2,000 ms round trip, 50 KB/s down and up, the issue's
figures) and the grading page is loaded:

- cold: in a new browser context (empty cache, the session cookie only), as on a first visit:
  the page carries its stylesheets and scripts inline (one round trip);
- again: the same page once more in that context;
- after another page: the grader's list of studies is loaded first (throttled too, not timed),
  which fetches the shared static files (hashed, cached for a year) and marks them cached with
  the `assets` cookie; the grading page then links them instead of inlining them.

"Ready for the keyboard" is the first animation frame in which the page's keyboard script has
run (`#grading.keyboard` with a current criterion) and htmx is loaded, timed from the start of
the navigation (`performance.now()`). Median of `--repeats`; bytes and requests over the wire
from the Resource Timing entries. Exit status 1 if the cold median is over TARGET_SECONDS.
"""

import argparse
import os
import shutil
import statistics
import sys
from dataclasses import dataclass

from bench.harness import gunicorn, migrate, server_environment, setup_django

TARGET_SECONDS = 3.0
ROUND_TRIP_MS = 2000
BYTES_PER_SECOND = 50 * 1024
PHONE = {"width": 390, "height": 844}
READY = """() => document.querySelector('#grading.keyboard [data-step].current') && window.htmx
    ? performance.now() : false"""
WIRE = """() => {
  const entries = [...performance.getEntriesByType('navigation'),
                   ...performance.getEntriesByType('resource')];
  return [entries.length, entries.reduce((sum, e) => sum + (e.transferSize || 0), 0)];
}"""


@dataclass
class Load:
    ready_ms: float
    requests: int
    wire_bytes: int


def throttle(page) -> None:  # type: ignore[no-untyped-def]
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    session.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": ROUND_TRIP_MS,
            "downloadThroughput": BYTES_PER_SECOND,
            "uploadThroughput": BYTES_PER_SECOND,
        },
    )


def load(page, url: str) -> Load:  # type: ignore[no-untyped-def]
    page.goto(url, wait_until="commit", timeout=60_000)
    ready = page.wait_for_function(READY, polling="raf", timeout=60_000).json_value()
    requests, wire = page.evaluate(WIRE)
    return Load(float(ready), int(requests), int(wire))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    from bench import pages

    url = pages.database_url(rebuild=False)
    setup_django({"DATABASE_URL": url, "DEBUG": "0", "ALLOWED_HOSTS": "testserver"})
    migrate(static_files=True)
    if not pages.is_built():
        print("building the bench.pages data set (kept for the next runs) ...")
        pages.build()
    grading_page = next(p for p in pages.pages() if p.name == "grading page")
    assert grading_page.user is not None
    from django.db import connections

    connections.close_all()

    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
    environment = server_environment(url)
    cold: list[Load] = []
    again: list[Load] = []
    warm: list[Load] = []
    with gunicorn(environment, workers=args.workers) as server, sync_playwright() as playwright:
        base = f"http://127.0.0.1:{server.port}"
        browser = playwright.chromium.launch(
            executable_path=chromium,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        options = {"base_url": base, "viewport": PHONE, "is_mobile": True, "has_touch": True}
        login = browser.new_context(**options)
        page = login.new_page()
        for _ in range(2 * args.workers):  # every worker has imported the app
            page.goto("/accounts/login/")
        page.goto("/accounts/login/")
        page.fill("input[name=username]", grading_page.user)
        page.fill("input[name=password]", pages.PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_load_state()
        state = login.storage_state()
        login.close()
        # The session only: the `assets` cookie of the login page would say "cached".
        state["cookies"] = [c for c in state["cookies"] if c["name"] != "assets"]
        for _ in range(args.repeats):
            context = browser.new_context(storage_state=state, **options)
            page = context.new_page()
            throttle(page)
            cold.append(load(page, grading_page.path))
            again.append(load(page, grading_page.path))
            page.goto("/grading/", wait_until="load", timeout=60_000)
            warm.append(load(page, grading_page.path))
            context.close()
        browser.close()

    print(
        f"grading page on a phone (390 x 844), {ROUND_TRIP_MS} ms round trip, "
        f"{BYTES_PER_SECOND // 1024} KB/s; median of {args.repeats}"
    )
    for name, loads in (("cold", cold), ("again", again), ("after another page", warm)):
        ready = statistics.median(x.ready_ms for x in loads) / 1000
        print(
            f"  {name}: ready for the keyboard in {ready:.2f} s "
            f"(runs {', '.join(f'{x.ready_ms / 1000:.2f}' for x in loads)}); "
            f"{loads[0].requests} requests, {loads[0].wire_bytes / 1024:.1f} KB over the wire"
        )
    cold_ready = statistics.median(x.ready_ms for x in cold) / 1000
    met = cold_ready <= TARGET_SECONDS
    print(f"[{'x' if met else ' '}] cold load ready for the keyboard in <= {TARGET_SECONDS} s")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
