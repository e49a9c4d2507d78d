"""``rabench run --dry-run``: what a run would cost, per target, before anything is sent.

For every unit still to run (all of them, or on ``--resume`` the missing ones),
each target that can estimate a call (DIY targets: ``estimate_call``) is asked for
the input tokens of the prompt plus the case's image at its prepared size (read
from the original's header, no decode) and their price. Two figures per target:
output at an assumed typical length, and the upper bound with every answer at
``max_output_tokens``. Nothing is prepared, no target is opened, no call is made.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from rabench.run.outcomes import UnitKey
from rabench.run.plan import SuitePlan
from rabench.targets.base import Target
from rabench.targets.diy.estimate import TYPICAL_OUTPUT_TOKENS, image_size, prepared_size


class TargetEstimate(msgspec.Struct, frozen=True):
    target: str
    units: int
    input_tokens: int  # over all units
    typical_usd: float | None  # None: no price (or the target cannot estimate)
    max_usd: float | None
    note: str = ""


def estimate_run(
    plan: SuitePlan, targets: list[Target], repetitions: int, done: set[UnitKey] | frozenset[UnitKey] = frozenset()
) -> list[TargetEstimate]:
    sizes: dict[str, tuple[int, int] | None] = {}
    out: list[TargetEstimate] = []
    for t in targets:
        tid = t.info.id
        estimate_call = getattr(t, "estimate_call", None)
        units = tokens = 0
        typical: float | None = 0.0
        upper: float | None = 0.0
        unreadable = 0
        for lc in plan.cases():
            todo = sum(1 for rep in range(repetitions) if (lc.case.id, tid, rep) not in done)
            if not todo:
                continue
            units += todo
            if estimate_call is None:
                continue
            key = str(lc.path)
            if key not in sizes:
                raw = image_size(Path(lc.path))
                sizes[key] = prepared_size(*raw) if raw is not None else None
            size = sizes[key]
            if size is None:  # a PDF or an unreadable file: its tokens are not counted
                unreadable += todo
                continue
            est = estimate_call(*size)
            tokens += est.input_tokens * todo
            typical = None if typical is None or est.typical_usd is None else typical + est.typical_usd * todo
            upper = None if upper is None or est.max_usd is None else upper + est.max_usd * todo
        if estimate_call is None:
            out.append(TargetEstimate(tid, units, 0, None, None, note="no estimate (not a priced model call)"))
            continue
        note = "" if typical is not None else "no list price for this model"
        if unreadable:
            note = (note + "; " if note else "") + f"{unreadable} units whose image size is unknown not counted"
        out.append(TargetEstimate(tid, units, tokens, typical, upper, note))
    return out


def format_estimates(estimates: list[TargetEstimate]) -> str:
    def usd(v: float | None) -> str:
        return "-" if v is None else f"${v:,.4f}"

    lines = [f"{'target':<40} {'units':>7} {'input tokens':>13} {'estimate':>11} {'at most':>11}"]
    for e in estimates:
        lines.append(
            f"{e.target:<40} {e.units:>7} {e.input_tokens:>13,} {usd(e.typical_usd):>11} "
            f"{usd(e.max_usd):>11}" + (f"  ({e.note})" if e.note else "")
        )
    known = [e for e in estimates if e.typical_usd is not None]
    if known:
        lines.append(
            f"{'total':<40} {sum(e.units for e in estimates):>7} "
            f"{sum(e.input_tokens for e in estimates):>13,} "
            f"{usd(sum(e.typical_usd or 0 for e in known)):>11} "
            f"{usd(sum(e.max_usd or 0 for e in known)):>11}"
        )
    lines.append(
        f"estimate: prompt and image tokens at the list price, output at {TYPICAL_OUTPUT_TOKENS} "
        "tokens per call (an assumption); at most: every answer at max_output_tokens. "
        "Nothing was sent."
    )
    return "\n".join(lines)
