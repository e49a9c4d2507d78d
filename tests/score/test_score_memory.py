"""The scorer's memory per outcome (issue 19: about 2.4 KB per outcome, 931 MB at 300k).

Outcomes are kept as the lines of ``outcomes.jsonl`` and decoded one at a time
(``rabench.score.load.OutcomeLines``), not as a list of decoded Outcome objects
(about 1.8 KB each with their verdicts). Measured with tracemalloc: the growth of
the scorer's peak from 4,000 to 40,000 synthetic outcomes, per outcome.
"""

import gc
import tracemalloc

from rabench.score import synthetic
from rabench.score.scorer import score_runs


def _peak(run) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        result = score_runs([str(run)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.rows
    return peak


def test_the_scorer_holds_under_1_kb_per_outcome(tmp_path):
    small = synthetic.make(tmp_path / "small", 10, 200, 2)  # 4,000 outcomes
    big = synthetic.make(tmp_path / "big", 10, 2_000, 2)  # 40,000 outcomes
    score_runs([str(small)])  # imports and compiled kernels out of the figures
    per_outcome = (_peak(big) - _peak(small)) / 36_000
    print(f"scorer peak: {per_outcome:.0f} B per outcome")
    assert per_outcome < 1_000, f"{per_outcome:.0f} B per outcome"
