"""What the tools that made a file wrote into it: EXIF, XMP, PNG text, PDF info.

One writer serves genuine receipts and fakes alike; only *which* tool touched
the file differs. That is the guard against label leaks: an editor's Software
tag, stripped metadata or a re-save happen to genuine receipts at realistic
rates too, while the proof-grade traces (an AI source type, a generator tag,
a thumbnail of the pre-edit image, a capture date before the purchase) come
only from the fake's own tool.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from PIL import Image, PngImagePlugin

from rabench.cases.synth import camera as cam

IPTC = "http://cv.iptc.org/newscodes/digitalsourcetype/"
AI_FULL = IPTC + "trainedAlgorithmicMedia"
AI_COMPOSITE = IPTC + "compositeWithTrainedAlgorithmicMedia"

AI_TOOLS = (
    "OpenAI GPT-4o image generation",
    "Midjourney v6.1",
    "Adobe Firefly Image 3",
    "Stable Diffusion XL 1.0",
    "Google Imagen 3",
)
INPAINT_TOOLS = (
    "Adobe Photoshop 25.9 (Generative Fill)",
    "Canva Magic Edit",
    "Adobe Firefly Image 3 (Generative Fill)",
)
EDITORS = (
    "GIMP 2.10.36",
    "Adobe Photoshop 25.9 (Windows)",
    "Adobe Photoshop Lightroom Classic 13.2",
    "Paint.NET 5.0.13",
    "Snapseed 2.21",
    "Microsoft Photos 2024.11",
)
GENERATORS = (
    "ReceiptMaker Online v3",
    "makereceipt template engine 2.4",
    "ExpenseFaker PDF 1.7",
    "FakeReceipt.app export",
)
SCANNERS = (
    ("EPSON", "Perfection V39", "Epson Scan 2"),
    ("Canon", "CanoScan LiDE 300", "ScanGear"),
    ("Brother", "ADS-1700W", None),
    ("HP", "ScanJet Pro 2000 s2", "HP Scan"),
    (None, None, "Adobe Scan 24.3"),
    (None, None, "Microsoft Lens"),
)
SCREENSHOT_TOOLS = ("Screenshot", "macOS Screenshot", "Android Screenshot", "Snipping Tool")
PDF_PRODUCERS = (
    "Skia/PDF m124",
    "wkhtmltopdf 0.12.6",
    "Microsoft: Print To PDF",
    "iText 7.2.5",
    "Qt 5.15.2",
    "macOS Version 14.4 (Build 23E214) Quartz PDFContext",
    "ReportLab PDF Library",
)
PDF_VIEWER_RESAVE = ("Adobe Acrobat Reader (64-bit) 24.2", "Preview 11.0", "PDF-XChange Viewer 2.5")
PDF_EDITORS = (
    "Adobe Acrobat Pro (64-bit) 24.1",
    "PDFescape Online Editor",
    "Sejda PDF Editor 7.6",
    "Foxit PDF Editor 13.0",
)


@dataclass(frozen=True, slots=True)
class Meta:
    """Everything a file's metadata will say. Empty = nothing written."""

    camera: cam.Camera | None = None
    taken: datetime | None = None
    offset: str = "+00:00"
    thumbnail_of: Image.Image | None = None  # image the EXIF thumbnail shows
    exif_software: str | None | bool = True  # True = the camera's own tag
    scanner: tuple[str | None, str | None] | None = None
    software: str | None = None  # EXIF Software (non-camera), PNG "Software", PDF Producer
    creator_tool: str | None = None  # XMP xmp:CreatorTool (and PDF Creator)
    source_type: str | None = None  # IPTC DigitalSourceType in XMP
    history: tuple[tuple[str, str, str], ...] = ()  # (action, softwareAgent, when)
    stamp: datetime | None = None  # create/modify date for XMP / PNG
    extra_png: tuple[tuple[str, str], ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not (self.camera or self.scanner or self.software or self.creator_tool or self.source_type)


def xmp_packet(meta: Meta, doc_id: str) -> bytes | None:
    if not (meta.creator_tool or meta.source_type or meta.history):
        return None
    when = (meta.stamp or datetime(2025, 1, 1)).strftime("%Y-%m-%dT%H:%M:%S")
    parts = [
        '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>',
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
        '<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"'
        ' xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/" xmlns:stEvt="http://ns.adobe.com/xap/1.0/sType/ResourceEvent#"'
        ' xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/">',
    ]
    if meta.creator_tool:
        parts.append(f"<xmp:CreatorTool>{meta.creator_tool}</xmp:CreatorTool>")
    parts.append(f"<xmp:ModifyDate>{when}</xmp:ModifyDate>")
    parts.append(f"<xmpMM:DocumentID>xmp.did:{doc_id}</xmpMM:DocumentID>")
    if meta.source_type:
        parts.append(f"<Iptc4xmpExt:DigitalSourceType>{meta.source_type}</Iptc4xmpExt:DigitalSourceType>")
    if meta.history:
        parts.append("<xmpMM:History><rdf:Seq>")
        for action, agent, at in meta.history:
            parts.append(
                f'<rdf:li rdf:parseType="Resource"><stEvt:action>{action}</stEvt:action>'
                f"<stEvt:softwareAgent>{agent}</stEvt:softwareAgent><stEvt:when>{at}</stEvt:when></rdf:li>"
            )
        parts.append("</rdf:Seq></xmpMM:History>")
    parts.append("</rdf:Description></rdf:RDF></x:xmpmeta>")
    parts.append('<?xpacket end="w"?>')
    return "".join(parts).encode("utf-8")


def _exif_bytes(meta: Meta, size: tuple[int, int]) -> bytes | None:
    import piexif

    if meta.camera is not None and meta.taken is not None:
        thumb = cam.thumbnail_jpeg(meta.thumbnail_of) if meta.thumbnail_of is not None else None
        sw: str | None | bool = meta.software if meta.software else meta.exif_software
        return cam.camera_exif(meta.camera, meta.taken, meta.offset, size, thumbnail=thumb, software=sw)
    zeroth: dict[int, object] = {}
    if meta.scanner is not None:
        make, model = meta.scanner
        if make:
            zeroth[piexif.ImageIFD.Make] = make.encode()
        if model:
            zeroth[piexif.ImageIFD.Model] = model.encode()
    if meta.software:
        zeroth[piexif.ImageIFD.Software] = meta.software.encode("ascii", "replace")
    if not zeroth:
        return None
    if meta.stamp is not None:
        zeroth[piexif.ImageIFD.DateTime] = meta.stamp.strftime("%Y:%m:%d %H:%M:%S").encode()
    return piexif.dump({"0th": zeroth, "Exif": {}, "GPS": {}, "1st": {}, "thumbnail": None})


def write_jpeg(img: Image.Image, quality: int, meta: Meta, doc_id: str, *, subsampling: int = 2) -> bytes:
    buf = io.BytesIO()
    kwargs: dict[str, object] = {"quality": int(quality), "subsampling": subsampling}
    exif = _exif_bytes(meta, img.size)
    if exif:
        kwargs["exif"] = exif
    xmp = xmp_packet(meta, doc_id)
    if xmp:
        kwargs["xmp"] = xmp
    img.save(buf, "JPEG", **kwargs)
    return buf.getvalue()


def write_png(img: Image.Image, meta: Meta, doc_id: str) -> bytes:
    info = PngImagePlugin.PngInfo()
    if meta.software:
        info.add_text("Software", meta.software)
    for k, v in meta.extra_png:
        info.add_text(k, v)
    xmp = xmp_packet(meta, doc_id)
    if xmp:
        info.add_itxt("XML:com.adobe.xmp", xmp.decode("utf-8"))
    buf = io.BytesIO()
    img.save(buf, "PNG", pnginfo=info, compress_level=6)
    return buf.getvalue()


def pick(rng: np.random.Generator, options: tuple):
    return options[int(rng.integers(len(options)))]
