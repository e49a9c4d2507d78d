"""Reading a receipt: rows (from OCR or a PDF text layer) -> fields, line items, amounts.

``read_rows`` is the entry point; ``pdf.text_rows`` gives rows from a native
PDF's text layer so such PDFs are never OCR'd.
"""

from rabench.engine.extract.fields import Extraction, extract_fields
from rabench.engine.extract.layout import Row, Segment, rows_from_ocr, rows_from_text

__all__ = ["Extraction", "Row", "Segment", "extract_fields", "rows_from_ocr", "rows_from_text"]
