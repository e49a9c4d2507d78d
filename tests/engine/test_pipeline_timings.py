"""The engine's per-stage timings (``Analysis.timings``) time each stage once."""

from __future__ import annotations


def test_extract_time_leaves_the_re_read_out(render, tmp_path, monkeypatch):
    # the re-read is timed on its own; "extract" was timed from the re-read's start (so it held the
    # re-read and not the first extraction)
    import time

    from rabench.engine import pipeline

    real = pipeline.reread_amounts

    def slow(*a, **k):
        time.sleep(0.3)
        return real(*a, **k)

    monkeypatch.setattr(pipeline, "reread_amounts", slow)
    path = tmp_path / "r.png"
    render([("Espresso", "2.20"), ("TOTAL", "9.99")], title="BEAN THERE").save(path)  # 2.20 != 9.99: re-read
    timings = pipeline.analyse(str(path), "image/png", str(path)).timings
    assert timings["reread"] >= 0.3
    assert timings["extract"] < 0.2
    assert timings["ocr"] + timings["extract"] + timings["reread"] <= timings["total"]
