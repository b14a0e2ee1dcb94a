"""Independent brute-force oracles: rater pairs enumerated with plain Python loops.

Nothing here imports the package under test; units are lists of value indices (one per
rating), values are positions in a numeric ``domain``.
"""

from __future__ import annotations

from collections import defaultdict


def counts(units: list[list[int]], n_values: int) -> list[list[int]]:
    table = [[0] * n_values for _ in units]
    for u, ratings in enumerate(units):
        for v in ratings:
            table[u][v] += 1
    return table


def alpha(units: list[list[int]], level: str, domain: list[float]) -> float | None:
    """Krippendorff 2011: coincidences from every ordered pair of distinct raters."""
    q = len(domain)
    o: dict[tuple[int, int], float] = defaultdict(float)
    for ratings in units:
        m = len(ratings)
        if m < 2:
            continue
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[(ratings[i], ratings[j])] += 1.0 / (m - 1)
    n_c = [sum(o[(c, k)] for k in range(q)) for c in range(q)]
    n = sum(n_c)
    if n == 0:
        return None

    def delta(c: int, k: int) -> float:
        if level == "nominal":
            return 0.0 if c == k else 1.0
        if level == "interval":
            return (domain[c] - domain[k]) ** 2
        if level == "ratio":
            total = domain[c] + domain[k]
            return ((domain[c] - domain[k]) / total) ** 2 if total else 0.0
        lo, hi = min(c, k), max(c, k)
        s = 0.0
        for g in range(lo, hi + 1):
            s += n_c[g]
        s -= (n_c[c] + n_c[k]) / 2.0
        return s * s

    d_o = 0.0
    d_e = 0.0
    for c in range(q):
        for k in range(q):
            d_o += o[(c, k)] * delta(c, k)
            d_e += n_c[c] * n_c[k] * delta(c, k)
    if sum(1 for x in n_c if x > 0) < 2 or d_e == 0:
        return None
    return 1.0 - (n - 1.0) * d_o / d_e


def weight(kind: str, c: int, k: int, domain: list[float]) -> float:
    span = max(domain) - min(domain)
    if kind in ("identity", "none"):
        return 1.0 if c == k else 0.0
    if kind == "linear":
        return 1.0 - abs(domain[c] - domain[k]) / span
    if kind == "quadratic":
        return 1.0 - ((domain[c] - domain[k]) / span) ** 2
    if kind == "ordinal":
        q = len(domain)
        big = q * (q - 1) / 2
        n_kl = abs(c - k) + 1
        return 1.0 - (n_kl * (n_kl - 1) / 2) / big
    raise ValueError(kind)


def _weighted_agreement(
    units: list[list[int]], kind: str, domain: list[float]
) -> tuple[float, list[float]] | None:
    """Gwet 2014: p_a from weighted agreement of ordered pairs of distinct raters, and the
    classification shares pi_k (mean over rated units of each unit's share of k)."""
    q = len(domain)
    total = 0.0
    n2 = 0
    for ratings in units:
        m = len(ratings)
        if m < 2:
            continue
        n2 += 1
        s = 0.0
        for i in range(m):
            for j in range(m):
                if i != j:
                    s += weight(kind, ratings[i], ratings[j], domain)
        total += s / (m * (m - 1))
    if n2 == 0:
        return None
    pi = [0.0] * q
    n1 = 0
    for ratings in units:
        if not ratings:
            continue
        n1 += 1
        for v in ratings:
            pi[v] += 1.0 / len(ratings)
    return total / n2, [x / n1 for x in pi]


def gwet_ac(units: list[list[int]], kind: str, domain: list[float]) -> float | None:
    """Gwet 2014: p_e = T_w / (q (q - 1)) sum_k pi_k (1 - pi_k)."""
    found = _weighted_agreement(units, kind, domain)
    if found is None:
        return None
    p_a, pi = found
    q = len(domain)
    t_w = sum(weight(kind, c, k, domain) for c in range(q) for k in range(q))
    p_e = t_w / (q * (q - 1)) * sum(x * (1 - x) for x in pi)
    return (p_a - p_e) / (1 - p_e)


