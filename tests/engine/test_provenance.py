"""Provenance on crafted image files: EXIF thumbnail, capture date, tool tags, XMP source types, PNG text."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image

from _fx_receipts import exif_with_thumbnail, jpeg_bytes, receipt
from rabench.engine.provenance import file_signals


def _write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def _proofs(sigs):
    return {s.proof_type for s in sigs if s.kind == "proof"}


def _names(sigs):
    return {s.name for s in sigs}


# --- thumbnail -------------------------------------------------------------------------------


def test_thumbnail_of_the_same_image_matches(tmp_path):
    img, _ = receipt()
    p = _write(tmp_path, "a.jpg", jpeg_bytes(img, 85, exif_with_thumbnail(img)))
    sigs = file_signals(p, "image/jpeg", printed_date=None)
    assert "thumbnail_mismatch" not in _proofs(sigs)
    assert "exif.thumbnail_match" in _names(sigs)


def test_thumbnail_of_a_different_image_is_proof(tmp_path):
    img, _ = receipt()
    other, _ = receipt(total="13.99", number="55555", items=("1.00", "2.00"), merchant="OTHER SHOP", seed=3)
    p = _write(tmp_path, "a.jpg", jpeg_bytes(img, 85, exif_with_thumbnail(other)))
    sigs = file_signals(p, "image/jpeg", printed_date=None)
    proof = [s for s in sigs if s.proof_type == "thumbnail_mismatch"]
    assert len(proof) == 1 and "does not show this image" in proof[0].text


def test_local_edit_is_found_and_points_at_the_edited_field(tmp_path):
    """A 320-px thumbnail of the original and a main image whose total was raised to 1042.50."""
    orig, boxes = receipt(total="42.50")
    edited, _ = receipt(total="1042.50")
    p = _write(tmp_path, "a.jpg", jpeg_bytes(edited, 88, exif_with_thumbnail(orig, thumb_px=320)))
    sigs = file_signals(p, "image/jpeg", printed_date=None, field_boxes=boxes, box_size=edited.size)
    proof = [s for s in sigs if s.proof_type == "thumbnail_mismatch"]
    assert proof and "total" in proof[0].fields and "merchant" not in proof[0].fields
    # the unedited file with the same thumbnail size is clean (same re-compression, no edit)
    p2 = _write(tmp_path, "b.jpg", jpeg_bytes(orig, 70, exif_with_thumbnail(orig, thumb_px=320)))
    assert "thumbnail_mismatch" not in _proofs(file_signals(p2, "image/jpeg", printed_date=None))


@pytest.mark.parametrize("thumb_from", ["stored", "upright"])
def test_rotated_photo_thumbnail_matches_in_either_frame(tmp_path, thumb_from):
    """Orientation 6: pixels stored rotated; writers make the thumbnail from stored or upright pixels."""
    orig, _ = receipt()
    stored = orig.transpose(Image.Transpose.ROTATE_90)
    src = stored if thumb_from == "stored" else orig
    p = _write(tmp_path, "r.jpg", jpeg_bytes(stored, 85, exif_with_thumbnail(src, orientation=6)))
    sigs = file_signals(p, "image/jpeg", printed_date=None)
    assert "thumbnail_mismatch" not in _proofs(sigs)
    assert "exif.thumbnail_match" in _names(sigs)


def test_letterboxed_thumbnail_matches(tmp_path):
    """Cameras pad a 160x120 thumbnail with black bars when the aspect differs."""
    import piexif

    orig, _ = receipt()
    t = orig.copy()
    t.thumbnail((120, 120))
    canvas = Image.new("RGB", (160, 120), "black")
    canvas.paste(t, ((160 - t.width) // 2, 0))
    ex = piexif.dump(
        {
            "0th": {piexif.ImageIFD.Make: "Canon"},
            "Exif": {},
            "1st": {piexif.ImageIFD.Compression: 6},
            "thumbnail": jpeg_bytes(canvas, 90),
        }
    )
    p = _write(tmp_path, "l.jpg", jpeg_bytes(orig, 85, ex))
    assert "thumbnail_mismatch" not in _proofs(file_signals(p, "image/jpeg", printed_date=None))


def _variant(img: Image.Image, how: str) -> Image.Image:
    """The main image after what genuine files go through between camera and submission."""
    import numpy as np

    if how == "resize":  # a messaging app's downscale
        return img.resize((img.width * 3 // 5, img.height * 3 // 5), Image.Resampling.LANCZOS)
    if how == "noise":
        a = np.asarray(img, dtype=np.float32) + np.random.default_rng(5).normal(0, 4, (img.height, img.width, 1))
        return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if how == "resaved":  # an editor's re-save of a re-save
        return Image.open(io.BytesIO(jpeg_bytes(img, 75))).convert("RGB")
    return img


def _thumb(img: Image.Image, how: str, px: int = 160) -> bytes:
    """A correct EXIF thumbnail as devices make them: area, bilinear or point-sampled, sharpened, re-toned."""
    import piexif
    from PIL import ImageFilter

    t = img.copy()
    s = px / max(t.size)
    size = (round(t.width * s), round(t.height * s))
    t = t.resize(
        size,
        Image.Resampling.NEAREST
        if how == "nearest"
        else Image.Resampling.BILINEAR
        if how == "bilinear"
        else Image.Resampling.BOX,
    )
    if how == "sharpened":
        t = t.filter(ImageFilter.UnsharpMask(radius=1.0, percent=120, threshold=0))
    if how == "gamma":
        t = t.point(lambda v: round(255 * (v / 255) ** 1.3))
    return piexif.dump(
        {
            "0th": {piexif.ImageIFD.Make: "Canon"},
            "Exif": {},
            "1st": {piexif.ImageIFD.Compression: 6},
            "thumbnail": jpeg_bytes(t, 60),
        }
    )


@pytest.mark.parametrize("main", ["reencoded", "resize", "noise", "resaved"])
@pytest.mark.parametrize("thumb", ["box", "bilinear", "nearest", "sharpened", "gamma"])
def test_a_right_thumbnail_is_not_proof_after_reencoding_resizing_or_noise(tmp_path, main, thumb):
    """What devices and apps do to a genuine pair (a thumbnail filter, sharpening, a tone curve,
    re-encoding, a resize, sensor-like noise) must not read as an edit."""
    img, _ = receipt(seed=11)
    p = _write(
        tmp_path, "g.jpg", jpeg_bytes(_variant(img, main), 70, _thumb(img, thumb, 160 if thumb != "box" else 256))
    )
    sigs = file_signals(p, "image/jpeg", printed_date=None)
    assert "thumbnail_mismatch" not in _proofs(sigs), [s.text for s in sigs if s.name.startswith("exif.thumb")]
    assert "exif.thumbnail_match" in _names(sigs)


@pytest.mark.parametrize("px", [256, 320])
def test_a_stale_thumbnail_where_only_the_total_digits_changed_is_found(tmp_path, px):
    """The issue's case: 82.80 in the thumbnail, 99.41 printed, nothing else changed."""
    orig, boxes = receipt(total="82.80")
    edited, _ = receipt(total="99.41")
    p = _write(tmp_path, "s.jpg", jpeg_bytes(_variant(edited, "resaved"), 85, exif_with_thumbnail(orig, thumb_px=px)))
    sigs = file_signals(p, "image/jpeg", printed_date=None, field_boxes=boxes, box_size=edited.size)
    proof = [s for s in sigs if s.proof_type == "thumbnail_mismatch"]
    assert proof and proof[0].fields == ("total",), [s.text for s in sigs if s.name.startswith("exif.thumb")]


