"""The benchmark cases, each written once against a library module ``T``.

``T`` is ``torch`` or ``gradtrack`` (they share one API), so every case runs
the exact same Python code in both libraries.

A *timed* case is a function ``setup(T, value, **options) -> step``:

* ``value`` comes from one of the case's points (a size, a flag, a shape);
* ``options`` are empty for the normal run and filled by a ``Variant``;
* ``step`` is a zero-argument callable that does one iteration.  Everything
  it needs is bound as closure variables in ``setup`` so that the measured
  loop pays for one Python frame per iteration and nothing else.
* ``setup`` may instead return ``(step, cleanup)``; ``cleanup()`` is called
  when the harness drops the case (use it to undo a process-global switch).

A *probe* case is measured in fresh interpreters instead (import time, RSS, peaks);
``probe`` names the experiment in ``benchmarks/worker.py`` and ``metric``
the number it reports.

This package must stay importable without torch or gradtrack: the parent
process reads it to list and schedule cases, and it must never load a
library's thread pool.

The cases live in one module per kind of measurement, registered in this order (the
order ``--list``, the run and the report follow): ``overhead`` (per-op overhead and
small graphs), ``kernels`` (elementwise ops, reductions, scans and sorts, a large chain
with backward), ``matmul`` (products and the FMA peak), ``training`` (training steps
and their parts, with the random draws), ``process`` (import time and memory, measured
in fresh interpreters), ``nn`` (normalization and recurrent layers) and
``serialization`` (saving and loading a state dict) and ``func_transforms``
(per-sample gradients with ``vmap(grad(...))``). ``registry``
holds what a case is and the list they join.
"""

# Importing a module registers its cases: one import a line, in the order of CASES.
from . import overhead  # noqa: F401
from . import kernels  # noqa: F401
from . import matmul  # noqa: F401
from . import training  # noqa: F401
from . import process  # noqa: F401
from . import nn  # noqa: F401
from . import serialization  # noqa: F401
from . import func_transforms  # noqa: F401
from .matmul import FMA_FLOPS  # noqa: F401 - the report's peak fraction
from .registry import CASES, Case, Point, Variant, by_id, seed, timed_case  # noqa: F401
