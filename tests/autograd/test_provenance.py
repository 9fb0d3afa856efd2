"""Provenance: torch's exact messages, plus a note naming the write that broke backward.

Every scenario is ONE function ``scenario(lib, at)``, run with ``lib=gradtrack``
and (for the message) with ``lib=torch``, the oracle. On the line of each call
the note must name, it records that line: ``c = b * b; at["saved"] = here()``,
so no line number is hard-coded. ``str(e)`` must equal torch's message; the
extra knowledge is in ``e.__notes__`` (PEP 678).
"""

import contextlib
import gc
import re
import sys
import traceback
import tracemalloc
import warnings

import pytest

import gradtrack

from helpers import env_for_rss_child, torch_to_gradtrack

FILE = __file__
VERSION_PREFIX = ("one of the variables needed for gradient computation has been modified by an "
                  "inplace operation: ")
SECOND_BACKWARD = "Trying to backward through the graph a second time"
LEAF_NOTE = (
    "To change a parameter without recording the change, write it under "
    "`with gradtrack.no_grad():` or through `.detach()`, e.g. "
    "`w.detach().sub_(w.grad, alpha=lr)`. Do not write `p = p - lr * p.grad`: that makes p "
    "a new non-leaf tensor, so its .grad stays None and optimizers refuse it.")


def here():
    """The line number the caller is at."""
    return sys._getframe(1).f_lineno


def loc(line):
    return f"{FILE}:{line}"


def provenance_off(lib):
    """Provenance off in gradtrack; torch has no such switch (and records nothing)."""
    return lib.autograd.set_provenance(False) if lib is gradtrack else contextlib.nullcontext()


def failure(scenario, lib=gradtrack):
    """Runs ``scenario``; returns the RuntimeError it raised and the lines it recorded."""
    at = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError) as info:
            scenario(lib, at)
    return info.value, at


def notes(error):
    return getattr(error, "__notes__", None)


@pytest.fixture(autouse=True)
def provenance_on():
    """Every test starts with provenance on (the default) and leaves it on."""
    assert gradtrack.autograd.is_provenance_enabled()
    yield
    left_off = not gradtrack.autograd.is_provenance_enabled()
    gradtrack.autograd.set_provenance(True)
    assert not left_off, "the test left provenance off"


# ---- the scenarios --------------------------------------------------------------------------

def detach_write(lib, at):  # the seed's case
    X = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Y = X ** 2; at["saved"] = here()  # noqa: E702
    X.detach().add_(100); at["write"] = here()  # noqa: E702
    Y.sum().backward()


def nonleaf_write(lib, at):
    x = lib.ones(3, requires_grad=True)
    b = x * 1
    c = b * b; at["saved"] = here()  # noqa: E702
    b.add_(1); at["write"] = here()  # noqa: E702
    c.sum().backward()


def view_write(lib, at):
    x = lib.ones(3, requires_grad=True)
    y = x * 1
    c = y * y; at["saved"] = here()  # noqa: E702
    y[0].mul_(2); at["write"] = here()  # noqa: E702
    c.sum().backward()


def two_writes(lib, at):
    x = lib.ones(3, requires_grad=True)
    b = x * 1
    c = b * b; at["saved"] = here()  # noqa: E702
    b.add_(1); at["w1"] = here()  # noqa: E702
    b.detach().mul_(2); at["w2"] = here()  # noqa: E702
    c.sum().backward()


def six_writes(lib, at):  # more than the ring's 4: the first two are forgotten
    x = lib.ones(3, requires_grad=True)
    b = x * 1
    c = b * b; at["saved"] = here()  # noqa: E702
    b.add_(1); at["w1"] = here()  # noqa: E702
    b.mul_(2); at["w2"] = here()  # noqa: E702
    b.sub_(1); at["w3"] = here()  # noqa: E702
    b.div_(2); at["w4"] = here()  # noqa: E702
    b[1:].fill_(1); at["w5"] = here()  # noqa: E702
    b.zero_(); at["w6"] = here()  # noqa: E702
    c.sum().backward()


