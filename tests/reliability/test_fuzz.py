"""Fuzz the three places where untrusted bytes meet our code: the suite loader (manifest
lines), the preparation stage (image/PDF bytes) and the engine's metadata readers.

The property is the same everywhere: whatever the bytes, the code answers with
its documented result or its documented one-line error, never another
exception, and quickly. Inputs are honest files mutated by hypothesis (bytes
flipped, cut, inserted, slices repeated) plus raw random bytes, so most
examples get past the magic numbers and into the parsers.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from datetime import timedelta
from pathlib import Path
from struct import pack

import piexif
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, PngImagePlugin

from relhostile import receipt_image, receipt_pdf
from rabench.cases.manifest import open_suite
from rabench.cases.validate import validate_suite
from rabench.engine.provenance import containers, exif, png, xmp
from rabench.engine.provenance.read import FileFacts, read_bytes
from rabench.engine.provenance.rules import signals as provenance_signals
from rabench.errors import UserError
from rabench.prepare.image import MAX_BYTES, MAX_SIDE, PreparationError, prepare_bytes

# 120 fixed examples per test in `make test` (seconds, reproducible); RABENCH_FUZZ_EXAMPLES=5000
# explores further with fresh random examples each time (docs/reliability.md).
EXAMPLES = int(os.environ.get("RABENCH_FUZZ_EXAMPLES", "120"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=3),
    derandomize=EXAMPLES == 120,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

XMP_PACKET = (
    b'<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>'
    b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
    b'<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"'
    b' xmp:CreatorTool="Adobe Photoshop 25.0" xmp:CreateDate="2025-03-14T10:00:00"'
    b' Iptc4xmpExt:DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"/>'
    b'</rdf:RDF></x:xmpmeta><?xpacket end="w"?>'
)


def _small(im: Image.Image) -> Image.Image:
    return im.resize((im.width // 3, im.height // 3))


def _jpeg_with_metadata() -> bytes:
    im = _small(receipt_image(7))
    thumb = io.BytesIO()
    im.resize((40, 30)).save(thumb, "JPEG")
    exif_bytes = piexif.dump(
        {
            "0th": {
                piexif.ImageIFD.Make: b"Phone",
                piexif.ImageIFD.Model: b"X1",
                piexif.ImageIFD.Software: b"GIMP 2.10",
                piexif.ImageIFD.Orientation: 1,
            },
            "Exif": {
                piexif.ExifIFD.DateTimeOriginal: b"2025:03:14 10:00:00",
                piexif.ExifIFD.OffsetTimeOriginal: b"+01:00",
            },
            "1st": {piexif.ImageIFD.JPEGInterchangeFormat: 0, piexif.ImageIFD.JPEGInterchangeFormatLength: 0},
            "thumbnail": thumb.getvalue(),
        }
    )
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=80, exif=exif_bytes)
    data = buf.getvalue()
    app1 = b"http://ns.adobe.com/xap/1.0/\x00" + XMP_PACKET
    return data[:2] + b"\xff\xe1" + pack(">H", len(app1) + 2) + app1 + data[2:]


def _png_with_text() -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("parameters", "Steps: 20, Sampler: Euler a, CFG scale: 7")
    info.add_text("Comment", "edited " * 40, zip=True)
    info.add_itxt("XML:com.adobe.xmp", XMP_PACKET.decode("utf-8"))
    buf = io.BytesIO()
    _small(receipt_image(8)).save(buf, "PNG", pnginfo=info)
    return buf.getvalue()


def _pdf_two_revisions() -> bytes:
    base = receipt_pdf()
    update = (
        b"\n6 0 obj\n<< /Producer (iLovePDF) /ModDate (D:20250314100000) >>\nendobj\n"
        b"xref\n6 1\n0000000000 00000 n \ntrailer\n<< /Size 7 /Root 1 0 R /Info 6 0 R /Prev 0 >>\n"
        b"startxref\n0\n%%EOF\n"
    )
    return base + update


SEEDS = {"image/jpeg": _jpeg_with_metadata(), "image/png": _png_with_text(), "application/pdf": _pdf_two_revisions()}


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    """``seed`` with a few random edits: flip, overwrite, cut, insert, repeat a slice."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["flip", "set", "cut", "insert", "repeat"]))
        if not data:
            break
        pos = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "set":
            data[pos] = draw(st.sampled_from([0x00, 0xFF, 0x7F, 0x80]))
        elif op == "cut":
            del data[pos:]
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=64))
        else:
            end = min(len(data), pos + draw(st.integers(1, 256)))
            data[pos:pos] = data[pos:end] * draw(st.integers(1, 50))
    return bytes(data)


def any_file():
    return st.sampled_from(sorted(SEEDS)).flatmap(
        lambda media: st.tuples(st.just(media), st.one_of(mutated(SEEDS[media]), st.binary(max_size=2048)))
    )


# --------------------------------------------------------------------------- suite loader

