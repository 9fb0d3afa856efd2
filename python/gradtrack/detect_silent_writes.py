"""A pytest plugin that runs a test suite with the silent-write detector on
(``gradtrack.autograd.detect_silent_writes``)::

    pytest -p gradtrack.detect_silent_writes

Every backward in the suite then refuses to compute a gradient from a saved
tensor whose memory changed without a version bump (``.data``, NumPy and DLPack
aliases) instead of returning torch's silently wrong one. The environment
variable ``GRADTRACK_DETECT_SILENT_WRITES=1`` does the same for any program.
"""


def pytest_configure(config: object) -> None:
    """Turns the detector on before the first test is collected."""
    import gradtrack

    gradtrack.autograd.detect_silent_writes(True)