def setitem_scalar(lib, at):
    x = lib.ones(3, requires_grad=True)
    b = x * 1
    c = b * b; at["saved"] = here()  # noqa: E702
    b[1] = 5.0; at["write"] = here()  # noqa: E702
    c.sum().backward()


def setitem_tensor(lib, at):
    x = lib.ones(3, requires_grad=True)
    b = x * 1
    c = b * b; at["saved"] = here()  # noqa: E702
    b[1:] = lib.zeros(2); at["write"] = here()  # noqa: E702
    c.sum().backward()


def setitem_advanced(lib, at):
    x = lib.ones(3, requires_grad=True)
    b = x * 1
    c = b * b; at["saved"] = here()  # noqa: E702
    b[lib.tensor([0, 2])] = 5.0; at["write"] = here()  # noqa: E702
    c.sum().backward()


def optimizer_step(lib, at, fused=None):
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 2)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, fused=fused)
    x = lib.ones(4, 3, requires_grad=True)  # so that AddmmBackward0 saves the weight
    model(x).sum().backward()
    opt.step()  # a first step: the momentum buffers exist now
    loss = model(x).sum(); at["saved"] = here()  # noqa: E702
    opt.step(); at["write"] = here()  # noqa: E702
    loss.backward()


def fused_optimizer_step(lib, at):
    optimizer_step(lib, at, fused=True)


def write_while_off(lib, at):
    x = lib.ones(3, requires_grad=True)
    b = x * 1
    c = b * b; at["saved"] = here()  # noqa: E702
    with provenance_off(lib):
        b.add_(1)
        b.mul_(2)
    c.sum().backward()


def write_off_then_on(lib, at):
    x = lib.ones(3, requires_grad=True)
    b = x * 1
    c = b * b; at["saved"] = here()  # noqa: E702
    with provenance_off(lib):
        b.add_(1)
    b.mul_(2); at["write"] = here()  # noqa: E702
    c.sum().backward()


def built_while_off(lib, at):
    x = lib.ones(3, requires_grad=True)
    b = x * 1
    with provenance_off(lib):
        c = b * b
    b.add_(1); at["write"] = here()  # noqa: E702
    c.sum().backward()


def second_backward(lib, at):
    x = lib.ones(3, requires_grad=True)
    loss = (x * x).sum(); at["built"] = here()  # noqa: E702
    loss.backward(); at["freed"] = here()  # noqa: E702
    loss.backward()


def second_backward_after_retain(lib, at):
    x = lib.ones(3, requires_grad=True)
    loss = (x * x).sum(); at["built"] = here()  # noqa: E702
    loss.backward(retain_graph=True)
    loss.backward(); at["freed"] = here()  # noqa: E702
    loss.backward()


def second_grad(lib, at):
    x = lib.ones(3, requires_grad=True)
    loss = (x * x).sum(); at["built"] = here()  # noqa: E702
    lib.autograd.grad(loss, x); at["freed"] = here()  # noqa: E702
    lib.autograd.grad(loss, x)


def leaf_write(lib, at):
    w = lib.ones(3, requires_grad=True)
    w.add_(1)


def leaf_augmented(lib, at):
    w = lib.ones(3, requires_grad=True)
    w -= 0.1


def leaf_view_write(lib, at):
    w = lib.ones(3, requires_grad=True)
    w[0].mul_(2)


SCENARIOS = [detach_write, nonleaf_write, view_write, two_writes, six_writes, setitem_scalar,
             setitem_tensor, setitem_advanced, optimizer_step, write_while_off,
             write_off_then_on, built_while_off, second_backward, second_backward_after_retain,
             second_grad, leaf_write, leaf_augmented, leaf_view_write]
ALL_SCENARIOS = SCENARIOS + [fused_optimizer_step]


def saved_by(node, line):
    return f"It was saved by {node} for the call at {loc(line)}"


# ---- str(e) is torch's message, word for word ---------------------------------------------