VALID_CASE = {
    "id": "c1",
    "file": "a.jpg",
    "sha256": "0" * 64,
    "media_type": "image/jpeg",
    "label": {"suite": "receipt", "authenticity": {"verdict": "genuine"}, "total": 1.0},
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def manifest_line(draw) -> bytes:
    kind = draw(st.sampled_from(["bytes", "json", "case", "path"]))
    if kind == "bytes":
        return draw(st.binary(max_size=200)).replace(b"\n", b" ")
    if kind == "json":
        return json.dumps(draw(json_values)).encode()
    case = json.loads(json.dumps(VALID_CASE))
    if kind == "case":
        key = draw(st.sampled_from(sorted(case) + ["after", "lineage", "tags", "extra"]))
        case[key] = draw(json_values)
    else:
        case["file"] = draw(
            st.sampled_from(
                [
                    "../outside.jpg",
                    "/etc/passwd",
                    "a/../../x.jpg",
                    "a\\..\\x",
                    "",
                    ".",
                    "sub/../a.jpg",
                    "link.jpg",
                    "a.jpg\x00.png",
                ]
            )
        )
    return json.dumps(case).encode()


@FUZZ
@given(lines=st.lists(manifest_line(), min_size=1, max_size=6))
def test_fuzz_manifest_lines_load_or_fail_with_one_line(lines):
    with tempfile.TemporaryDirectory() as tmp:
        outer = Path(tmp)
        root = outer / "suite"
        (root / "a").mkdir(parents=True)
        (root / "a.jpg").write_bytes(b"x")
        (outer / "outside.jpg").write_bytes(b"secret")
        (root / "link.jpg").symlink_to(outer / "outside.jpg")
        header = b'{"suite": "receipt", "name": "fuzz"}'
        (root / "manifest.jsonl").write_bytes(header + b"\n" + b"\n".join(lines) + b"\n")
        try:
            loaded = list(open_suite(root))
        except UserError as exc:
            message = str(exc)
            assert "\n" not in message and message.startswith(str(root / "manifest.jsonl") + ":")
        else:
            for lc in loaded:  # whatever loaded stays inside the suite folder
                lc.path.relative_to(root.resolve())
        count, problems = validate_suite(root)
        assert all("\n" not in p and p.startswith("manifest.jsonl:") for p in problems)


# --------------------------------------------------------------------------- preparation


@FUZZ
@given(item=any_file())
def test_fuzz_preparation_prepares_or_refuses(item):
    media, data = item
    try:
        out = prepare_bytes(data, media)
    except PreparationError as exc:
        assert str(exc) and "\n" not in str(exc).strip()
        return
    assert out.media_type in ("image/jpeg", "image/png", "image/webp")
    assert max(out.width, out.height) <= MAX_SIDE and len(out.data) <= MAX_BYTES
    with Image.open(io.BytesIO(out.data)) as im:  # what a target gets always decodes
        im.load()
        assert im.size == (out.width, out.height)


# --------------------------------------------------------------------------- engine metadata readers


@FUZZ
@given(item=any_file(), printed=st.sampled_from([None, "2025-03-14", "1999-01-01"]))
def test_fuzz_provenance_reader_never_raises(item, printed):
    media, data = item
    facts = read_bytes(data, media)
    assert isinstance(facts, FileFacts)
    assert all(isinstance(p, str) for p in facts.problems)
    sigs = provenance_signals(facts, printed_date=printed)  # the rules read whatever was read
    assert all(s.kind in ("proof", "check", "file_fact", "plausibility", "opinion") for s in sigs)


@FUZZ
@given(data=st.one_of(st.binary(max_size=1024), mutated(SEEDS["image/jpeg"])))
def test_fuzz_container_and_exif_parsers(data):
    blocks = containers.jpeg_blocks(data)
    if blocks.exif:
        exif.parse_tiff(blocks.exif)
    exif.parse_tiff(data)  # raw TIFF parser on anything
    png.png_blocks(data)
    containers.webp_blocks(data)
    containers.tiff_blocks(data)


@FUZZ
@given(
    packet=st.one_of(
        mutated(XMP_PACKET),
        st.binary(max_size=1024),
        st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
    )
)
def test_fuzz_xmp_parser(packet):
    facts = xmp.parse_xmp(packet)
    assert len(facts.history) <= xmp.MAX_HISTORY + 64 and len(facts.tools) <= 64


def test_seeds_are_read_before_mutation():
    """The fuzz seeds must really carry what the readers look for, or the fuzz explores nothing."""
    jpeg = read_bytes(SEEDS["image/jpeg"], "image/jpeg")
    assert jpeg.exif is not None and jpeg.exif.thumbnail and jpeg.xmp and jpeg.xmp[0].tools
    png_facts = read_bytes(SEEDS["image/png"], "image/png")
    assert png_facts.blocks is not None and "parameters" in png_facts.blocks.text and png_facts.xmp
    pdf = read_bytes(SEEDS["application/pdf"], "application/pdf")
    assert pdf.pdf is not None and pdf.pdf.revisions == 2


@pytest.mark.parametrize("media", sorted(SEEDS))
def test_seeds_prepare(media):
    assert prepare_bytes(SEEDS[media], media).width > 0
