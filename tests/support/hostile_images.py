"""Small image files that cost a decoder far more than their size: built in memory for tests.

* ``wide_png``: 100,000 x 1 px in ~100 kB; prepared naively it becomes a 3072 x 1 strip
  that took OCR to 1.6 GB.
* ``many_scans_jpeg``: a progressive JPEG whose last scan is repeated ``scans`` times; every
  scan is a pass over every block, so 2,000 scans of 3000 x 3000 px (99 kB) took ~40 s to decode.
"""

from __future__ import annotations

import io
import struct

from PIL import Image


def wide_png(width: int = 100_000, height: int = 1) -> bytes:
    im = Image.effect_noise((width, height), 64).convert("L")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def _scan_end(data: bytes, pos: int) -> int:
    """The end of the SOS segment at ``pos``, entropy-coded data included."""
    end = pos + 2 + struct.unpack(">H", data[pos + 2 : pos + 4])[0]
    while True:
        end = data.index(b"\xff", end)
        if data[end + 1] == 0 or 0xD0 <= data[end + 1] <= 0xD7:
            end += 2
            continue
        return end


def many_scans_jpeg(side: int = 3000, scans: int = 2000) -> bytes:
    """A white ``side`` x ``side`` progressive JPEG with its last scan repeated ``scans`` times."""
    buf = io.BytesIO()
    Image.new("L", (side, side), 255).save(buf, "JPEG", quality=90, progressive=True)
    data = buf.getvalue()
    pos, last = 2, None
    while pos < len(data) and data[pos + 1] != 0xD9:
        if data[pos + 1] == 0xDA:
            last = (pos, _scan_end(data, pos))
            pos = last[1]
        else:
            pos += 2 + struct.unpack(">H", data[pos + 2 : pos + 4])[0]
    assert last is not None, "no scan"
    start, end = last
    return data[:end] + data[start:end] * scans + data[end:]
