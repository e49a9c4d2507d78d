"""A photo of a receipt taken before the receipt was printed.

Proof only when both dates are unambiguous: the caller passes the printed date
as ISO ``YYYY-MM-DD`` only when it parsed without day/month ambiguity, and the
capture time is EXIF ``DateTimeOriginal`` (local camera time). The gap must be
at least a full day from the capture time to the *start* of the printed day,
which absorbs time-zone differences between the camera clock and the till
(at most 14 h). Clocks that were never set (years before 2001, or the 1 January
midnight that cameras reset to) are ignored, because they are old, not early. A
capture or printed date after the submission time (``now``) is not compared: the
first is a wrong clock, the second a misreading (e.g. an item code read as a date).
"""

from __future__ import annotations

import datetime as dt
import re

import msgspec

MIN_GAP = dt.timedelta(days=1)
FUTURE_SLACK = dt.timedelta(days=2)  # time zones and clock drift between camera, till and server
_EXIF_DT = re.compile(r"^\s*(\d{4})[:\-](\d{2})[:\-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})")
_OFFSET = re.compile(r"^\s*([+-])(\d{2}):?(\d{2})\s*$")


class CaptureTime(msgspec.Struct, frozen=True):
    when: dt.datetime  # naive local camera time
    offset: str = ""  # OffsetTimeOriginal as written, if any
    raw: str = ""


class PhotoDateFinding(msgspec.Struct, frozen=True):
    proof: bool
    text: str
    gap_days: float = 0.0


def parse_capture(value: str | None, offset: str | None = None) -> CaptureTime | None:
    """EXIF ``YYYY:MM:DD HH:MM:SS`` -> CaptureTime; None when absent, malformed or an unset clock."""
    if not value:
        return None
    m = _EXIF_DT.match(value)
    if not m:
        return None
    try:
        when = dt.datetime(*(int(g) for g in m.groups()))
    except ValueError:
        return None
    if when.year < 2001 or (when.month == 1 and when.day == 1 and when.hour == 0 and when.minute < 5):
        return None
    off = offset.strip() if offset and _OFFSET.match(offset) else ""
    return CaptureTime(when, off, value.strip())


def check(
    capture: CaptureTime | None, printed_date: str | None, *, now: dt.datetime | None = None
) -> PhotoDateFinding | None:
    """Compare capture time with the printed purchase date; None when there is nothing to say.

    ``now`` is the submission time; without one, the wall clock (the file exists now, so it
    still bounds the true capture time, only more loosely). Neither date may lie more than
    ``FUTURE_SLACK`` after it: a capture "after submission" is a wrong camera clock, and a
    printed date after submission is a misreading (or the plausibility rules' business), so
    neither is compared."""
    if capture is None or not printed_date:
        return None
    try:
        printed = dt.date.fromisoformat(printed_date)
    except ValueError:
        return None
    now = now or dt.datetime.now()
    tz = f" {capture.offset}" if capture.offset else ""
    if capture.when > now + FUTURE_SLACK:
        return PhotoDateFinding(
            False,
            f"EXIF DateTimeOriginal {capture.raw}{tz} is after the submission time {now:%Y-%m-%d %H:%M}: "
            "a wrong camera clock; not compared with the printed date",
        )
    if dt.datetime.combine(printed, dt.time()) > now + FUTURE_SLACK:
        return PhotoDateFinding(
            False,
            f"the printed date {printed.isoformat()} is after the submission time {now:%Y-%m-%d %H:%M}; "
            f"EXIF DateTimeOriginal {capture.raw}{tz} not compared with it",
        )
    start = dt.datetime.combine(printed, dt.time())
    gap = start - capture.when
    if gap >= MIN_GAP:
        days = gap.total_seconds() / 86400
        return PhotoDateFinding(
            True,
            f"EXIF DateTimeOriginal {capture.raw}{tz} is {days:.1f} days before the printed purchase date "
            f"{printed.isoformat()}: the photo was taken before the receipt was printed",
            gap_days=days,
        )
    return PhotoDateFinding(
        False,
        f"EXIF DateTimeOriginal {capture.raw}{tz} is consistent with the printed date {printed.isoformat()}",
        gap_days=gap.total_seconds() / 86400,
    )