# --- capture date ----------------------------------------------------------------------------


def _dated(tmp_path, taken, offset=None):
    img, _ = receipt()
    return _write(tmp_path, "d.jpg", jpeg_bytes(img, 85, exif_with_thumbnail(None, taken=taken, offset=offset)))


def test_photo_days_before_the_printed_date_is_proof_on_the_date(tmp_path):
    sigs = file_signals(_dated(tmp_path, "2024:05:07 10:00:00", "+02:00"), "image/jpeg", printed_date="2024-05-10")
    proof = [s for s in sigs if s.proof_type == "photo_before_purchase"]
    assert len(proof) == 1 and proof[0].fields == ("date",)
    assert "2024:05:07 10:00:00" in proof[0].text and "2024-05-10" in proof[0].text


@pytest.mark.parametrize(
    "taken, printed",
    [
        ("2024:05:10 18:00:00", "2024-05-10"),  # same day
        ("2024:05:09 20:00:00", "2024-05-10"),  # evening before: within a day (time zones)
        ("2024:05:07 10:00:00", None),  # printed date ambiguous -> caller passes None
        ("2000:01:01 00:00:00", "2024-05-10"),  # camera clock never set
        ("garbage", "2024-05-10"),
    ],
)
def test_no_photo_date_proof_without_a_clear_day_gap(tmp_path, taken, printed):
    sigs = file_signals(_dated(tmp_path, taken), "image/jpeg", printed_date=printed)
    assert "photo_before_purchase" not in _proofs(sigs)


