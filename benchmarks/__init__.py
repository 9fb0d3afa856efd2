"""gradtrack benchmark runner: gradtrack against torch, case by case.

Run it from the repository root::

    python -m benchmarks --quick          # about a minute, every case
    python -m benchmarks                  # the full run
    python benchmarks/run.py --list       # same runner, started as a script

Each library runs in its own worker process (their thread pools must never
share a process), the libraries take turns sample by sample, and the report
goes to stdout and to ``latest.json``, ``latest.txt`` and ``latest.png`` in a run
folder (``benchmarks/results/<vendor>/`` for the committed report of each CPU vendor).
See ``benchmarks/README.md`` for the options and for how to add a case.

Modules:
    cases    the benchmark cases, written once against a library module ``T``
             (one module per kind of measurement)
    goals    the target ratios gradtrack/torch, in one table
    worker   the code that runs inside a library's process
    harness  the parent side: workers, alternation, timeouts, probes
    machine  what machine and environment the numbers come from
    report   ratios, goal checks, the stdout table and the JSON file
    chart    the PNG chart of the ratios
"""

SCHEMA_VERSION = 1
