"""Docstrings of the thread pool's size, denormal flushing (``save`` and ``load`` document themselves in
``serialization.py``).

``FUNCTIONS`` documents ``gradtrack.NAME``.
"""

FUNCTIONS = {
    "get_num_threads": """The number of threads the CPU kernels use.

    >>> gradtrack.get_num_threads() >= 1
    True
    """,
    "set_num_threads": """Sets the number of threads the CPU kernels use.

    A process forked (``os.fork``, ``multiprocessing``'s ``fork``) after a kernel ran on
    several threads has one thread and keeps it: OpenMP's pool does not survive fork,
    and waiting on it would hang (torch's child hangs there).

    >>> n = gradtrack.get_num_threads()
    >>> gradtrack.set_num_threads(1)
    >>> gradtrack.get_num_threads()
    1
    >>> gradtrack.set_num_threads(n)
    """,
    "set_flush_denormal": """Flushes denormal floats to zero on this thread's CPU (True) or
    stops (False): the x86 MXCSR bits FTZ and DAZ. Returns True where the CPU has them
    (x86 with SSE3), False elsewhere, as torch's.

    >>> gradtrack.set_flush_denormal(True)
    True
    >>> gradtrack.tensor([1e-39], dtype=gradtrack.float32)
    tensor([0.])
    >>> gradtrack.set_flush_denormal(False)
    True
    >>> gradtrack.tensor([1e-39], dtype=gradtrack.float32)
    tensor([1.0000e-39])
    """,
}
