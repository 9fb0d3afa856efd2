"""Script entry point: ``python benchmarks/run.py [options]``.

Same as ``python -m benchmarks`` from the repository root; this file only
makes the ``benchmarks`` package importable when started by path.
"""

import os
import sys

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    # sys.path[0] is benchmarks/ itself; the package needs its parent.
    if sys.path and os.path.abspath(sys.path[0]) == here:
        sys.path[0] = os.path.dirname(here)
    from benchmarks.__main__ import main

    sys.exit(main())
