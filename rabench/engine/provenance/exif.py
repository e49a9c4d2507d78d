"""A bounded EXIF (TIFF IFD) reader: IFD0, the Exif sub-IFD, GPS presence and IFD1's thumbnail.

Why our own and not piexif for reading: EXIF comes from whoever made the file,
and general readers trust its counts (piexif builds a struct format string as
long as a tag's count says, so a hostile count of 2^32 exhausts memory). This
reader caps everything (entries per IFD, bytes per value, number of IFDs, the
thumbnail's size), never follows an offset twice, and reports what it could
not read instead of raising. piexif is still used by the tests to *write* EXIF.
"""

from __future__ import annotations

import struct

import msgspec

MAX_ENTRIES = 512  # per IFD
MAX_VALUE_BYTES = 64 * 1024  # per tag value kept
MAX_IFDS = 8
MAX_THUMBNAIL_BYTES = 1024 * 1024

# Tags we name (TIFF/EXIF 2.32 numbers).
TAGS = {
    0x010E: "ImageDescription",
    0x010F: "Make",
    0x0110: "Model",
    0x0112: "Orientation",
    0x0131: "Software",
    0x0132: "DateTime",
    0x013B: "Artist",
    0x02BC: "XMLPacket",  # XMP in TIFF
    0x8298: "Copyright",
    0x8769: "ExifIFD",
    0x8825: "GPSIFD",
    0x9003: "DateTimeOriginal",
    0x9004: "DateTimeDigitized",
    0x9010: "OffsetTime",
    0x9011: "OffsetTimeOriginal",
    0x9012: "OffsetTimeDigitized",
    0x927C: "MakerNote",
    0x9286: "UserComment",
    0xA002: "PixelXDimension",
    0xA003: "PixelYDimension",
    0xA431: "BodySerialNumber",
    0xA433: "LensMake",
    0xA434: "LensModel",
    0x829A: "ExposureTime",
    0x829D: "FNumber",
    0x8827: "ISOSpeedRatings",
    0x920A: "FocalLength",
    0x0201: "JPEGInterchangeFormat",
    0x0202: "JPEGInterchangeFormatLength",
}
_SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8}
_FMT = {3: "H", 4: "I", 8: "h", 9: "i", 11: "f", 12: "d"}
MAX_NUMBERS = 64  # numeric arrays longer than this are kept as their first values only


class ExifData(msgspec.Struct):
    ifd0: dict[str, object] = {}
    exif: dict[str, object] = {}
    ifd1: dict[str, object] = {}
    has_gps: bool = False
    thumbnail: bytes | None = None
    problems: list[str] = []

    @property
    def orientation(self) -> int:
        o = self.ifd0.get("Orientation")
        if isinstance(o, tuple):
            o = o[0] if o else 1
        return o if isinstance(o, int) and 1 <= o <= 8 else 1

    def text(self, name: str) -> str | None:
        """A tag's value as text (IFD0 first, then the Exif sub-IFD), or None."""
        for ifd in (self.ifd0, self.exif):
            v = ifd.get(name)
            if isinstance(v, str) and v.strip():
                return v.strip()
        return None


def _ascii(raw: bytes) -> str:
    raw = raw.split(b"\x00", 1)[0]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _user_comment(raw: bytes) -> str:
    head, body = raw[:8], raw[8:]
    if head.startswith(b"UNICODE"):
        for enc in ("utf-16-be", "utf-16-le"):
            try:
                return body.decode(enc).strip("\x00 ")
            except UnicodeDecodeError:
                continue
    return _ascii(body).strip()