@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_message_is_torchs(scenario, torch):
    theirs, _ = failure(scenario, torch)
    ours, _ = failure(scenario)
    assert str(ours) == torch_to_gradtrack(str(theirs))
    assert notes(theirs) is None  # the note is ours alone ...
    assert notes(ours) and notes(ours)[0] not in str(ours)  # ... and not part of the message


def test_message_is_torchs_in_anomaly_mode(torch):
    """Anomaly mode changes torch's hint; the note is still attached."""
    with torch.autograd.set_detect_anomaly(True):
        theirs, _ = failure(detach_write, torch)
    with gradtrack.autograd.set_detect_anomaly(True):
        ours, at = failure(detach_write)
    assert "Good luck!" in str(ours)
    assert str(ours) == torch_to_gradtrack(str(theirs))
    assert notes(ours) == [f"{saved_by('PowBackward0', at['saved'])}, then changed in place by "
                           f"add_ (through a detach() alias) at {loc(at['write'])}."]


# ---- the notes ------------------------------------------------------------------------------

def test_write_through_detach():
    e, at = failure(detach_write)
    assert str(e).startswith(VERSION_PREFIX + "[gradtrack.FloatTensor [3]] is at version 1; "
                                              "expected version 0 instead.")
    assert e.__notes__ == [
        f"It was saved by PowBackward0 for the call at {FILE}:{at['saved']}, then changed in "
        f"place by add_ (through a detach() alias) at {FILE}:{at['write']}."]
    assert at["write"] == at["saved"] + 1


def view_dtype_write(lib, at):
    X = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Y = X ** 2; at["saved"] = here()  # noqa: E702
    X.view(lib.int32).add_(1); at["write"] = here()  # noqa: E702
    Y.sum().backward()


def test_write_through_view_dtype(torch):
    theirs, _ = failure(view_dtype_write, torch)
    e, at = failure(view_dtype_write)
    assert str(e) == torch_to_gradtrack(str(theirs))
    assert e.__notes__ == [
        f"It was saved by PowBackward0 for the call at {FILE}:{at['saved']}, then changed in "
        f"place by add_ (through a view(dtype) alias) at {FILE}:{at['write']}."]


def test_note_is_printed_after_the_message_in_tracebacks():
    e, at = failure(detach_write)
    text = "".join(traceback.format_exception(e))
    message = f"RuntimeError: {e}\n"
    assert message in text
    assert text.endswith(message + e.__notes__[0] + "\n")


def test_direct_write_on_a_non_leaf():
    e, at = failure(nonleaf_write)
    assert e.__notes__ == [f"{saved_by('MulBackward0', at['saved'])}, then changed in place by "
                           f"add_ at {loc(at['write'])}."]


def test_write_through_a_view():
    e, at = failure(view_write)
    assert e.__notes__ == [f"{saved_by('MulBackward0', at['saved'])}, then changed in place by "
                           f"mul_ (through a view) at {loc(at['write'])}."]


def test_two_writes_are_both_named_in_order():
    e, at = failure(two_writes)
    assert "is at version 2; expected version 0 instead." in str(e)
    assert e.__notes__ == [f"{saved_by('MulBackward0', at['saved'])}, then changed in place by "
                           f"add_ at {loc(at['w1'])}, then by mul_ (through a detach() alias) "
                           f"at {loc(at['w2'])}."]


def test_more_writes_than_the_ring_holds():
    e, at = failure(six_writes)
    assert "is at version 6; expected version 0 instead." in str(e)
    # The ring keeps the last 4 writes; the 2 before are told where they happened.
    assert e.__notes__ == [f"{saved_by('MulBackward0', at['saved'])}, then changed in place "
                           f"2 times (not recorded), then by sub_ at {loc(at['w3'])}, then by "
                           f"div_ at {loc(at['w4'])}, then by fill_ (through a view) at "
                           f"{loc(at['w5'])}, then by zero_ at {loc(at['w6'])}."]


# `t[i] = v` goes through an internal view of t; it is reported as a write of t.
@pytest.mark.parametrize("scenario, via", [(setitem_scalar, ""),
                                           (setitem_tensor, ""),
                                           (setitem_advanced, "")],
                         ids=["scalar", "tensor", "advanced_index"])
