"""MkDocs hook: fills the coverage page from the code at build time."""

import importlib.util
import os
import re

MARKER = "<!-- generated: coverage -->"


def _coverage_module():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "coverage.py")
    spec = importlib.util.spec_from_file_location("gradtrack_docs_coverage", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_page_markdown(markdown, page, **kwargs):
    markdown = _cxx_api(markdown)  # the C++-bound names' reference
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, _coverage_module().coverage_markdown())


# the C++-bound names' API reference, from their live docstrings
CXX_MARKER = re.compile(r"<!-- generated: cxx-api (\w+) -->")


def _cxx_api(markdown):
    if not CXX_MARKER.search(markdown):
        return markdown
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api_cxx.py")
    spec = importlib.util.spec_from_file_location("gradtrack_docs_api_cxx", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return CXX_MARKER.sub(lambda m: module.cxx_markdown(m.group(1)), markdown)
