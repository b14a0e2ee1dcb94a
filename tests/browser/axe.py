"""axe-core on every page state the browser tests show, checked once per test process.

`make axe` fetches axe-core (npm, pinned below) into the virtual environment. Each browser
context of the tests gets it as an init script (injected by the DevTools protocol, so the app's
Content Security Policy stays as strict as in production), with a runner that checks every page
once it has loaded, again after htmx swaps, and once more in the state the test leaves it in
(the `new_page` fixture). A test fails on any violation of at least `FAILING_IMPACTS`, or of a
rule in `ALWAYS_FAILING`, on any page it showed.

What axe-core checks is a page state: the markup, and what the markup leaves out but styles and
names depend on (the viewport's size and scroll position, the values of form controls, the
focused and the hovered element); CSRF tokens, masked anew on every page, are left out. The
runner hashes the state in the page and asks Python (`Findings.recall`) whether a test of this
process checked it already: if so, that check's failing violations count against this test too,
under this page's address, and axe-core does not run. So the login page of every test, or a
final state an htmx swap already showed, is checked once. A check during which the page changed
is reported but not remembered.
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

VERSION = "4.14.1"
SCRIPT = Path(
    os.environ.get("AXE_CORE_JS", settings.BASE_DIR / ".venv/node_modules/axe-core/axe.min.js")
)
FAILING_IMPACTS = frozenset({"critical", "serious"})
# Rules of a lower impact that once failed here and were fixed: they must not come back.
ALWAYS_FAILING = frozenset({"heading-order", "landmark-unique", "empty-table-header", "region"})

# Checks run one at a time (axe refuses a second run while one is going); a burst of htmx swaps
# makes one check after the last of them.
RUNNER = """
(() => {
  let chain = Promise.resolve();
  let timer = null;
  const options = { resultTypes: ["violations"] };
  // While an htmx request is out its element is faded (.htmx-request), and fades back in
  // after it (a 150 ms transition): check the settled page, its colours at rest.
  function fading() {
    return document.getAnimations().some((animation) =>
      animation.playState === "running"
      && animation.effect.getComputedTiming().iterations !== Infinity);
  }
  function settled() {
    return new Promise((resolve) => {
      let tries = 0;
      (function wait() {
        if ((!document.querySelector(".htmx-request") && !fading()) || ++tries > 50) resolve();
        else setTimeout(wait, 100);
      })();
    });
  }
  // Django masks its CSRF token anew for every form of every page: the same page must make the
  // same state.
  function csrfTokens() {
    const tokens = [...document.querySelectorAll("input[name=csrfmiddlewaretoken]")].map(
      (input) => input.value);
    for (const element of document.querySelectorAll("[hx-headers]")) {
      try { tokens.push(JSON.parse(element.getAttribute("hx-headers"))["X-CSRFToken"]); }
      catch { /* not JSON */ }
    }
    return [...new Set(tokens)].filter((token) => /^[A-Za-z0-9]{32,}$/.test(token || ""));
  }
  function pageState() {
    const elements = document.getElementsByTagName("*");
    const hovered = [...document.querySelectorAll(":hover")].pop();
    const unwritten = [innerWidth, innerHeight, scrollX, scrollY];
    for (let i = 0; i < elements.length; i++) {
      const element = elements[i];
      if (element === document.activeElement) {
        unwritten.push("focus", i, element.matches(":focus-visible"));
      }
      if (element === hovered) unwritten.push("hover", i);
      if (element instanceof HTMLInputElement) {
        unwritten.push(i, element.value, element.checked, element.indeterminate);
      } else if (element instanceof HTMLTextAreaElement) {
        unwritten.push(i, element.value);
      } else if (element instanceof HTMLOptionElement) {
        unwritten.push(i, element.selected);
      }
    }
    const state = JSON.stringify(unwritten) + document.documentElement.outerHTML;
    const tokens = csrfTokens();
    return tokens.length ? state.replace(new RegExp(tokens.join("|"), "g"), "csrf") : state;
  }
  // crypto.subtle exists in secure contexts only (the test server's http://localhost is one);
  // without it every check runs.
  async function stateKey() {
    if (!window.crypto || !crypto.subtle) return null;
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(pageState()));
    return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  }
  async function checkOnce() {
    await settled();
    const url = location.href;
    let changed = false;
    const changes = new MutationObserver(() => { changed = true; });
    const everything = { subtree: true, childList: true, attributes: true, characterData: true };
    changes.observe(document, everything);
    try {
      const key = await stateKey();
      if (key && (await window.axeRecall({ url, key }))) return;
      await settled();  // a request may have gone out while Python answered
      const result = await axe.run(document, options);
      const found = result.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help,
        targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
      }));
      // A swap during the run (even one that put the same markup back) leaves a result of no
      // single state: reported, not remembered.
      changed ||= changes.takeRecords().length > 0;
      const same = !changed && key !== null && key === (await stateKey());
      await window.axeReport({ url, key: same ? key : null, violations: found });
    } finally {
      changes.disconnect();
    }
  }
  function check() {
    chain = chain.then(checkOnce).catch(() => undefined);
    return chain;
  }
  window.axeCheck = check;
  window.addEventListener("load", () => check());
  // At most one check every 2 s after swaps (a polling page swaps every second or so); the
  // fixture checks the final state anyway.
  let last = 0;
  document.addEventListener("htmx:afterSettle", () => {
    clearTimeout(timer);
    const wait = Math.max(200, last + 2000 - Date.now());
    timer = setTimeout(() => { last = Date.now(); check(); }, wait);
  });
})();
"""
FINAL_CHECK = "() => window.axeCheck ? window.axeCheck().then(() => true) : false"

Violation = dict[str, object]


def source() -> str:
    if not SCRIPT.is_file():
        raise RuntimeError(
            f"axe-core {VERSION} is missing ({SCRIPT}): run `make axe` (npm fetches it)."
        )
    return SCRIPT.read_text(encoding="utf-8")


def failing(violations: list[Violation]) -> list[Violation]:
    return [v for v in violations if v["impact"] in FAILING_IMPACTS or v["id"] in ALWAYS_FAILING]


@dataclass
class Findings:
    """Every page a test showed and the violations that fail it, by page address.

    `states` maps the key of each page state checked (by any test sharing it: the `new_page`
    fixture shares one per test process) to its failing violations."""

    states: dict[str, list[Violation]] = field(default_factory=dict, repr=False)
    checked: set[str] = field(default_factory=set)
    failing: dict[str, list[Violation]] = field(default_factory=dict)

    def recall(self, _source: object, state: dict[str, str]) -> bool:
        """Whether the state was checked before; if so, its failing violations are this test's."""
        violations = self.states.get(state["key"])
        if violations is None:
            return False
        self._add(state["url"], violations)
        return True

    def report(self, _source: object, result: dict[str, Any]) -> None:
        violations = failing(result["violations"])
        if result["key"]:
            self.states[result["key"]] = violations
        self._add(result["url"], violations)

    def _add(self, url: str, violations: list[Violation]) -> None:
        self.checked.add(url)
        for violation in violations:
            known = self.failing.setdefault(url, [])
            if violation not in known:
                known.append(violation)

    def message(self) -> str:
        return "axe-core found accessibility violations:\n" + json.dumps(self.failing, indent=1)