def test_setitem(scenario, via):
    e, at = failure(scenario)
    assert e.__notes__ == [f"{saved_by('MulBackward0', at['saved'])}, then changed in place by "
                           f"__setitem__{via} at {loc(at['write'])}."]


@pytest.mark.parametrize("method, args, label", [
    ("copy_", (gradtrack.zeros(2, 2),), "copy_"),
    ("fill_", (2.0,), "fill_"),
    ("zero_", (), "zero_"),
    ("normal_", (), "normal_"),
    ("uniform_", (), "uniform_"),
    ("clamp_", (0, 1), "clamp_"),
    ("exp_", (), "exp_"),
    ("t_", (), "t_"),
    ("masked_fill_", (gradtrack.tensor([[True, False], [False, True]]), 0.0), "masked_fill_"),
    ("__iadd__", (1,), "add_"),  # b += 1
    ("__imul__", (2,), "mul_"),  # b *= 2
], ids=lambda v: v if isinstance(v, str) else "")
def test_label_is_the_method_name(method, args, label):
    x = gradtrack.ones(2, 2, requires_grad=True)
    b = x * 1
    write = getattr(b, method)  # called on this test's line: the location is that line
    c = b * b; saved = here()  # noqa: E702
    write(*args); wrote = here()  # noqa: E702
    with pytest.raises(RuntimeError) as info:
        c.sum().backward()
    assert info.value.__notes__ == [f"{saved_by('MulBackward0', saved)}, then changed in place "
                                    f"by {label} at {loc(wrote)}."]


def test_optimizer_step_between_forward_and_backward():
    """The writes SGD.step makes are labelled ``SGD.step`` and located at the user's
    ``opt.step()`` line (the frames inside gradtrack are skipped)."""
    e, at = failure(optimizer_step)
    assert "[gradtrack.FloatTensor [3, 2]], which is output 0 of AsStrided, is at version 3; " \
           "expected version 2 instead." in str(e)
    assert e.__notes__ == [f"{saved_by('AddmmBackward0', at['saved'])}, then changed in place "
                           f"by SGD.step at {loc(at['write'])}."]


def test_fused_optimizer_step_is_labelled_sgd_step():
    # torch 2.13's CPU fused SGD does not bump _version (so it raises nothing);
    # gradtrack's fused kernel bumps it once and labels the write.
    e, at = failure(fused_optimizer_step)
    assert str(e).startswith(VERSION_PREFIX)
    assert e.__notes__ == [f"{saved_by('AddmmBackward0', at['saved'])}, then changed in place "
                           f"by SGD.step at {loc(at['write'])}."]


def test_writes_while_provenance_was_off():
    e, at = failure(write_while_off)
    assert e.__notes__ == [f"{saved_by('MulBackward0', at['saved'])}, then changed in place "
                           f"2 times (not recorded)."]


def test_one_write_while_off_then_one_recorded():
    e, at = failure(write_off_then_on)
    assert e.__notes__ == [f"{saved_by('MulBackward0', at['saved'])}, then changed in place "
                           f"1 time (not recorded), then by mul_ at {loc(at['write'])}."]


def test_node_built_while_provenance_was_off_has_no_location():
    e, at = failure(built_while_off)
    assert e.__notes__ == [f"It was saved by MulBackward0, then changed in place by add_ at "
                           f"{loc(at['write'])}."]


@pytest.mark.parametrize("scenario", [second_backward, second_backward_after_retain, second_grad],
                         ids=["backward", "after_retain_graph", "autograd_grad"])
def test_second_backward_names_where_built_and_where_freed(scenario):
    e, at = failure(scenario)
    assert str(e).startswith(SECOND_BACKWARD)
    assert e.__notes__ == [
        f"The saved tensors of MulBackward0 (built by the call at {loc(at['built'])}) were freed "
        f"by the backward called at {loc(at['freed'])}; pass retain_graph=True to that call to "
        f"keep them."]


