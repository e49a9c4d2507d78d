"""The per-case viewer in report.html, driven in headless Chromium: filter, open a case, switch target.

Expected counts are computed here from the run's outcomes (an independent reading
of the rule the page states: a run is flagged at risk >= 0.5, a failed call has no
decision), and compared with what the page shows.
"""

import shutil

import msgspec
import pytest
from PIL import Image

from rabench.cli.main import main
from rabench.contracts import Outcome
from rabench.score.synthetic import make

pytestmark = pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium not installed")
N_IMAGES = 40


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("viewer")
    run = make(root, n_targets=3, n_cases=150, reps=2, seed=5)
    files = root / "suite" / "files"
    files.mkdir(parents=True, exist_ok=True)
    for i in range(N_IMAGES):  # images for the first cases; the rest have none (thumbnail: none)
        Image.new("RGB", (300, 700), (255, 255 - 3 * i, 255)).save(files / f"c{i:06d}.jpg")
    out = root / "report"
    assert main(["score", str(run), "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    outcomes = [msgspec.json.decode(line, type=Outcome) for line in (run / "outcomes.jsonl").read_bytes().splitlines()]
    cases = msgspec.json.decode((out / "cases.json").read_bytes())
    return out, outcomes, cases


@pytest.fixture(scope="module")
def page(report):
    from playwright.sync_api import sync_playwright

    out, _, _ = report
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium"),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        pg = browser.new_page(viewport={"width": 1280, "height": 900})
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: errors.append(str(e)))
        requests: list[str] = []
        pg.on("request", lambda r: requests.append(r.url))
        pg.goto((out / "report.html").resolve().as_uri())
        pg.wait_for_selector("#viewer[data-ready='1']")
        yield pg, errors, requests
        browser.close()


def _shown(pg) -> int:
    return int(pg.locator("#v-count").inner_text().split(" of ")[0])


def _flag(o: Outcome) -> bool | None:
    if o.status != "ok":
        return None
    return o.verdict is not None and o.verdict.risk is not None and o.verdict.risk >= 0.5


def test_filters_show_the_cases_the_rule_says(page, report):
    pg, errors, requests = page
    _, outcomes, cases = report
    fake = {c["id"]: c["fake"] for c in cases["cases"]}
    assert pg.locator("#v-count").inner_text() == f"{len(fake)} of {len(fake)} cases"
    # stratum: the label's group
    pg.select_option("#v-stratum", label="label=genuine")
    assert _shown(pg) == sum(not f for f in fake.values())
    # target + status: genuine cases `self` flagged in at least one run
    pg.select_option("#v-target", label="self")
    pg.select_option("#v-status", value="falseflag")
    want = {o.case_id for o in outcomes if o.target == "self" and not fake[o.case_id] and _flag(o)}
    assert _shown(pg) == len(want) > 0
    rows = pg.locator(".v-row").evaluate_all("rs => rs.map(r => r.dataset.case)")
    assert set(rows) <= want and len(rows) == min(100, len(want))
    # another target: the same filter follows it
    other = "diy:prov:model-1"
    pg.select_option("#v-target", label=other)
    want_other = {o.case_id for o in outcomes if o.target == other and not fake[o.case_id] and _flag(o)}
    assert _shown(pg) == len(want_other) and want_other != want
    # disagreements: targets' majority decisions differ (over their answered runs)
    pg.select_option("#v-stratum", value="")
    pg.select_option("#v-status", value="")
    pg.check("#v-dis")
    by: dict[tuple[str, str], list[bool]] = {}
    for o in outcomes:
        f = _flag(o)
        if f is not None:
            by.setdefault((o.case_id, o.target), []).append(f)
    decisions: dict[str, set[int]] = {}
    for (cid, _), flags in by.items():
        n = sum(flags)
        decisions.setdefault(cid, set()).add(int(n > 0 and 2 * n >= len(flags)))
    assert _shown(pg) == sum(len(d) > 1 for d in decisions.values()) > 0
    pg.uncheck("#v-dis")
    assert errors == []
    assert all(u.startswith(("file:", "data:")) for u in requests)  # offline: nothing fetched


def test_open_a_case_and_switch_target(page, report):
    pg, errors, _ = page
    _, outcomes, cases = report
    pg.select_option("#v-target", value="")
    pg.select_option("#v-status", value="")
    pg.fill("#v-q", "c000003")
    assert _shown(pg) == 1
    pg.locator(".v-row").first.click()
    detail = pg.locator("#v-detail")
    assert detail.get_attribute("data-case") == "c000003"
    case = next(c for c in cases["cases"] if c["id"] == "c000003")
    assert f"label: {case['label'][0]}" in detail.locator(".v-label").inner_text()
    cols = detail.locator(".v-col").evaluate_all("cs => cs.map(c => c.dataset.target)")
    assert sorted(cols) == sorted(cases["targets"])  # every target side by side
    mine = sorted((o.target, o.repetition) for o in outcomes if o.case_id == "c000003")
    shown = sorted(
        (t, int(r))
        for t in cols
        for r in detail.locator(f".v-col[data-target='{t}'] .v-rep").evaluate_all("rs => rs.map(r => r.dataset.rep)")
    )
    assert shown == mine  # every repetition of every target
    # reasons with their kind and the @field they point at, as the target gave them
    for o in outcomes:
        if o.case_id == "c000003" and o.verdict and o.verdict.reasons:
            col = detail.locator(f".v-col[data-target='{o.target}'] .v-rep[data-rep='{o.repetition}']")
            text = col.inner_text()
            for r in o.verdict.reasons:
                assert r.text in text and r.kind.upper() in text
                assert all(f"@{f}" in text for f in r.fields)
    # switch target: the chosen target's runs come first, in the detail and in the list
    pg.select_option("#v-target", label="diy:prov:model-2")
    assert detail.locator(".v-col").first.get_attribute("data-target") == "diy:prov:model-2"
    assert pg.locator(".v-row .v-chip").first.get_attribute("title") == "diy:prov:model-2"
    img = detail.locator(".v-top img")
    assert img.count() == 1 and img.get_attribute("src").startswith("data:image/jpeg;base64,")
    assert errors == []


def test_thumbnails_are_decoded_only_when_scrolled_into_view(page, report):
    pg, errors, _ = page
    pg.fill("#v-q", "")
    pg.select_option("#v-target", value="")
    imgs = pg.locator("#v-list img")
    with_data = pg.locator("#v-list img[data-src], #v-list img[src^='data:']").count()
    assert with_data == N_IMAGES
    # the observer's callbacks run after the list is redrawn: wait for the first rows' images
    pg.wait_for_function("document.querySelectorAll(\"#v-list img[src^='data:']\").length > 0")
    loaded = pg.locator("#v-list img[src^='data:']").count()
    assert 0 < loaded < N_IMAGES  # the first rows only
    last = pg.locator(f".v-row[data-case='c{N_IMAGES - 1:06d}'] img")
    assert last.get_attribute("src") is None and last.get_attribute("data-src")
    last.scroll_into_view_if_needed()
    pg.wait_for_function(
        f"document.querySelector(\".v-row[data-case='c{N_IMAGES - 1:06d}'] img\").src.startsWith('data:')"
    )
    assert imgs.count() == 100  # one page of 100 rows
    assert errors == []
