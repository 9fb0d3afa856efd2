"""Writes python/gradtrack/_parser_overloads.py: torch's overloads of the names that
gradtrack binds in C++ with one pybind11 signature where torch's parser has several.

    python tools/gen_parser_overloads.py   # needs torch 2.13 installed

torch lists a name's overloads when a call fits none of them ("received an invalid
combination of arguments - got ..., but expected one of: * (...)"); a call with an
unknown keyword makes it do so. Those lines, for each C++-bound Tensor method and
gradtrack function with more than one, are what NOTE [Argument errors speak PyTorch]
(csrc/python/arg_errors.h) lists instead of gradtrack's single signature.
"""

import inspect
import pathlib
import pprint

import torch

import gradtrack

OUT = pathlib.Path(__file__).resolve().parents[1] / "python" / "gradtrack" / "_parser_overloads.py"
HEADER = '''"""torch's overloads of the names gradtrack binds in C++ with one signature (NOTE
[Argument errors speak PyTorch] in csrc/python/arg_errors.h), read from torch's own
messages by tools/gen_parser_overloads.py; a failed call's error lists these, as torch's
parser does. Not imported by ``import gradtrack``: the error path reads it."""

'''


def _overloads(call):
    """The parameter texts torch lists when ``call`` fits none of its overloads."""
    try:
        call(__probe__=1)
    except TypeError as e:
        text = str(e)
        if "expected one of:" not in text:
            return None
        return [line.strip()[3:-1].replace("torch.", "gradtrack.")
                for line in text.split("\n") if line.startswith(" * (")]
    return None


def collect():
    x = torch.ones(2, 3)
    methods, functions = {}, {}
    for name in sorted(set(dir(torch.Tensor)) & set(dir(gradtrack.Tensor))):
        bound = inspect.getattr_static(gradtrack.Tensor, name, None)
        if name.startswith("_") or type(bound).__name__ != "instancemethod":
            continue
        found = _overloads(getattr(x, name))
        if found and len(found) > 1:
            methods[name] = found
    for name in sorted(set(dir(torch)) & set(dir(gradtrack))):
        if name.startswith("_") or type(getattr(gradtrack, name)).__name__ != \
                "builtin_function_or_method":
            continue
        found = _overloads(lambda **kw: getattr(torch, name)(x, **kw))
        if found and len(found) > 1:
            functions[name] = found
    return methods, functions


def main():
    methods, functions = collect()
    text = (HEADER + "METHODS = " + pprint.pformat(methods, width=96, sort_dicts=True) + "\n"
            + "FUNCTIONS = " + pprint.pformat(functions, width=96, sort_dicts=True) + "\n")
    OUT.write_text(text)
    print(f"wrote {len(methods)} methods and {len(functions)} functions to {OUT}")


if __name__ == "__main__":
    main()
