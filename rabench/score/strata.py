"""Which groups of cases get their own rows (spec, "Units and intervals").

Two kinds: a case tag ``dimension=value``, for every task; and the label-derived
groups of the authenticity task — ``class=<fake class>`` and
``arithmetic=consistent|inconsistent`` (that group's fakes against every genuine
receipt) and ``provenance=<p>`` (genuine receipts and fakes alike).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rabench.score.load import CaseTable
from rabench.score.rows import MIN_STRATUM


@dataclass(frozen=True, slots=True)
class AuthStratum:
    name: str
    genuine: np.ndarray  # mask over all cases
    fake: np.ndarray
    # For class/arithmetic strata the genuine side is every genuine receipt, so the
    # "at least 10 cases" rule is applied to the group's fakes alone.
    fakes_define: bool = False


def tag_masks(cases: CaseTable) -> dict[str, np.ndarray]:
    """``dimension=value`` -> mask over every case, names sorted; a case without a
    dimension the suite implies (its ``domain``) counts under the suite's value."""
    names: dict[str, list[int]] = {}
    implied = cases.implied_tags
    for i, case in enumerate(cases.cases):
        for dim, value in case.tags.items():
            names.setdefault(f"{dim}={value}", []).append(i)
        for dim, value in implied.items():
            if dim not in case.tags:
                names.setdefault(f"{dim}={value}", []).append(i)
    out: dict[str, np.ndarray] = {}
    for name in sorted(names):
        mask = np.zeros(cases.n, dtype=bool)
        mask[names[name]] = True
        out[name] = mask
    return out


def tag_strata(tags: dict[str, np.ndarray], eligible: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Tag strata with at least 10 eligible cases, as masks already restricted to them."""
    out = []
    for name, mask in tags.items():
        m = mask & eligible
        if int(m.sum()) >= MIN_STRATUM:
            out.append((name, m))
    return out


def authenticity_strata(cases: CaseTable, eligible: np.ndarray, tags: dict[str, np.ndarray]) -> list[AuthStratum]:
    genuine = eligible & ~cases.is_fake
    fake = eligible & cases.is_fake
    out = [AuthStratum("all", genuine, fake)]
    classes = sorted({c.label.authenticity.fake_class or "unknown" for c, f in zip(cases.cases, fake) if f})
    class_of = np.array([c.label.authenticity.fake_class or "unknown" for c in cases.cases])
    for cls in classes:
        out.append(AuthStratum(f"class={cls}", genuine, fake & (class_of == cls), True))
    out.append(AuthStratum("arithmetic=consistent", genuine, fake & (cases.adds_up == 1), True))
    out.append(AuthStratum("arithmetic=inconsistent", genuine, fake & (cases.adds_up == 0), True))
    prov = np.array([c.label.provenance for c in cases.cases])
    for p in ("intact", "stripped", "none"):
        out.append(AuthStratum(f"provenance={p}", genuine & (prov == p), fake & (prov == p)))
    derived = {s.name for s in out}
    for name, mask in tags.items():
        if name not in derived:  # a label-derived group wins over a tag of the same name
            out.append(AuthStratum(name, genuine & mask, fake & mask))
    return [s for s in out if s.name == "all" or qualifies(s)]


def qualifies(s: AuthStratum) -> bool:
    if s.fakes_define:
        return int(s.fake.sum()) >= MIN_STRATUM
    return int(s.genuine.sum()) + int(s.fake.sum()) >= MIN_STRATUM