@pytest.mark.parametrize("scenario, message", [
    (leaf_write, "a leaf Variable that requires grad is being used in an in-place operation."),
    (leaf_augmented, "a leaf Variable that requires grad is being used in an in-place operation."),
    (leaf_view_write, "a view of a leaf Variable that requires grad is being used in an in-place "
                      "operation.")], ids=["add_", "augmented", "view"])
def test_leaf_inplace_error_note(scenario, message):
    e, _ = failure(scenario)
    assert str(e) == message
    assert e.__notes__ == [LEAF_NOTE]


# ---- provenance off: no note, same message -------------------------------------------------

@pytest.mark.parametrize("scenario", ALL_SCENARIOS, ids=lambda s: s.__name__)
def test_provenance_off_attaches_no_note(scenario):
    with_note, _ = failure(scenario)
    with gradtrack.autograd.set_provenance(False):
        assert not gradtrack.autograd.is_provenance_enabled()
        without, _ = failure(scenario)
    assert notes(with_note)
    assert notes(without) is None
    assert str(without) == str(with_note)


def test_provenance_off_at_error_time_only():
    """What was recorded is not reported while provenance is off."""
    x = gradtrack.ones(3, requires_grad=True)
    b = x * 1
    c = b * b
    b.add_(1)
    with gradtrack.autograd.set_provenance(False), pytest.raises(RuntimeError) as info:
        c.sum().backward()
    assert notes(info.value) is None


def test_set_provenance_as_a_call_and_as_a_context_manager():
    assert gradtrack.autograd.is_provenance_enabled()  # on by default
    try:
        gradtrack.autograd.set_provenance(False)
        assert not gradtrack.autograd.is_provenance_enabled()
        with gradtrack.autograd.set_provenance(True):
            assert gradtrack.autograd.is_provenance_enabled()
        assert not gradtrack.autograd.is_provenance_enabled()  # restored to off
    finally:
        gradtrack.autograd.set_provenance(True)
    with pytest.raises(ZeroDivisionError), gradtrack.autograd.set_provenance(False):
        1 / 0
    assert gradtrack.autograd.is_provenance_enabled()  # restored after an exception


# ---- explain() ------------------------------------------------------------------------------

def seed_graph():
    X = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Y = X ** 2; pow_at = here()  # noqa: E702
    Z = (Y * X).sum(); z_at = here()  # noqa: E702
    return X, Z, pow_at, z_at


def test_explain_text_before_and_after_the_write():
    X, Z, pow_at, z_at = seed_graph()
    ok = "version 0 when saved, 0 now (ok)"
    assert gradtrack.autograd.explain(Z) == "\n".join([
        "SumBackward0",  # saves nothing: it cannot fail, so it records no location
        f"    MulBackward0  <- {loc(z_at)}",
        f"      | saved an input [3]: {ok}",
        f"      | saved an input [3]: {ok}",
        f"        PowBackward0  <- {loc(pow_at)}",
        f"          | saved an input [3]: {ok}",
        "            AccumulateGrad",
    ])
    X.detach().add_(100)
    bad = "version 0 when saved, 1 now (MODIFIED: backward will fail)"
    assert gradtrack.autograd.explain(Z) == "\n".join([
        "SumBackward0",  # saves nothing: it cannot fail, so it records no location
        f"    MulBackward0  <- {loc(z_at)}",
        f"      | saved an input [3]: {ok}",  # Y: not written
        f"      | saved an input [3]: {bad}",  # X
        f"        PowBackward0  <- {loc(pow_at)}",
        f"          | saved an input [3]: {bad}",
        "            AccumulateGrad",
    ])
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        Z.backward()


def test_explain_changes_nothing():
    X, Z, _, _ = seed_graph()
    gradtrack.autograd.explain(Z)
    gradtrack.autograd.explain(Z, format="dot")
    assert X._version == 0
    Z.backward()
    assert X.grad.tolist() == [3.0, 12.0, 27.0]  # d(x**3)/dx = 3 x**2


