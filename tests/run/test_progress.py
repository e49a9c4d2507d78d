"""The progress line counts files being prepared as work in flight (issue 15: a 60 s preparation
showed "0 in flight, ETA 0:00")."""

from __future__ import annotations

import io

from rabench.run.progress import Progress, TargetCounters, line_for


def test_a_file_being_prepared_shows_as_in_flight():
    c = TargetCounters("self", total=3)
    assert ", 0 in flight," in line_for(c)
    c.preparing = 1
    assert ", 1 (1 preparing) in flight," in line_for(c)
    c.in_flight = 2
    assert ", 3 (1 preparing) in flight," in line_for(c)
    c.preparing = 0
    assert ", 2 in flight," in line_for(c)


def test_the_table_shows_it_too():
    c = TargetCounters("self", total=3)
    c.preparing = 2
    out = io.StringIO()
    progress = Progress([c], "rich", stream=out)
    from rich.console import Console

    console = Console(file=out, width=120)
    console.print(progress._table())
    assert "2 (2 preparing)" in out.getvalue()
