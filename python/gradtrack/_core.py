"""Loading the C++ core (``gradtrack._C``) with the environment its libraries read
once, when they load.

:func:`load` runs once, first thing in ``import gradtrack``; nothing else of the
package can load before it.
"""


def _load_core():
    # NOTE [One thread pool] (csrc/kernels/parallel.h): OpenBLAS reads
    # OPENBLAS_NUM_THREADS once, when it loads; with 1 it starts no worker
    # threads to spin beside OpenMP's. libgomp likewise reads GOMP_SPINCOUNT
    # once: by default its idle workers spin 300 000 rounds after every
    # parallel region, about 10 ms with this generation's slow PAUSE, taking
    # the cores from other threads and processes (measured: a second process
    # summing 16M floats ran 1.5-3x slower beside them). 10 000 rounds keep the
    # back-to-back kernels of one training step on warm threads. A user's own
    # GOMP_SPINCOUNT / OMP_WAIT_POLICY wins, and a libgomp that another library
    # loaded first keeps its settings. The variables are restored right after,
    # so the user's environment (and their subprocesses) see no change.
    import os
    wanted = {"OPENBLAS_NUM_THREADS": "1"}
    if "GOMP_SPINCOUNT" not in os.environ and "OMP_WAIT_POLICY" not in os.environ:
        wanted["GOMP_SPINCOUNT"] = "10000"
    previous = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        return _load_extension()
    finally:
        for name, value in previous.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def _load_extension():
    # Normal installs find OpenBLAS through the extension's RPATH. Elsewhere
    # (an editable build tree), load the library by path first; importing
    # scipy_openblas32 itself would cost ~50 ms (measured).
    try:
        from . import _C
    except ImportError as e:
        if "libscipy_openblas" not in str(e):
            raise
        import ctypes
        import importlib.util
        import os
        spec = importlib.util.find_spec("scipy_openblas32")
        libdir = os.path.join(os.path.dirname(spec.origin), "lib")
        ctypes.CDLL(os.path.join(libdir, "libscipy_openblas.so"), mode=ctypes.RTLD_GLOBAL)
        from . import _C
    return _C


def load():
    """Loads ``gradtrack._C`` and tells it where the package's Python files are."""
    _C = _load_core()
    # Frames inside this package are skipped when recording where an op was called.
    # The package's own Python files are beside this one: gradtrack.__path__[0] is not
    # them in an editable (developer) install, where it names the build's platlib
    # folder first.
    _C._set_package_dir(__file__[:-len("_core.py")])
    return _C
