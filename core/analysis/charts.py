"""Small server-side SVG charts: no JavaScript, no external assets, nothing inline to whitelist.

Pure: strings in, SVG markup out. Every text is escaped here; callers mark the result safe.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

ROW = 22
LABEL_WIDTH = 150
PLOT_WIDTH = 320
VALUE_WIDTH = 110
# The Bland-Altman plot's own words; the page passes them in the interface language.
BLAND_ALTMAN_WORDS = {
    "axis": "mean of judge and experts",
    "upper": "upper limit",
    "bias": "bias",
    "lower": "lower limit",
}


@dataclass(frozen=True)
class ForestRow:
    label: str
    estimate: float | None
    low: float | None
    high: float | None
    note: str = ""  # shown instead of a bar when there is no estimate


def _number(value: float, spec: str, decimal: str) -> str:
    """`value` formatted by `spec` with the language's decimal mark (a comma in Spanish)."""
    return format(value, spec).replace(".", decimal)


def _x(value: float, lo: float, hi: float) -> float:
    return LABEL_WIDTH + (value - lo) / (hi - lo) * PLOT_WIDTH


def forest_plot(
    rows: Sequence[ForestRow], *, threshold: float | None, title: str, decimal: str = "."
) -> str:
    """Point estimates with interval bars on a shared axis, one row each, and an optional
    dashed line at the threshold."""
    values = [v for r in rows for v in (r.estimate, r.low, r.high) if v is not None]
    lo = min([0.0, *values, threshold if threshold is not None else 0.0])
    lo = max(-1.0, float(int(lo * 10 - 1)) / 10) if lo < 0 else 0.0
    hi = 1.0
    height = ROW * (len(rows) + 2)
    width = LABEL_WIDTH + PLOT_WIDTH + VALUE_WIDTH
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="100%" role="img" aria-label="{escape(title)}" class="chart">',
        f"<title>{escape(title)}</title>",
    ]
    for tick in [t / 10 for t in range(int(lo * 10), 11, 2)]:
        x = _x(tick, lo, hi)
        parts.append(
            f'<line x1="{x:.1f}" y1="{ROW / 2}" x2="{x:.1f}" y2="{height - ROW}" '
            'stroke="#d0d7de" stroke-width="1"/>'
            f'<text x="{x:.1f}" y="{height - 6}" font-size="11" text-anchor="middle" '
            f'fill="#555f6b">{_number(tick, ".1f", decimal)}</text>'
        )
    if threshold is not None:
        x = _x(threshold, lo, hi)
        parts.append(
            f'<line x1="{x:.1f}" y1="{ROW / 2}" x2="{x:.1f}" y2="{height - ROW}" '
            'stroke="#9a6700" stroke-width="1.5" stroke-dasharray="4 3"/>'
        )
    for n, row in enumerate(rows, start=1):
        y = ROW * n
        parts.append(
            f'<text x="{LABEL_WIDTH - 6}" y="{y + 4}" font-size="12" text-anchor="end" '
            f'fill="#1b1f24">{escape(row.label)}</text>'
        )
        if row.estimate is None:
            parts.append(
                f'<text x="{LABEL_WIDTH + 4}" y="{y + 4}" font-size="11" fill="#555f6b">'
                f"{escape(row.note or 'undefined')}</text>"
            )
            continue
        if row.low is not None and row.high is not None:
            parts.append(
                f'<line x1="{_x(row.low, lo, hi):.1f}" y1="{y}" x2="{_x(row.high, lo, hi):.1f}" '
                f'y2="{y}" stroke="#0b5cad" stroke-width="2"/>'
            )
        parts.append(
            f'<circle cx="{_x(row.estimate, lo, hi):.1f}" cy="{y}" r="4" fill="#0b5cad"/>'
            f'<text x="{LABEL_WIDTH + PLOT_WIDTH + 8}" y="{y + 4}" font-size="11" '
            f'fill="#1b1f24">{_interval_text(row, decimal)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _interval_text(row: ForestRow, decimal: str) -> str:
    if row.low is None or row.high is None or row.estimate is None:
        return _number(row.estimate, ".2f", decimal) if row.estimate is not None else ""
    estimate, low, high = (_number(v, ".2f", decimal) for v in (row.estimate, row.low, row.high))
    return f"{estimate} [{low}; {high}]" if decimal == "," else f"{estimate} [{low}, {high}]"


def _cell_colour(value: float) -> str:
    # White (0.5 agreement, chance for pass/fail) to the accent blue (1.0).
    share = max(0.0, min(1.0, (value - 0.5) / 0.5))
    red = round(255 - share * (255 - 11))
    green = round(255 - share * (255 - 92))
    blue = round(255 - share * (255 - 173))
    return f"#{red:02x}{green:02x}{blue:02x}"


def heatmap(
    names: Sequence[str],
    matrix: Sequence[Sequence[float | None]],
    *,
    title: str,
    decimal: str = ".",
) -> str:
    """A square grid of pairwise values in [0, 1] with the value printed in each cell."""
    cell = 44
    left = 110
    top = 24
    n = len(names)
    width, height = left + cell * n + 4, top + cell * n + 4
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="100%" role="img" aria-label="{escape(title)}" class="chart">',
        f"<title>{escape(title)}</title>",
    ]
    for i, name in enumerate(names):
        parts.append(
            f'<text x="{left - 6}" y="{top + cell * i + cell / 2 + 4}" font-size="11" '
            f'text-anchor="end" fill="#1b1f24">{escape(name)}</text>'
            f'<text x="{left + cell * i + cell / 2}" y="{top - 8}" font-size="11" '
            f'text-anchor="middle" fill="#1b1f24">{i + 1}</text>'
        )
        for j in range(n):
            value = matrix[i][j]
            x, y = left + cell * j, top + cell * i
            fill = "#f6f8fa" if value is None else _cell_colour(value)
            text = "-" if value is None else _number(value, ".2f", decimal)
            ink = "#ffffff" if value is not None and value > 0.85 else "#1b1f24"
            parts.append(
                f'<rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" fill="{fill}" '
                'stroke="#d0d7de"/>'
                f'<text x="{x + cell / 2 - 1}" y="{y + cell / 2 + 3}" font-size="11" '
                f'text-anchor="middle" fill="{ink}">{text}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def bland_altman_plot(
    means: Sequence[float],
    differences: Sequence[float],
    *,
    bias: float | None,
    lower: float | None,
    upper: float | None,
    title: str,
    scale: tuple[int, int] = (1, 5),
    decimal: str = ".",
    words: Mapping[str, str] = BLAND_ALTMAN_WORDS,
) -> str:
    """Bland-Altman plot of a 1-5 question: one dot per item at (mean of the two scores,
    judge - experts), a solid line at the bias and dashed lines at the limits of agreement.
    Dots are translucent, so items on the same spot show as a darker dot."""
    left, top, plot_w, plot_h, right = 44, 12, 360, 200, 120
    span = scale[1] - scale[0]
    values = [abs(v) for v in (*differences, bias, lower, upper) if v is not None]
    reach = max(1.0, float(int(max(values, default=1.0) + 0.999)))

    def x(value: float) -> float:
        return left + (value - scale[0]) / span * plot_w

    def y(value: float) -> float:
        return top + (reach - value) / (2 * reach) * plot_h

    width, height = left + plot_w + right, top + plot_h + 34
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="100%" role="img" aria-label="{escape(title)}" class="chart">',
        f"<title>{escape(title)}</title>",
    ]
    for tick in range(scale[0], scale[1] + 1):
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{top + plot_h}" '
            'stroke="#d0d7de" stroke-width="1"/>'
            f'<text x="{x(tick):.1f}" y="{top + plot_h + 14}" font-size="11" '
            f'text-anchor="middle" fill="#555f6b">{tick}</text>'
        )
    for tick in range(-int(reach), int(reach) + 1):
        parts.append(
            f'<line x1="{left}" y1="{y(tick):.1f}" x2="{left + plot_w}" y2="{y(tick):.1f}" '
            f'stroke="{"#8c959f" if tick == 0 else "#d0d7de"}" stroke-width="1"/>'
            f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" font-size="11" text-anchor="end" '
            f'fill="#555f6b">{tick:+d}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 4}" font-size="11" text-anchor="middle" '
        f'fill="#1b1f24">{escape(words["axis"])}</text>'
    )
    for key, value, dash in (("upper", upper, True), ("bias", bias, False),
                             ("lower", lower, True)):  # fmt: skip
        if value is None:
            continue
        parts.append(
            f'<line x1="{left}" y1="{y(value):.1f}" x2="{left + plot_w}" y2="{y(value):.1f}" '
            f'stroke="#9a6700" stroke-width="1.5"{' stroke-dasharray="4 3"' if dash else ""}/>'
            f'<text x="{left + plot_w + 6}" y="{y(value) + 4:.1f}" font-size="11" '
            f'fill="#1b1f24">{escape(words[key])} {_number(value, "+.2f", decimal)}</text>'
        )
    for mean, difference in zip(means, differences, strict=True):
        parts.append(
            f'<circle cx="{x(mean):.1f}" cy="{y(difference):.1f}" r="4" fill="#0b5cad" '
            'fill-opacity="0.35"/>'
        )
    parts.append("</svg>")
    return "".join(parts)
