"""How fast report.html opens and filters at the size of a real evaluation (docs/performance.md).

Builds a synthetic run (``rabench.score.synthetic``: 2,000 cases x 4 targets x 2
repetitions by default) with a receipt-like JPEG per case, scores it (which writes
cases.json with a thumbnail per case), renders report.html, then opens it in
headless Chromium (Debian /usr/bin/chromium) and times:

* load: navigation start to the viewer being ready (data parsed, first page drawn);
* each filter change (stratum, target + status, disagreements, case-id search):
  from the change event to the next frame after the list is redrawn.

    .venv/bin/python bench/report_viewer_speed.py [--cases 2000] [--targets 4] [--reps 2] [--tries 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

FILTER_JS = """async ([id, value]) => {
  const el = document.getElementById(id);
  const t0 = performance.now();
  if (el.type === 'checkbox') el.checked = value; else el.value = value;
  el.dispatchEvent(new Event(el.type === 'search' ? 'input' : 'change'));
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}"""


def receipts(folder: Path, n_distinct: int = 40) -> list[Path]:
    """Receipt-like JPEGs (text lines on paper) so thumbnails have a realistic size."""
    import numpy as np
    from PIL import Image, ImageDraw

    rng = np.random.default_rng(0)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for k in range(n_distinct):
        img = Image.new("RGB", (720, 1600), (246, 244, 238))
        d = ImageDraw.Draw(img)
        for y in range(60, 1540, 34):
            words = " ".join(
                "".join(chr(65 + int(c)) for c in rng.integers(0, 26, int(rng.integers(3, 9))))
                for _ in range(int(rng.integers(2, 6)))
            )
            d.text((40, y), words, fill=(30, 30, 30))
            d.text((560, y), f"{rng.uniform(1, 90):.2f}", fill=(30, 30, 30))
        path = folder / f"template-{k}.jpg"
        img.save(path, "JPEG", quality=85)
        out.append(path)
    return out


def build(root: Path, n_cases: int, n_targets: int, reps: int) -> tuple[Path, dict[str, float]]:
    from rabench.cli.main import main
    from rabench.score.synthetic import make

    run = make(root, n_targets=n_targets, n_cases=n_cases, reps=reps, seed=7)
    templates = receipts(root / "templates")
    files = root / "suite" / "files"
    files.mkdir(parents=True, exist_ok=True)
    for i in range(n_cases):
        shutil.copyfile(templates[i % len(templates)], files / f"c{i:06d}.jpg")
    out = root / "report"
    t0 = time.perf_counter()
    assert main(["score", str(run), "--out", str(out)]) == 0
    t1 = time.perf_counter()
    assert main(["report", str(out)]) == 0
    t2 = time.perf_counter()
    return out / "report.html", {"score_s": t1 - t0, "report_s": t2 - t1}


def measure(html: Path, tries: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    loads, filters = [], {}
    steps = [
        ("stratum", "v-stratum", "1"),
        ("target+status", "v-target", "0"),
        ("status", "v-status", "wrong"),
        ("disagreements", "v-dis", True),
        ("search", "v-q", "c0001"),
        ("clear search", "v-q", ""),
        ("all again", "v-dis", False),
    ]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu"])
        for _ in range(tries):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            t0 = time.perf_counter()
            page.goto(html.resolve().as_uri(), wait_until="commit")
            page.wait_for_selector("#viewer[data-ready='1']", timeout=60_000)
            loads.append(time.perf_counter() - t0)
            for name, el, value in steps:
                filters.setdefault(name, []).append(page.evaluate(FILTER_JS, [el, value]) / 1000.0)
            assert not errors, errors
            page.close()
        browser.close()
    out = {"load_s": statistics.median(loads), "load_max_s": max(loads)}
    out.update({f"filter {k} s": statistics.median(v) for k, v in filters.items()})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--targets", type=int, default=4)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--tries", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rabench-viewer-") as tmp:
        html, timings = build(Path(tmp), args.cases, args.targets, args.reps)
        size = html.stat().st_size
        cases = (html.parent / "cases.json").stat().st_size
        timings.update(measure(html, args.tries))
    print(
        f"{args.cases} cases x {args.targets} targets x {args.reps} repetitions: report.html "
        f"{size / 1e6:.1f} MB (cases.json {cases / 1e6:.1f} MB)"
    )
    for k, v in timings.items():
        print(f"  {k:<24} {v:.3f}")


if __name__ == "__main__":
    main()
