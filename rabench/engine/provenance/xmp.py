"""XMP packets: IPTC DigitalSourceType, CreatorTool / Producer, edit history, dates.

Why match on local names rather than fixed prefixes: writers pick their own
prefixes and mix attribute and element forms (``xmp:CreatorTool="..."`` vs
``<xmp:CreatorTool>...</xmp:CreatorTool>``); the namespace URIs are checked
loosely for the few names that are ambiguous. Packets with a DOCTYPE or entity
declarations are never handed to the XML parser (entity-expansion attacks);
a packet that does not parse still gets a regex pass for the two values that
matter most (source type and creator tool).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import msgspec

MAX_PACKET_BYTES = 2 * 1024 * 1024
MAX_HISTORY = 64
# Codes whose presence proves the image was made by a trained (AI) model.
AI_SOURCE_TYPES = frozenset({"trainedAlgorithmicMedia", "compositeWithTrainedAlgorithmicMedia"})

_TOOL_NAMES = {"CreatorTool", "Producer", "Software", "Creator", "softwareAgent", "Credit", "Generator"}
_DATE_NAMES = {"CreateDate", "ModifyDate", "MetadataDate", "DateTimeOriginal", "DateCreated"}


class HistoryEvent(msgspec.Struct, frozen=True):
    action: str = ""
    agent: str = ""
    when: str = ""


class XmpFacts(msgspec.Struct):
    source_types: list[str] = []  # IPTC DigitalSourceType codes (last path segment)
    tools: list[tuple[str, str]] = []  # (property, value): CreatorTool, Producer, ...
    history: list[HistoryEvent] = []
    dates: dict[str, str] = {}
    problems: list[str] = []


def source_code(value: str) -> str:
    """``http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia`` -> the code."""
    return value.strip().rstrip("/").rsplit("/", 1)[-1]


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _clean(packet: bytes) -> bytes:
    start = packet.find(b"<x:xmpmeta")
    if start < 0:
        start = packet.find(b"<rdf:RDF")
    end_tag = b"</x:xmpmeta>" if packet[start : start + 10] == b"<x:xmpmeta" else b"</rdf:RDF>"
    end = packet.rfind(end_tag)
    if start < 0 or end < 0:
        return packet.strip(b"\x00 \r\n")
    return packet[start : end + len(end_tag)]


def parse_xmp(packet: bytes) -> XmpFacts:
    """Read one packet. Never raises."""
    out = XmpFacts(source_types=[], tools=[], history=[], dates={}, problems=[])
    if len(packet) > MAX_PACKET_BYTES:
        out.problems.append(f"XMP packet of {len(packet)} bytes; read the first {MAX_PACKET_BYTES}")
        packet = packet[:MAX_PACKET_BYTES]
    if b"<!DOCTYPE" in packet or b"<!ENTITY" in packet:
        out.problems.append("XMP packet declares a DOCTYPE/entities; not parsed as XML")
        _regex_pass(packet, out)
        return out
    try:
        root = ET.fromstring(_clean(packet))
    except ET.ParseError as e:
        out.problems.append(f"XMP packet is not well-formed XML ({e}); read by pattern only")
        _regex_pass(packet, out)
        return out
    _walk(root, out)
    return out


def _add_tool(out: XmpFacts, prop: str, value: str) -> None:
    value = value.strip()
    if value and (prop, value) not in out.tools and len(out.tools) < 64:
        out.tools.append((prop, value[:512]))


def _walk(root: ET.Element, out: XmpFacts) -> None:
    for el in root.iter():
        name = _local(el.tag)
        # attribute form: <rdf:Description xmp:CreatorTool="...">
        for akey, aval in el.attrib.items():
            _prop(out, _local(akey), aval, el)
        text = (el.text or "").strip()
        if name == "li" and not text:
            continue
        if name in ("History",):
            _history(el, out)
            continue
        if text:
            _prop(out, name, text, el)
        elif name in _TOOL_NAMES | {"DigitalSourceType"}:
            # value inside rdf:Alt / rdf:Seq / rdf:Bag
            for li in el.iter():
                if _local(li.tag) == "li" and (li.text or "").strip():
                    _prop(out, name, li.text.strip(), el)
        resource = next((v for k, v in el.attrib.items() if _local(k) == "resource"), None)
        if resource and name == "DigitalSourceType":
            _prop(out, name, resource, el)


def _prop(out: XmpFacts, name: str, value: str, el: ET.Element) -> None:
    if name == "DigitalSourceType":
        code = source_code(value)
        if code and code not in out.source_types:
            out.source_types.append(code)
    elif name in _TOOL_NAMES and name != "softwareAgent":
        _add_tool(out, name, value)
    elif name in _DATE_NAMES:
        out.dates.setdefault(name, value.strip()[:64])


def _history(el: ET.Element, out: XmpFacts) -> None:
    for li in el.iter():
        if _local(li.tag) != "li" or len(out.history) >= MAX_HISTORY:
            continue
        vals: dict[str, str] = {}
        for k, v in li.attrib.items():
            vals[_local(k)] = v
        for child in li.iter():
            if child is not li and (child.text or "").strip():
                vals.setdefault(_local(child.tag), child.text.strip())
        ev = HistoryEvent(
            action=vals.get("action", "")[:64],
            agent=vals.get("softwareAgent", "")[:256],
            when=vals.get("when", "")[:64],
        )
        if ev.action or ev.agent:
            out.history.append(ev)


_RX_SOURCE = re.compile(rb"DigitalSourceType(?:\s*=\s*[\"']|[^>]*?>\s*|[^>]*?resource\s*=\s*[\"'])([^\"'<>\s]{1,300})")
_RX_TOOL = re.compile(rb"(CreatorTool|Producer|softwareAgent)(?:\s*=\s*[\"']|>)([^\"'<>]{1,300})")


def _regex_pass(packet: bytes, out: XmpFacts) -> None:
    for m in _RX_SOURCE.finditer(packet[:MAX_PACKET_BYTES]):
        code = source_code(m.group(1).decode("utf-8", errors="replace"))
        if code and code not in out.source_types:
            out.source_types.append(code)
    for m in _RX_TOOL.finditer(packet[:MAX_PACKET_BYTES]):
        prop = m.group(1).decode()
        val = m.group(2).decode("utf-8", errors="replace")
        if prop == "softwareAgent":
            out.history.append(HistoryEvent(agent=val.strip()[:256]))
        else:
            _add_tool(out, prop, val)