@pytest.mark.parametrize(
    "now, proof",
    [
        ("2024-05-20 12:00", True),  # submitted after both dates: compared
        ("2024-05-04 12:00", False),  # capture 3 days after submission: a wrong camera clock
        ("2024-05-07 12:00", False),  # printed date days after submission: a misreading, not compared
    ],
)
def test_photo_date_guards_measure_from_the_submission_time(tmp_path, now, proof):
    import datetime as dt

    sigs = file_signals(
        _dated(tmp_path, "2024:05:07 10:00:00"),
        "image/jpeg",
        printed_date="2024-05-10",
        now=dt.datetime.fromisoformat(now),
    )
    assert ("photo_before_purchase" in _proofs(sigs)) is proof
    if not proof:
        fact = [s for s in sigs if s.name == "exif.capture_date"]
        assert fact and "submission time" in fact[0].text


def test_photo_date_compares_only_a_date_the_reading_gives_the_purchase():
    """An item code read as a date must not reach the comparison: no purchase date, no printed date."""
    from rabench.contracts.verdict import Fields
    from rabench.engine.extract.fields import Extraction
    from rabench.engine.pipeline import purchase_date

    def ex(date, unambiguous, earliest):
        return Extraction(fields=Fields(date=date), line_items=[], date_unambiguous=unambiguous, date_earliest=earliest)

    assert purchase_date(ex(None, False, "2030-11-22")) is None
    assert purchase_date(ex(None, True, "2030-11-22")) is None
    assert purchase_date(ex("2024-05-10", True, "2024-05-10")) == "2024-05-10"
    assert purchase_date(ex("2024-10-05", False, "2024-05-10")) == "2024-05-10"


# --- tool tags -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "software, proof, fact",
    [
        ("Midjourney v6", "ai_generator_tag", None),
        ("DALL·E 3", "ai_generator_tag", None),
        ("Adobe Firefly Image 3", "ai_generator_tag", None),
        ("Receipt Maker Pro 2.1", "generator_tag", None),
        ("Adobe Photoshop 25.0 (Windows)", None, "provenance.editor"),
        ("GIMP 2.10.34", None, "provenance.editor"),
        ("17.4.1", None, "exif.software"),
    ],
)
def test_exif_software_tag(tmp_path, software, proof, fact):
    img, _ = receipt()
    p = _write(tmp_path, "s.jpg", jpeg_bytes(img, 85, exif_with_thumbnail(None, software=software)))
    sigs = file_signals(p, "image/jpeg", printed_date=None)
    if proof:
        hit = [s for s in sigs if s.proof_type == proof]
        assert hit and "EXIF Software" in hit[0].text and software.split()[0] in hit[0].text
    else:
        assert not _proofs(sigs)
        assert fact in _names(sigs)


def test_missing_camera_data_and_stripped_metadata_are_facts_not_proofs(tmp_path):
    img, _ = receipt()
    p = _write(tmp_path, "n.jpg", jpeg_bytes(img, 85, exif_with_thumbnail(None, make=None, model=None)))
    sigs = file_signals(p, "image/jpeg", printed_date=None)
    assert "exif.no_camera" in _names(sigs) and not _proofs(sigs)
    p2 = _write(tmp_path, "bare.jpg", jpeg_bytes(img, 85))
    sigs2 = file_signals(p2, "image/jpeg", printed_date=None)
    assert {"exif.absent", "meta.none"} <= _names(sigs2) and not _proofs(sigs2)
    cam = file_signals(
        _write(tmp_path, "c.jpg", jpeg_bytes(img, 85, exif_with_thumbnail(None))), "image/jpeg", printed_date=None
    )
    assert any(s.name == "exif.camera" and "iPhone 13" in s.text for s in cam)


# --- XMP -------------------------------------------------------------------------------------

CODES = [
    ("trainedAlgorithmicMedia", True),
    ("compositeWithTrainedAlgorithmicMedia", True),
    ("digitalCapture", False),
    ("negativeFilm", False),
    ("minorHumanEdits", False),
    ("compositeCapture", False),
    ("algorithmicallyEnhanced", False),
    ("digitalArt", False),
    ("algorithmicMedia", False),
    ("compositeSynthetic", False),
    ("screenCapture", False),
    ("virtualRecording", False),
]


