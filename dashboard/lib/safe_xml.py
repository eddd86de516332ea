"""The one way Lookout parses XML it did not write (processing configurations, pointer
files): through defusedxml, so entity declarations (billion laughs), external entities
and external DTDs are refused before they expand or fetch anything. No Django.
"""

from __future__ import annotations

import logging
import xml.etree.ElementTree as ET

from defusedxml import DefusedXmlException
from defusedxml import minidom as safe_minidom
from defusedxml.ElementTree import DefusedXMLParser

logger = logging.getLogger(__name__)


class UnsafeXml(ValueError):
    """The document declares entities or points outside itself; it was not parsed."""


def _refused(source: str, exc: DefusedXmlException) -> UnsafeXml:
    reason = f"{type(exc).__name__}: {exc}"
    logger.warning("Refused XML from %s: %s", source, reason)
    return UnsafeXml(f"refused: the document declares entities or external references ({reason})")


def parse_untrusted(text: str, *, source: str, keep_comments: bool = False) -> ET.Element:
    """The root element of `text`; UnsafeXml (logged, naming `source`) or ET.ParseError."""
    parser = DefusedXMLParser(target=ET.TreeBuilder(insert_comments=keep_comments))
    try:
        parser.feed(text)
        root: ET.Element = parser.close()
    except DefusedXmlException as exc:
        raise _refused(source, exc) from None
    return root


def indent_untrusted(text: str, *, source: str) -> str:
    """`text` re-indented by minidom, which keeps the file's own namespace prefixes."""
    try:
        pretty: str = safe_minidom.parseString(text).toprettyxml(indent="  ")
    except DefusedXmlException as exc:
        raise _refused(source, exc) from None
    return pretty
