"""Draws the seed walkthrough's `.detach()` failure (section 6) as docs/images/detach_failure.svg.

    python tools/seed_picture.py
"""

import pathlib

import gradtrack as T

X = T.tensor([[5, 1, 9], [6, 5, 7]], requires_grad=True, dtype=T.float)
Y = X ** 2
X.detach().add_(100)
root = pathlib.Path(__file__).resolve().parents[1]
out = root / "docs" / "images" / "detach_failure.svg"
# Source lines relative to the repository, so the picture is the same on every machine.
out.write_text(T.autograd.explain(Y.sum(), format="svg").replace(f"{root}/", ""))
print(out)
