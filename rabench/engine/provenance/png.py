"""PNG metadata: tEXt / zTXt / iTXt text chunks (incl. XMP), eXIf, and the C2PA ``caBX`` chunk.

AI image tools leave their mark in PNG text more than anywhere else
(Stable Diffusion web UIs write a ``parameters`` chunk, ComfyUI ``prompt`` and
``workflow``), so the text is kept by keyword for the rules to read. Compressed
text is inflated with a hard output cap: a zlib bomb yields a note, not an
out-of-memory.
"""

from __future__ import annotations

import struct
import zlib

from rabench.engine.provenance.containers import MAX_SEGMENTS, MAX_XMP_BYTES, Blocks

PNG_SIG = b"\x89PNG\r\n\x1a\n"
MAX_TEXT_BYTES = 256 * 1024  # per chunk after inflating
MAX_TEXT_CHUNKS = 256


def _inflate(raw: bytes, problems: list[str], key: str) -> bytes:
    d = zlib.decompressobj()
    try:
        out = d.decompress(raw, MAX_TEXT_BYTES)
    except zlib.error as e:
        problems.append(f"PNG text chunk {key!r}: bad compressed data ({e})")
        return b""
    if d.unconsumed_tail:
        problems.append(f"PNG text chunk {key!r} inflates past {MAX_TEXT_BYTES} bytes; kept the head")
    return out


def png_blocks(data: bytes) -> Blocks:
    out = Blocks(xmp=[], comments=[], text={}, problems=[])
    if not data.startswith(PNG_SIG):
        out.problems.append("not a PNG (bad signature)")
        return out
    pos, n, texts = 8, 0, 0
    while pos + 8 <= len(data) and n < MAX_SEGMENTS:
        n += 1
        length, ctype = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if len(body) < length:
            out.problems.append(f"PNG chunk {ctype.decode('latin-1')!r} runs past the end of the file")
            break
        pos += 12 + length
        if ctype == b"IEND":
            break
        if ctype == b"caBX":
            out.c2pa = True
        elif ctype == b"eXIf":
            out.exif = body[6:] if body.startswith(b"Exif\x00\x00") else body
        elif ctype in (b"tEXt", b"zTXt", b"iTXt"):
            texts += 1
            if texts > MAX_TEXT_CHUNKS:
                continue
            key, value = _text_chunk(ctype, body, out.problems)
            if key is None:
                continue
            if key == "XML:com.adobe.xmp":
                out.xmp.append(value.encode("utf-8")[:MAX_XMP_BYTES])
            else:
                out.text[key] = (out.text.get(key, "") + "\n" + value).strip() if key in out.text else value
    return out


def _text_chunk(ctype: bytes, body: bytes, problems: list[str]) -> tuple[str | None, str]:
    key_raw, sep, rest = body.partition(b"\x00")
    if not sep or not 1 <= len(key_raw) <= 79:
        problems.append(f"PNG {ctype.decode()} chunk without a valid keyword")
        return None, ""
    key = key_raw.decode("latin-1")
    if ctype == b"tEXt":
        return key, rest[:MAX_TEXT_BYTES].decode("latin-1")
    if ctype == b"zTXt":
        return key, _inflate(rest[1:], problems, key).decode("latin-1")
    # iTXt: compression flag, method, language tag \0, translated keyword \0, text (UTF-8)
    if len(rest) < 2:
        problems.append(f"PNG iTXt chunk {key!r} truncated")
        return None, ""
    flag = rest[0]
    parts = rest[2:].split(b"\x00", 2)
    if len(parts) < 3:
        problems.append(f"PNG iTXt chunk {key!r} truncated")
        return None, ""
    text = parts[2]
    text = _inflate(text, problems, key) if flag == 1 else text[:MAX_TEXT_BYTES]
    return key, text.decode("utf-8", errors="replace")
