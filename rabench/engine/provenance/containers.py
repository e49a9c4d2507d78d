"""Find the metadata blocks inside image containers: JPEG segments, WebP chunks, TIFF tags.

Every container says where its metadata lives differently; this module only
locates the raw blocks (EXIF, XMP, C2PA/JUMBF, comments, Photoshop resources)
so each reader can parse one format. Walks are bounded in segment count and
stop at the first structural error, keeping what was found before it.
"""

from __future__ import annotations

import struct

import msgspec

MAX_SEGMENTS = 4096
MAX_XMP_BYTES = 2 * 1024 * 1024

XMP_SIG = b"http://ns.adobe.com/xap/1.0/\x00"
XMP_EXT_SIG = b"http://ns.adobe.com/xmp/extension/\x00"


class Blocks(msgspec.Struct):
    """Raw metadata found in one file."""

    exif: bytes | None = None  # TIFF-structured EXIF block
    xmp: list[bytes] = []  # XMP packets (main, then extended)
    comments: list[str] = []  # JPEG COM / PNG text-like comments
    c2pa: bool = False  # a C2PA manifest store (JUMBF) is embedded
    photoshop_irb: bool = False  # JPEG APP13 "Photoshop 3.0" resources
    text: dict[str, str] = {}  # PNG tEXt/zTXt/iTXt keyword -> text
    problems: list[str] = []


def jpeg_blocks(data: bytes) -> Blocks:
    out = Blocks(xmp=[], comments=[], text={}, problems=[])
    if not data.startswith(b"\xff\xd8"):
        out.problems.append("not a JPEG (no SOI marker)")
        return out
    pos, n = 2, 0
    ext_xmp: list[bytes] = []
    while pos + 4 <= len(data) and n < MAX_SEGMENTS:
        n += 1
        if data[pos] != 0xFF:
            out.problems.append(f"JPEG marker expected at byte {pos}")
            break
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        if marker in (0xDA, 0xD9):  # start of scan / end of image: no more metadata
            break
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if length < 2 or pos + 2 + length > len(data):
            out.problems.append(f"JPEG segment 0x{marker:02X} at byte {pos} runs past the end of the file")
            break
        payload = data[pos + 4 : pos + 2 + length]
        pos += 2 + length
        if marker == 0xE1:
            if payload.startswith(b"Exif\x00\x00") and out.exif is None:
                out.exif = payload[6:]
            elif payload.startswith(XMP_SIG):
                out.xmp.append(payload[len(XMP_SIG) :])
            elif payload.startswith(XMP_EXT_SIG):
                # GUID (32) + full length (4) + offset (4) precede the chunk.
                ext_xmp.append(payload[len(XMP_EXT_SIG) + 40 :])
        elif marker == 0xEB:  # APP11: JUMBF; C2PA manifests live here
            if payload[:2] == b"JP" and b"c2pa" in payload[:256]:
                out.c2pa = True
        elif marker == 0xED and payload.startswith(b"Photoshop 3.0"):
            out.photoshop_irb = True
        elif marker == 0xFE:
            out.comments.append(payload[:4096].decode("utf-8", errors="replace").strip("\x00 \r\n"))
    if ext_xmp:
        joined = b"".join(ext_xmp)
        out.xmp.append(joined[:MAX_XMP_BYTES])
    return out


def webp_blocks(data: bytes) -> Blocks:
    out = Blocks(xmp=[], comments=[], text={}, problems=[])
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        out.problems.append("not a WebP (no RIFF/WEBP header)")
        return out
    pos, n = 12, 0
    while pos + 8 <= len(data) and n < MAX_SEGMENTS:
        n += 1
        tag = data[pos : pos + 4]
        (size,) = struct.unpack("<I", data[pos + 4 : pos + 8])
        body = data[pos + 8 : pos + 8 + size]
        if len(body) < size:
            out.problems.append(f"WebP chunk {tag!r} runs past the end of the file")
        if tag == b"EXIF":
            out.exif = body[6:] if body.startswith(b"Exif\x00\x00") else body
        elif tag == b"XMP ":
            out.xmp.append(body[:MAX_XMP_BYTES])
        elif tag == b"C2PA":
            out.c2pa = True
        pos += 8 + size + (size & 1)
    return out


def tiff_blocks(data: bytes) -> Blocks:
    """A TIFF file is itself an EXIF-structured block; XMP sits in tag 700 (read by exif.py)."""
    out = Blocks(xmp=[], comments=[], text={}, problems=[])
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        out.exif = data
    else:
        out.problems.append("not a TIFF (no II*/MM* header)")
    return out
