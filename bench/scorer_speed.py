"""Scorer speed: a synthetic run of 10 targets x 2,000 cases x 3 repetitions
(60,000 outcomes) scored with every row and interval, and the bootstrapped rows
re-done by a straightforward numpy/scikit-learn implementation for comparison.

    .venv/bin/python bench/scorer_speed.py [--targets 10 --cases 2000 --reps 3 --baseline-targets 2]

Goals (issue 7): whole report <= 10 s on 2 cores; bootstrap part >= 20x faster
than the baseline. Prints one table; figures go to docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rabench.score import kernels, synthetic  # noqa: E402
from rabench.score.load import load_runs  # noqa: E402
from rabench.score.metrics import FFR_LEVELS  # noqa: E402
from rabench.score.reduce import run_facts, runs_per_case  # noqa: E402
from rabench.score.rows import N_BOOT, row_seed  # noqa: E402


def baseline_rows(scores_auc, scores_thr, case, w, fake_case, genuine_ids, fake_ids, li):
    """The obvious way: resample case ids with numpy, expand to runs, call sklearn."""
    order = np.argsort(case, kind="stable")
    starts = np.searchsorted(case[order], np.arange(fake_case.size))
    ends = np.searchsorted(case[order], np.arange(fake_case.size), side="right")
    rng = np.random.default_rng(0)
    for _ in range(N_BOOT):
        pick = np.concatenate([rng.choice(genuine_ids, genuine_ids.size), rng.choice(fake_ids, fake_ids.size)])
        runs = np.concatenate([order[starts[c] : ends[c]] for c in pick])
        y = fake_case[case[runs]]
        roc_auc_score(y, scores_auc[runs], sample_weight=w[runs])
        for alpha, _ in FFR_LEVELS:
            s, ww, yy = scores_thr[runs], w[runs], y
            ng = ww[~yy].sum()
            _best = 0.0  # computed as the scorer does; the value is not needed here
            for t in np.unique(s[s >= 0])[::-1]:
                flagged = s >= t
                if ww[flagged & ~yy].sum() <= alpha * ng + 1e-9:
                    _best = ww[flagged & yy].sum() / ww[yy].sum()
                else:
                    break
        tp, den = li
        (2 * tp[pick]).sum() / den[pick].sum()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", type=int, default=10)
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument(
        "--baseline-targets",
        type=int,
        default=2,
        help="targets whose 'all' bootstrapped rows the baseline re-computes (it is slow)",
    )
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rabench-scorer-bench-"))
    t0 = time.perf_counter()
    run = synthetic.make(tmp, args.targets, args.cases, args.reps)
    gen_s = time.perf_counter() - t0
    n_out = sum(1 for _ in (run / "outcomes.jsonl").open("rb"))

    # 1. The whole report, as a user runs it: a fresh process (imports, numba cache load).
    cmd = [sys.executable, "-m", "rabench", "score", str(run), "--out", str(tmp / "report")]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run(cmd, check=True, capture_output=True, env=env)  # warm numba's on-disk cache
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    whole_s = time.perf_counter() - t0
    rows = (tmp / "report" / "rows.json").read_bytes()

    # 2. In-process breakdown.
    from rabench.score.scorer import score_runs

    result = score_runs([str(run)])
    n_boot_rows = sum(1 for r in result.rows if r.interval == "bootstrap" and r.value is not None)

    # 3. Bootstrapped 'all' rows of the first targets: our kernels vs the baseline.
    inp = load_runs([str(run)])
    ours_s = base_s = 0.0
    n_rows = 0
    for target in inp.targets[: args.baseline_targets]:
        facts = run_facts(target, inp.cases)
        cnt = runs_per_case(facts, inp.cases.n)
        base = inp.cases.is_base & (cnt > 0)
        sel = base[facts.case]
        local = np.cumsum(base) - 1
        case = local[facts.case[sel]].astype(np.int32)
        fake_case = inp.cases.is_fake[base]
        risk = facts.risk[sel]
        s_auc = np.where(np.isnan(risk), 0.5, risk)
        s_thr = np.where(np.isnan(risk), -1.0, risk)
        w = facts.w[sel]
        g_ids, f_ids = np.flatnonzero(~fake_case), np.flatnonzero(fake_case)
        per = lambda v: (  # noqa: E731
            np.bincount(
                facts.case[sel][~np.isnan(v[sel])],
                weights=v[sel][~np.isnan(v[sel])],
                minlength=inp.cases.n,
            )[base]
            / np.maximum(cnt[base], 1)
        )
        tp, den = per(facts.li_tp), per(facts.li_pred) + per(facts.li_lab)
        t0 = time.perf_counter()
        auc_runs = kernels.SortedRuns(s_auc, case, fake_case[case], w, base.sum())
        kernels.bootstrap_runs(kernels.AUC, 0.0, auc_runs, g_ids, f_ids, N_BOOT, row_seed("a", "b", "c", target.id))
        thr_runs = kernels.SortedRuns(s_thr, case, fake_case[case], w, base.sum(), never_below=0.0)
        for alpha, _ in FFR_LEVELS:
            kernels.bootstrap_runs(kernels.DETECTION_AT_FFR, alpha, thr_runs, g_ids, f_ids, N_BOOT, 1)
        kernels.bootstrap_ratio(2 * tp, den, g_ids.astype(np.int64), f_ids.astype(np.int64), N_BOOT, 2)
        ours_s += time.perf_counter() - t0
        t0 = time.perf_counter()
        baseline_rows(s_auc, s_thr, case, w, fake_case, g_ids, f_ids, (tp, den))
        base_s += time.perf_counter() - t0
        n_rows += 5

    print(
        f"synthetic run: {args.targets} targets x {args.cases} cases x {args.reps} reps = {n_out} outcomes "
        f"(generated in {gen_s:.1f} s)"
    )
    print(
        f"whole report (fresh `rabench score` process, warm numba cache): {whole_s:.2f} s; "
        f"{len(result.rows)} rows, {n_boot_rows} bootstrapped, rows.json {len(rows) / 1e6:.1f} MB"
    )
    print("in-process breakdown (s): " + ", ".join(f"{k} {v:.2f}" for k, v in result.timings.items()))
    print(
        f"bootstrap, {n_rows} 'all' rows x {N_BOOT} resamples ({args.baseline_targets} targets): "
        f"kernels {ours_s:.3f} s ({ours_s / n_rows * 1e3:.1f} ms/row), "
        f"numpy/sklearn baseline {base_s:.1f} s ({base_s / n_rows * 1e3:.0f} ms/row): "
        f"{base_s / ours_s:.0f}x faster"
    )
    print(f"numba threads: {__import__('numba').get_num_threads()}, cores: {os.cpu_count()}")


if __name__ == "__main__":
    main()
