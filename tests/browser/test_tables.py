"""The figures tables of a study (home, agreement, judge calibration, judge runs, comparison of
runs) at a desktop's and a phone's width: a number is never split across lines, a header never
breaks inside a word, and a wide table scrolls inside its box, not the page."""

import pytest
from django.urls import reverse

from accounts.models import User
from accounts.roles import Role
from demo.accounts import create_demo_accounts
from demo.benchmark import seed_demo_benchmark
from demo.judge_runs import seed_demo_judge_runs
from demo.study import seed_demo_study

pytestmark = pytest.mark.django_db(transaction=True)

# Every piece of a table cell between spaces and after hyphens (where a line may break) that
# holds a digit (a count, a percentage, an interval's bound, "594474"), and every such piece of
# a header: one drawn on more than one line was broken inside it. A code in a table ("02a-01")
# and a figure of parts ("122 / 122", class nowrap) are one piece each.
BROKEN_PIECES = """() => {
  const broken = [];
  for (const whole of document.querySelectorAll("main td code, main th code, main .nowrap")) {
    const tops = new Set([...whole.getClientRects()].filter(r => r.width > 0)
      .map(r => Math.round(r.top)));
    const range = document.createRange();
    range.selectNodeContents(whole);
    const lines = new Set([...range.getClientRects()].filter(r => r.width > 0)
      .map(r => Math.round(r.top)));
    if (tops.size > 1 || lines.size > 1) broken.push(whole.textContent.trim());
  }
  for (const cell of document.querySelectorAll("main th, main td")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/[^\\s-]+-?/g)) {
        if (cell.tagName !== "TH" && !/\\d/.test(match[0])) continue;
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
          .map(r => Math.round(r.top)));
        if (tops.size > 1) broken.push(match[0]);
      }
    }
  }
  return broken;
}"""


# The innermost elements reaching past the window's right edge, to say what widened the page.
WIDER_THAN_THE_WINDOW = """() => [...document.querySelectorAll("body *")]
  .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1
    && ![...e.children].some(c => c.getBoundingClientRect().right
      > document.documentElement.clientWidth + 1))
  .map(e => e.tagName + "." + e.className + ": " + e.textContent.trim().slice(0, 40))"""


def test_figures_stay_whole_and_wide_tables_scroll_in_their_box(
    new_page, log_in, starter_framework
):
    create_demo_accounts()
    users = {u.username: u for u in User.objects.all()}
    seed_demo_benchmark(starter_framework, users["author"], users["maintainer"])
    study = seed_demo_study()
    runs = seed_demo_judge_runs(study)
    pages = [
        reverse("home"),
        reverse("agreement:study", args=[study.pk]),
        reverse("judging:calibration", args=[study.pk, runs[-1].pk]),
        reverse("judging:judge", args=[study.pk]),
        reverse("judging:compare", args=[study.pk]) + "?" + "&".join(f"run={r.pk}" for r in runs),
    ]
    page = new_page(width=1280)
    log_in(page, Role.MAINTAINER)
    for url in pages:
        page.goto(url)
        assert page.locator("main table").count() > 0, url
        page.evaluate("document.querySelectorAll('main details').forEach(d => d.open = true)")
        for width in (1280, 375):  # a desktop, then a phone: the same page, narrowed
            page.set_viewport_size({"width": width, "height": 800})
            broken = page.evaluate(BROKEN_PIECES)
            assert broken == [], f"{width} px, {url}: {broken}"
            scroll, window = page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            wide = page.evaluate(WIDER_THAN_THE_WINDOW)
            assert scroll <= window, f"{url}: {scroll} px wide in a {window} px window: {wide}"
    # The comparison shows its criteria in pages, as the agreement page does: the next page is
    # swapped in place and the address says which page it is (the page is the comparison).
    page.set_viewport_size({"width": 1280, "height": 800})
    section = page.locator("#criteria")
    first = section.locator("tbody th[scope=rowgroup] code").first.inner_text()
    section.get_by_role("link", name="Next").click()
    page.wait_for_url("**page=2**")
    assert section.get_by_text("Page 2 of").is_visible()
    assert first not in section.locator("tbody th[scope=rowgroup] code").all_inner_texts()
    assert page.locator("#comparison-summary").count() == 1  # the rest of the page stays