def test_explain_saved_output():
    x = gradtrack.ones(2, requires_grad=True)
    e = x.exp(); exp_at = here()  # noqa: E702
    e.mul_(2)
    text = gradtrack.autograd.explain(e)
    assert text.splitlines()[:2] == [
        f"MulBackward0  <- {loc(exp_at + 1)}",
        f"    ExpBackward0  <- {loc(exp_at)}"]
    assert "      | saved its output [2]: version 0 when saved, 1 now (MODIFIED: backward will " \
           "fail)" in text.splitlines()


def test_explain_freed_graph():
    x = gradtrack.ones(2, requires_grad=True)
    loss = (x * x).sum(); built = here()  # noqa: E702
    loss.backward()
    freed = "      | saved an input: freed by a backward without retain_graph"
    assert gradtrack.autograd.explain(loss).splitlines() == [
        "SumBackward0", f"    MulBackward0  <- {loc(built)}", freed, freed,
        "        AccumulateGrad"]


def test_explain_without_provenance_has_no_locations():
    x = gradtrack.ones(2, requires_grad=True)
    with gradtrack.autograd.set_provenance(False):
        y = (x * 2).sum()
    assert gradtrack.autograd.explain(y) == "SumBackward0\n    MulBackward0\n        AccumulateGrad"


def test_explain_leaf_and_tensor_without_graph():
    leaf = gradtrack.ones(2, requires_grad=True)
    assert gradtrack.autograd.explain(leaf) == "(no graph: the tensor is a leaf)"
    assert gradtrack.autograd.explain(gradtrack.ones(2)) == \
        "(no graph: the tensor is not part of a graph)"
    assert gradtrack.autograd.explain(leaf.detach()) == \
        "(no graph: the tensor is not part of a graph)"
    with gradtrack.no_grad():
        assert gradtrack.autograd.explain(leaf * 2) == \
            "(no graph: the tensor is not part of a graph)"


def test_explain_rejects_an_unknown_format():
    _, Z, _, _ = seed_graph()
    with pytest.raises(ValueError,
                       match=r"^format must be 'text', 'dot', 'svg' or 'png', got 'pdf'$"):
        gradtrack.autograd.explain(Z, format="pdf")


def _dot_nodes(dot):
    """{label's first line: (label lines, attributes)} and the edges as label pairs."""
    nodes, names = {}, {}
    for name, label, attrs in re.findall(r'^  (n\d+) \[label="(.*)"(.*)\];$', dot, flags=re.M):
        lines = label.split("\\n")
        nodes[lines[0]] = (lines, attrs)
        names[name] = lines[0]
    edges = {(names[a], names[b]) for a, b in re.findall(r"^  (n\d+) -> (n\d+);$", dot, flags=re.M)}
    return nodes, edges


def test_explain_dot():
    X, Z, pow_at, _ = seed_graph()
    X.detach().add_(100); add_at = here()  # noqa: E702
    dot = gradtrack.autograd.explain(Z, format="dot")
    assert dot.startswith("digraph gradtrack {\n") and dot.endswith("\n}")
    nodes, edges = _dot_nodes(dot)
    assert set(nodes) == {"SumBackward0", "MulBackward0", "PowBackward0", "AccumulateGrad"}
    # edges run in the forward direction: input's node -> consumer's node
    assert edges == {("MulBackward0", "SumBackward0"), ("PowBackward0", "MulBackward0"),
                     ("AccumulateGrad", "MulBackward0"), ("AccumulateGrad", "PowBackward0")}
    lines, attrs = nodes["PowBackward0"]
    assert lines[1:3] == [f"at {loc(pow_at)}",
                          "saved an input [3]: version 0 when saved, 1 now (MODIFIED: backward "
                          "will fail)"]
    # ... and the write that made it stale, as backward's error note says it.
    assert lines[3:] == [f"It was saved by PowBackward0 for the call at {loc(pow_at)}, then "
                         f"changed in place by add_ (through a detach() alias) at "
                         f"{loc(add_at)}."]
    assert "color=red" in attrs
    assert "color=red" in nodes["MulBackward0"][1]
    assert "color=red" not in nodes["SumBackward0"][1]
    assert "color=red" not in nodes["AccumulateGrad"][1]


