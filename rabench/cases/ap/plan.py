"""Which cases an AP suite holds: family and variant of every case, in a shuffled order.

Case ids follow the shuffled order, so an id says nothing about family or label.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rabench.cases.ap.families import FAMILY_BUILDERS
from rabench.cases.synth.plan import allocate

SEEDS = {"dev": 20260101, "test": 20260202, "sample": 20260303}
PER_FAMILY = {"sample": 8, "quick": 80, "full": 400}


@dataclass(frozen=True, slots=True)
class APSpec:
    index: int  # seeds the case's random streams
    family: str
    variant: str


def make_plan(size: str, seed: int) -> list[APSpec]:
    rng = np.random.default_rng([seed, 0xA9])
    n = PER_FAMILY[size]
    specs: list[tuple[str, str]] = []
    for family, (_, variants) in FAMILY_BUILDERS.items():
        specs += [(family, str(v)) for v in sorted(allocate(n, variants, rng))]
    order = rng.permutation(len(specs))
    return [APSpec(i, *specs[j]) for i, j in enumerate(order)]