def xmp_packet(
    code: str | None = None,
    creator_tool: str | None = None,
    element_form: bool = False,
    history_agent: str | None = None,
) -> bytes:
    url = f"http://cv.iptc.org/newscodes/digitalsourcetype/{code}" if code else ""
    attrs, body = [], []
    if code and not element_form:
        attrs.append(f'Iptc4xmpExt:DigitalSourceType="{url}"')
    elif code:
        body.append(f"<Iptc4xmpExt:DigitalSourceType>{url}</Iptc4xmpExt:DigitalSourceType>")
    if creator_tool:
        body.append(f"<xmp:CreatorTool>{creator_tool}</xmp:CreatorTool>")
    if history_agent:
        body.append(
            '<xmpMM:History><rdf:Seq><rdf:li stEvt:action="saved" '
            f'stEvt:softwareAgent="{history_agent}" stEvt:when="2024-05-10T10:00:00"/></rdf:Seq></xmpMM:History>'
        )
    return (
        '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>'
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" '
        'xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/" '
        'xmlns:stEvt="http://ns.adobe.com/xap/1.0/sType/ResourceEvent#" '
        + " ".join(attrs)
        + ">"
        + "".join(body)
        + '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>'
    ).encode("utf-8")


def jpeg_with_xmp(packet: bytes) -> bytes:
    img, _ = receipt()
    data = jpeg_bytes(img, 85)
    payload = b"http://ns.adobe.com/xap/1.0/\x00" + packet
    seg = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    return data[:2] + seg + data[2:]


@pytest.mark.parametrize("code, is_ai", CODES)
@pytest.mark.parametrize("element_form", [False, True])
def test_iptc_digital_source_type_in_jpeg_xmp(tmp_path, code, is_ai, element_form):
    p = _write(tmp_path, "x.jpg", jpeg_with_xmp(xmp_packet(code, element_form=element_form)))
    sigs = file_signals(p, "image/jpeg", printed_date=None)
    if is_ai:
        hit = [s for s in sigs if s.proof_type == "ai_source_type"]
        assert hit and code in hit[0].text
    else:
        assert "ai_source_type" not in _proofs(sigs)
        assert any(s.name == "provenance.source_type" and code in s.text for s in sigs)


def test_xmp_creator_tool_and_history(tmp_path):
    p = _write(
        tmp_path,
        "x.jpg",
        jpeg_with_xmp(xmp_packet(creator_tool="Stable Diffusion XL", history_agent="Adobe Photoshop 24.1")),
    )
    sigs = file_signals(p, "image/jpeg", printed_date=None)
    assert any(s.proof_type == "ai_generator_tag" and "XMP CreatorTool" in s.text for s in sigs)
    assert any(s.name == "provenance.editor" and "history" in s.text for s in sigs)


# --- PNG -------------------------------------------------------------------------------------


def _chunk(ctype: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + ctype + body + struct.pack(">I", zlib.crc32(ctype + body))


def png_with_chunks(*chunks: bytes) -> bytes:
    import io

    img, _ = receipt()
    buf = io.BytesIO()
    img.save(buf, "PNG")
    data = buf.getvalue()
    return data[:33] + b"".join(chunks) + data[33:]  # after the IHDR chunk


@pytest.mark.parametrize("compressed", [False, True])
def test_png_itxt_xmp_source_type(tmp_path, compressed):
    packet = xmp_packet("trainedAlgorithmicMedia")
    text = zlib.compress(packet) if compressed else packet
    body = b"XML:com.adobe.xmp\x00" + bytes([1 if compressed else 0, 0]) + b"\x00\x00" + text
    p = _write(tmp_path, "i.png", png_with_chunks(_chunk(b"iTXt", body)))
    assert "ai_source_type" in _proofs(file_signals(p, "image/png", printed_date=None))


def test_png_stable_diffusion_parameters_and_software(tmp_path):
    params = b"parameters\x00a receipt, photo\nSteps: 30, Sampler: DPM++ 2M, CFG scale: 7, Seed: 1234, Model hash: abc"
    p = _write(tmp_path, "sd.png", png_with_chunks(_chunk(b"tEXt", params)))
    sigs = file_signals(p, "image/png", printed_date=None)
    assert any(s.proof_type == "ai_generator_tag" and "parameters" in s.text for s in sigs)
    p2 = _write(tmp_path, "g.png", png_with_chunks(_chunk(b"zTXt", b"Software\x00\x00" + zlib.compress(b"GIMP 2.10"))))
    sigs2 = file_signals(p2, "image/png", printed_date=None)
    assert not _proofs(sigs2) and any(s.name == "provenance.editor" and "GIMP" in s.text for s in sigs2)


def test_plain_png_has_no_proof_and_no_camera_complaint(tmp_path):
    import io

    img, _ = receipt()
    buf = io.BytesIO()
    img.save(buf, "PNG")
    sigs = file_signals(_write(tmp_path, "p.png", buf.getvalue()), "image/png", printed_date="2024-05-10")
    assert not _proofs(sigs)
    assert "exif.absent" not in _names(sigs) and "meta.none" in _names(sigs)
