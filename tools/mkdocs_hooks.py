"""MkDocs hook: fills the coverage page from the code at build time."""

import importlib.util
import os

MARKER = "<!-- generated: coverage -->"


def _coverage_module():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "coverage.py")
    spec = importlib.util.spec_from_file_location("gradtrack_docs_coverage", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_page_markdown(markdown, page, **kwargs):
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, _coverage_module().coverage_markdown())
