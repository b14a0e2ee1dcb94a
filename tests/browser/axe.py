"""axe-core on every page the browser tests visit.

`make axe` fetches axe-core (npm, pinned below) into the virtual environment. Each browser
context of the tests gets it as an init script (injected by the DevTools protocol, so the app's
Content Security Policy stays as strict as in production), with a runner that checks every page
once it has loaded and again after htmx swaps, and reports each result back to Python. The
`new_page` fixture checks the final state of every page once more and fails the test on any
violation of at least `FAILING_IMPACTS`, or of a rule in `ALWAYS_FAILING`.
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

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
  // While an htmx request is out its element is faded (.htmx-request): check the settled page.
  function settled() {
    return new Promise((resolve) => {
      let tries = 0;
      (function wait() {
        if (!document.querySelector(".htmx-request") || ++tries > 50) resolve();
        else setTimeout(wait, 100);
      })();
    });
  }
  function check() {
    chain = chain.then(settled).then(() => axe.run(document, options)).then((result) => {
      const found = result.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help,
        targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
      }));
      return window.axeReport({ url: location.href, violations: found });
    }).catch(() => undefined);
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


def source() -> str:
    if not SCRIPT.is_file():
        raise RuntimeError(
            f"axe-core {VERSION} is missing ({SCRIPT}): run `make axe` (npm fetches it)."
        )
    return SCRIPT.read_text(encoding="utf-8")


@dataclass
class Findings:
    """Every page checked and the violations that fail the test, by page address."""

    checked: set[str] = field(default_factory=set)
    failing: dict[str, list[dict[str, object]]] = field(default_factory=dict)

    def report(self, _source: object, result: dict[str, object]) -> None:
        url = str(result["url"])
        self.checked.add(url)
        for violation in result["violations"]:
            if violation["impact"] in FAILING_IMPACTS or violation["id"] in ALWAYS_FAILING:
                known = self.failing.setdefault(url, [])
                if violation not in known:
                    known.append(violation)

    def message(self) -> str:
        return "axe-core found accessibility violations:\n" + json.dumps(self.failing, indent=1)
