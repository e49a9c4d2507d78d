"""What a file is, from its first bytes; and stable case ids from file names.

A receipt named ``0042.jpg`` that is really a PNG is a labelling mistake (the
file was swapped or converted after labelling), so the importers refuse it
rather than trust either the name or the bytes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path, PurePosixPath

from rabench.cases.importers.values import slugify

# Extension (lower case) -> the media type a file so named must have.
EXTENSIONS: dict[str, str] = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".jpe": "image/jpeg",
    ".png": "image/png",
    ".webp": "image/webp",
    ".tif": "image/tiff",
    ".tiff": "image/tiff",
    ".pdf": "application/pdf",
}
# Media type -> the extension the copy gets inside the suite.
SUITE_EXTENSION: dict[str, str] = {
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/webp": ".webp",
    "image/tiff": ".tif",
    "application/pdf": ".pdf",
}
_NAMES = {
    "image/jpeg": "JPEG",
    "image/png": "PNG",
    "image/webp": "WebP",
    "image/tiff": "TIFF",
    "application/pdf": "PDF",
}


def sniff(head: bytes) -> str | None:
    """The media type the magic bytes say, or None when it is none of the suite's types."""
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "image/tiff"
    # PDF readers accept the header anywhere in the first 1024 bytes.
    if b"%PDF-" in head[:1024]:
        return "application/pdf"
    return None


def sniff_file(path: Path) -> str | None:
    with path.open("rb") as fh:
        return sniff(fh.read(1024))


def media_problem(path: Path, name: str) -> tuple[str | None, str | None]:
    """(media type, None) for a good file, (None, problem) for a bad one."""
    try:
        actual = sniff_file(path)
    except OSError as exc:
        return None, f"cannot read the file ({exc.strerror or exc})"
    if actual is None:
        return None, "not a JPEG, PNG, WebP, TIFF or PDF file (by its first bytes)"
    suffix = PurePosixPath(name).suffix.lower()
    expected = EXTENSIONS.get(suffix)
    if expected is not None and expected != actual:
        return None, f"file is {_NAMES[actual]} by its content but named {suffix}"
    return actual, None


def _stem(name: str) -> str:
    p = PurePosixPath(name)
    return p.with_suffix("").as_posix() if p.suffix else name


def assign_ids(names: list[str]) -> dict[str, str]:
    """File name -> case id: the slug of the name without its extension, unique and stable.

    The id depends only on the set of names (not on their order): names whose
    slug is shared get the slug of the full name (``a-jpg``, ``a-png``), and any
    remaining clash a ``-2``, ``-3``... suffix in sorted name order.
    """
    base = {n: slugify(_stem(n)) for n in names}
    base_counts = Counter(base.values())
    want = {n: (b if base_counts[b] == 1 else slugify(n)) for n, b in base.items()}
    want_counts = Counter(want.values())
    ids: dict[str, str] = {}
    used: set[str] = set()
    for n in sorted(names):
        if want_counts[want[n]] == 1:
            ids[n] = want[n]
            used.add(want[n])
    for n in sorted(names):
        if n in ids:
            continue
        k = 2
        while f"{want[n]}-{k}" in used:
            k += 1
        ids[n] = f"{want[n]}-{k}"
        used.add(ids[n])
    return ids
