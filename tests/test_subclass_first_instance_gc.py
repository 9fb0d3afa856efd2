"""The first instance of a Tensor subclass, with a garbage collection at every
allocation: pybind11 tracks the instance before laying out its holder, and makes a
weakref (which may collect) in between, so the Tensor type's traverse must not read an
instance without a layout. It crashed (a segmentation fault in nn.Linear's first
Parameter when a collection fell there)."""

import subprocess
import sys

PROGRAM = """
import gc
gc.set_threshold(1, 1, 1)
import gradtrack
from gradtrack import nn

class Marked(gradtrack.Tensor):
    pass

layer = nn.Linear(3, 2)
marked = Marked(gradtrack.ones(2))
print(type(layer.weight).__name__, type(marked).__name__, tuple(layer(gradtrack.ones(3)).shape))
"""


def test_first_subclass_instances_survive_collections():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["Parameter", "Marked", "(2,)"]
