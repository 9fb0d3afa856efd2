"""Docstrings of the grad-mode and anomaly switches of the ``gradtrack`` namespace
(``autograd/grad_mode.py``, ``autograd/anomaly_mode.py``).

``FUNCTIONS`` documents ``gradtrack.NAME``.
"""

FUNCTIONS = {
    "is_grad_enabled": """True unless grad mode is off (inside ``no_grad``).

    >>> gradtrack.is_grad_enabled()
    True
    >>> with gradtrack.no_grad():
    ...     gradtrack.is_grad_enabled()
    False
    """,
    "enable_grad": """
    >>> x = gradtrack.ones(1, requires_grad=True)
    >>> with gradtrack.no_grad():
    ...     with gradtrack.enable_grad():
    ...         y = x * 2
    >>> y.requires_grad
    True
    """,
    "inference_mode": """
    >>> x = gradtrack.ones(1, requires_grad=True)
    >>> with gradtrack.inference_mode():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """,
    "is_inference_mode_enabled": """True inside an ``inference_mode`` block.

    >>> with gradtrack.inference_mode():
    ...     gradtrack.is_inference_mode_enabled()
    True
    """,
    "is_anomaly_enabled": """True while anomaly detection is on.

    >>> gradtrack.is_anomaly_enabled()
    False
    """,
    "is_anomaly_check_nan_enabled": """True if anomaly detection also checks backward outputs for NaN.

    >>> with gradtrack.autograd.detect_anomaly():
    ...     gradtrack.is_anomaly_check_nan_enabled()
    True
    """,
}