def test_explain_dot_freed_graph_is_marked():
    x = gradtrack.ones(2, requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    nodes, _ = _dot_nodes(gradtrack.autograd.explain(loss, format="dot"))
    lines, attrs = nodes["MulBackward0"]
    assert lines[2:] == ["saved an input: freed by a backward without retain_graph"] * 2
    assert lines[1].startswith("at ")
    assert "color=red" in attrs


def test_explain_dot_shows_locations():
    _, Z, pow_at, _ = seed_graph()
    assert loc(pow_at) in gradtrack.autograd.explain(Z, format="dot")


# ---- recording keeps no Python objects ----------------------------------------------------

def test_recording_costs_no_python_objects():
    x = gradtrack.ones(3, requires_grad=True)
    b = gradtrack.ones(3)
    c = b * x; saved = here()  # noqa: E702  (MulBackward0 saves b)

    def writes(n):
        for _ in range(n):
            b.add_(1)  # on b itself
            b.detach().mul_(1)  # through a detach() alias
            b[0].sub_(1)  # through a view
            y = x * 2  # a node, with its location
            y[1:].fill_(0)  # and a write on a non-leaf (a CopySlices node)

    writes(10)  # interns the few source locations
    code_refs = sys.getrefcount(writes.__code__)
    gc.collect()
    objects = len(gc.get_objects())
    tracemalloc.start()
    try:
        writes(2000)
        gc.collect()
        python_bytes, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    new_objects = len(gc.get_objects()) - objects
    new_code_refs = sys.getrefcount(writes.__code__) - code_refs  # e.g. one per write: a leak
    assert new_objects < 50
    assert python_bytes < 64 * 1024
    assert new_code_refs == 0
    # ... and it did record: the last writes are named, with their lines
    with pytest.raises(RuntimeError) as info:
        c.sum().backward()
    line = writes.__code__.co_firstlineno
    assert info.value.__notes__ == [
        f"{saved_by('MulBackward0', saved)}, then changed in place {3 * 2010 - 4} times (not "
        f"recorded), then by sub_ (through a view) at {loc(line + 4)}, then by add_ at "
        f"{loc(line + 2)}, then by mul_ (through a detach() alias) at {loc(line + 3)}, then by "
        f"sub_ (through a view) at {loc(line + 4)}."]


# ---- the site tables stay bounded (NOTE [Bounded site tables]) ------------------------------

SNIPPETS_CHILD = """
import gc, os, sys
import gradtrack
x = gradtrack.ones(3, requires_grad=True)
ns = {"x": x}
def run(lo, hi):
    for i in range(lo, hi):
        # each snippet is a new code object and source line, and records a node that saves x
        exec(compile(f"y = x * x  # {i}", f"<snippet {i}>", "exec"), ns)
run(0, 2000)
gc.collect()
def rss():  # resident pages, from the kernel (Linux)
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
before = rss()
run(2000, int(sys.argv[1]))
gc.collect()
print((rss() - before) / 2**20)
"""


def test_exec_in_a_loop_keeps_no_code_objects_alive():
    # 100 000 snippets grew RSS by 52 MiB when every code object was kept; with
    # the capped tables it is ~2 MiB (torch: 0).
    import subprocess
    out = subprocess.run([sys.executable, "-c", SNIPPETS_CHILD, "100000"], capture_output=True,
                         text=True, timeout=300, env=env_for_rss_child())
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) < 12


def test_a_site_forgotten_by_the_capped_table_is_unknown_not_another():
    x = gradtrack.ones(3, requires_grad=True)
    b = gradtrack.ones(3)
    c = b * x
    ns = {"x": x}
    for i in range(17000):  # more distinct lines than the table holds
        exec(compile(f"y = x * x  # {i}", f"<snippet {i}>", "exec"), ns)
    b.add_(1)
    with pytest.raises(RuntimeError) as info:
        c.sum().backward()
    (note,) = info.value.__notes__
    assert "for the call at an unknown location" in note
    assert "<snippet" not in note
    # ... and sites interned since are named again
    y = b * x; line = here()  # noqa: E702
    b.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert loc(line) in info.value.__notes__[0]
