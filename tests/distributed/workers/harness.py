"""What every worker shares: named checks whose outcome each rank writes to a JSON file."""

import json
import sys
import traceback

import gradtrack.distributed as dist

results = {}


def check(fn):
    """Runs ``fn`` now; records "ok" or the traceback under its name."""
    try:
        fn()
        results[fn.__name__] = "ok"
    except Exception:  # noqa: BLE001 - the test prints it
        results[fn.__name__] = traceback.format_exc()
    return fn


def raises(kind, message, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except kind as e:
        assert str(e) == message, f"{str(e)!r} != {message!r}"
        return
    raise AssertionError(f"no {kind.__name__} raised")


def finish():
    with open(f"{sys.argv[1]}.{dist.get_rank()}", "w") as f:
        json.dump(results, f)