def brennan_prediger(units: list[list[int]], kind: str, domain: list[float]) -> float | None:
    """Brennan & Prediger 1981, weighted as in Gwet 2014: p_e = T_w / q^2."""
    found = _weighted_agreement(units, kind, domain)
    if found is None:
        return None
    q = len(domain)
    p_e = sum(weight(kind, c, k, domain) for c in range(q) for k in range(q)) / (q * q)
    return (found[0] - p_e) / (1 - p_e)


def scott_pi(units: list[list[int]], kind: str, domain: list[float]) -> float | None:
    """Scott 1955, for many raters and missing ratings as Gwet 2014 generalises Fleiss:
    p_e = sum_kl w_kl pi_k pi_l."""
    found = _weighted_agreement(units, kind, domain)
    if found is None:
        return None
    p_a, pi = found
    q = len(domain)
    p_e = sum(weight(kind, c, k, domain) * pi[c] * pi[k] for c in range(q) for k in range(q))
    if p_e > 1 - 1e-12:  # every rating one value (up to rounding of the shares)
        return None
    return (p_a - p_e) / (1 - p_e)


def percent_agreement(units: list[list[int]]) -> float | None:
    per_unit = []
    for ratings in units:
        m = len(ratings)
        if m < 2:
            continue
        agree = 0
        for i in range(m):
            for j in range(m):
                if i != j and ratings[i] == ratings[j]:
                    agree += 1
        per_unit.append(agree / (m * (m - 1)))
    return sum(per_unit) / len(per_unit) if per_unit else None


def fleiss(units: list[list[int]], q: int) -> float | None:
    """Fleiss 1971 with every unit rated by the same number of raters."""
    m = len(units[0])
    agree_sum = 0.0
    share = [0.0] * q
    for ratings in units:
        agree = 0
        for i in range(m):
            for j in range(m):
                if i != j and ratings[i] == ratings[j]:
                    agree += 1
        agree_sum += agree / (m * (m - 1))
        for v in ratings:
            share[v] += 1
    p_bar = agree_sum / len(units)
    p_e = sum((s / (len(units) * m)) ** 2 for s in share)
    if p_e == 1:
        return None
    return (p_bar - p_e) / (1 - p_e)


def cohen(a: list[int], b: list[int], kind: str, q: int) -> float | None:
    domain = [float(i) for i in range(q)]
    n = len(a)
    p_o = sum(weight(kind, x, y, domain) for x, y in zip(a, b, strict=True)) / n
    pa = [0.0] * q
    pb = [0.0] * q
    for x, y in zip(a, b, strict=True):
        pa[x] += 1 / n
        pb[y] += 1 / n
    p_e = sum(weight(kind, c, k, domain) * pa[c] * pb[k] for c in range(q) for k in range(q))
    if p_e >= 1 - 1e-12:
        return None
    return (p_o - p_e) / (1 - p_e)


def specific_agreement(units: list[list[int]], category: int) -> float | None:
    """Uebersax: agreeing ordered pairs on ``category`` / ordered pairs starting there."""
    num = 0
    den = 0
    for ratings in units:
        m = len(ratings)
        if m < 2:
            continue
        for i in range(m):
            for j in range(m):
                if i == j or ratings[i] != category:
                    continue
                den += 1
                if ratings[j] == category:
                    num += 1
    return num / den if den else None


def cronbach(rows: list[list[float]]) -> float | None:
    n = len(rows)
    k = len(rows[0])

    def var(xs: list[float]) -> float:
        mean = sum(xs) / len(xs)
        return sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)

    items = sum(var([row[j] for row in rows]) for j in range(k))
    total = var([sum(row) for row in rows])
    if k < 2 or n < 2 or total < 1e-9:
        return None
    return k / (k - 1) * (1 - items / total)
