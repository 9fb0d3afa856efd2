"""How this gradtrack was built and what it runs on, as ``torch.__config__``.

``python -m gradtrack`` prints both reports; paste them into a bug report.

>>> import gradtrack
>>> "OpenBLAS" in gradtrack.__config__.show()
True
"""

import os

from . import _C


def show():
    """The build: version, compiler, flags, BLAS and SIMD level, as one string.

    >>> import gradtrack
    >>> gradtrack.__config__.show().splitlines()[0].startswith("gradtrack ")
    True
    """
    import platform  # here, not at the top: it costs `import gradtrack` ~5 ms

    import numpy

    from . import __version__

    info = _C._build_info()
    openmp = info["openmp"]
    lines = [
        f"gradtrack {__version__}",
        f"  - Python {platform.python_version()} on {platform.machine()} {platform.system()}",
        f"  - Compiler: GCC-compatible {info['compiler']}, C++ standard {info['cplusplus']}",
        f"  - Build: {'optimized' if info['optimized'] else 'not optimized (-O0)'}"
        + (f", sanitizer {info['sanitizer']}" if info["sanitizer"] else ""),
        f"  - OpenMP: {openmp if openmp is not None else 'off (kernels run on the calling thread)'}",
        f"  - BLAS: OpenBLAS from scipy-openblas32, core {_C._blas_core()}",
        f"  - SIMD kernels: {_C._simd_level()}",
        f"  - NumPy {numpy.__version__}",
    ]
    return "\n".join(lines) + "\n"


def parallel_info():
    """Threads: gradtrack's pool, the environment variables that set it, the CPU count.

    >>> import gradtrack
    >>> "gradtrack.get_num_threads() :" in gradtrack.__config__.parallel_info()
    True
    """
    lines = [
        f"gradtrack.get_num_threads() : {_C.get_num_threads()}",
        f"os.cpu_count() : {os.cpu_count()}",
        f"usable CPUs (affinity) : {len(os.sched_getaffinity(0))}",
    ]
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        lines.append(f"{var} : {os.environ.get(var, '[not set]')}")
    return "\n".join(lines) + "\n"