def _value(data: bytes, endian: str, typ: int, count: int, field: bytes) -> object:
    size = _SIZES.get(typ)
    if size is None:
        raise ValueError(f"unknown type {typ}")
    total = size * count
    if total <= 4:
        raw = field[:total]
    else:
        (off,) = struct.unpack(endian + "I", field)
        if off >= len(data) or total > len(data) - off:
            raise ValueError("value outside the EXIF block")
        raw = data[off : off + min(total, MAX_VALUE_BYTES)]
    if typ == 2:
        return _ascii(raw)
    if typ in (1, 6, 7):
        return bytes(raw)
    n = min(count, MAX_NUMBERS, len(raw) // size)
    if typ in (5, 10):
        sign = "i" if typ == 10 else "I"
        vals = struct.unpack(endian + sign * (2 * n), raw[: 8 * n])
        out = tuple(vals[i] / vals[i + 1] if vals[i + 1] else 0.0 for i in range(0, 2 * n, 2))
    else:
        out = struct.unpack(endian + _FMT[typ] * n, raw[: size * n])
    return out[0] if len(out) == 1 else tuple(out)


def _read_ifd(
    data: bytes, endian: str, offset: int, problems: list[str]
) -> tuple[dict[str, object], dict[int, object], int]:
    if offset < 8 or offset + 2 > len(data):
        raise ValueError(f"IFD offset {offset} outside the EXIF block")
    (n,) = struct.unpack(endian + "H", data[offset : offset + 2])
    if n > MAX_ENTRIES:
        problems.append(f"IFD at {offset} claims {n} entries; read the first {MAX_ENTRIES}")
        n = MAX_ENTRIES
    named: dict[str, object] = {}
    raw: dict[int, object] = {}
    pos = offset + 2
    for _ in range(n):
        entry = data[pos : pos + 12]
        if len(entry) < 12:
            problems.append("IFD truncated")
            break
        tag, typ, count = struct.unpack(endian + "HHI", entry[:8])
        pos += 12
        try:
            val = _value(data, endian, typ, count, entry[8:12])
        except (ValueError, struct.error, KeyError) as e:
            problems.append(f"tag 0x{tag:04X}: {e}")
            continue
        raw[tag] = val
        name = TAGS.get(tag)
        if name:
            if name == "UserComment" and isinstance(val, bytes):
                val = _user_comment(val)
            named[name] = val
    nxt = struct.unpack(endian + "I", data[pos : pos + 4])[0] if pos + 4 <= len(data) else 0
    return named, raw, nxt


def parse_tiff(data: bytes) -> ExifData:
    """Parse a TIFF-structured EXIF block (the bytes after ``Exif\\0\\0``). Never raises."""
    out = ExifData(ifd0={}, exif={}, ifd1={}, problems=[])
    if len(data) < 8 or data[:2] not in (b"II", b"MM"):
        out.problems.append("EXIF block has no TIFF header")
        return out
    endian = "<" if data[:2] == b"II" else ">"
    try:
        (ifd0_off,) = struct.unpack(endian + "I", data[4:8])
        seen: set[int] = set()
        ifd0, raw0, ifd1_off = _read_ifd(data, endian, ifd0_off, out.problems)
        seen.add(ifd0_off)
        out.ifd0 = ifd0
        out.has_gps = 0x8825 in raw0
        sub = raw0.get(0x8769)
        if isinstance(sub, int) and sub not in seen:
            seen.add(sub)
            try:
                out.exif = _read_ifd(data, endian, sub, out.problems)[0]
            except (ValueError, struct.error) as e:
                out.problems.append(f"Exif sub-IFD: {e}")
        ifd1_lost = False
        if ifd1_off and ifd1_off not in seen and len(seen) < MAX_IFDS:
            seen.add(ifd1_off)
            try:
                out.ifd1 = _read_ifd(data, endian, ifd1_off, out.problems)[0]
            except (ValueError, struct.error) as e:
                out.problems.append(f"IFD1: {e}")
                ifd1_lost = True
        out.thumbnail = _thumbnail(data, out.ifd1, out.problems)
        if out.thumbnail is None and ifd1_lost:
            out.thumbnail = _embedded_jpeg(data, ifd0_off, out.problems)
    except (ValueError, struct.error) as e:
        out.problems.append(f"IFD0: {e}")
    return out


def _thumbnail(data: bytes, ifd1: dict[str, object], problems: list[str]) -> bytes | None:
    """IFD1's JPEG thumbnail. A length that runs past the block is a fact, and the bytes that are
    there are still used when they hold a whole JPEG (SOI .. EOI): re-encoders that rewrite the
    block often leave a stale length."""
    off, length = ifd1.get("JPEGInterchangeFormat"), ifd1.get("JPEGInterchangeFormatLength")
    if not isinstance(off, int) or not isinstance(length, int):
        return None
    if off <= 0 or off >= len(data) or length <= 0:
        problems.append(f"thumbnail offset/length {off}/{length} outside the EXIF block")
        return None
    if length > MAX_THUMBNAIL_BYTES:
        problems.append(f"thumbnail length {length} over {MAX_THUMBNAIL_BYTES} bytes; not read")
        return None
    thumb = data[off : off + length]
    if not thumb.startswith(b"\xff\xd8"):
        problems.append("thumbnail is not a JPEG")
        return None
    if off + length > len(data):
        end = thumb.rfind(b"\xff\xd9")
        problems.append(
            f"thumbnail length {length} runs past the EXIF block"
            + ("; read its bytes up to the JPEG end marker" if end > 0 else "")
        )
        return bytes(thumb[: end + 2]) if end > 0 else None
    return bytes(thumb)


def _embedded_jpeg(data: bytes, after: int, problems: list[str]) -> bytes | None:
    """IFD1 could not be read: a whole JPEG (SOI .. EOI) stored after IFD0 is still its thumbnail."""
    start = data.find(b"\xff\xd8\xff", after)
    if start < 0:
        return None
    end = data.rfind(b"\xff\xd9", start, start + MAX_THUMBNAIL_BYTES)
    if end < 0:
        return None
    problems.append(f"read the thumbnail found at byte {start} of the EXIF block without IFD1")
    return bytes(data[start : end + 2])
