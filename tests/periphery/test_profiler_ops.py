"""What a profile records for each op, against torch 2.13's: operator slots (``a + b``,
``a @ b``, ``-a``, ``a[i]``, ``a += b``) named and counted as torch's, every input's shape
with ``record_shapes=True``, backward nodes inside the engine's events, the table grouped
by input shape, the Chrome trace's layout; and that closing a profile puts every op back
as it was. NOTE [What the profiler times], NOTE [Profiled ops are swapped in]."""

import json
import re

import pytest

import gradtrack
import gradtrack.nn.functional
import gradtrack.optim
import gradtrack.profiler
import gradtrack.utils.data

torch = pytest.importorskip("torch")


def _profile(lib, program, **kwargs):
    lib.manual_seed(0)
    state = program(lib, None)
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], **kwargs) as prof:
        program(lib, state)
    return prof


def _top_level(prof):
    return [(e.name, e.input_shapes) for e in prof.events() if e.cpu_parent is None]


def _slots(lib, state):
    if state is None:
        return lib.randn(2, 3), lib.randn(3, 4), lib.randn(2, 3)
    a, b, c = state
    _ = a + c
    _ = a @ b
    _ = -a
    _ = a[0]
    _ = a[:, 1]
    _ = a[1:]
    _ = a[None]
    a += c
    a -= 1
    a *= c
    a /= 2
    _ = a * 2
    _ = 2 - a
    _ = a / c
    _ = a ** 2
    _ = a > c
    _ = a == c
    _ = abs(a)
    return None


def test_operator_slots_are_timed_and_named_as_torch():
    mine = _profile(gradtrack, _slots, record_shapes=True)
    theirs = _profile(torch, _slots, record_shapes=True)
    assert _top_level(mine) == _top_level(theirs)
    assert [name for name, _ in _top_level(mine)][:8] == [
        "aten::add", "aten::matmul", "aten::neg", "aten::select", "aten::select",
        "aten::slice", "aten::unsqueeze", "aten::add_"]
    assert all(e.cpu_time_total > 0 for e in mine.events())


def test_without_record_shapes_no_shapes_as_torch():
    mine = _profile(gradtrack, _slots)
    assert [name for name, _ in _top_level(mine)] == [
        name for name, _ in _top_level(_profile(torch, _slots))]
    assert all(e.input_shapes == [] for e in mine.events())


def _indexing(lib, state):
    if state is None:
        return lib.arange(12.0).reshape(3, 4), lib.tensor([0, 2]), lib.ones(2, 4)
    a, idx, rows = state
    _ = a[idx]
    _ = a[..., 0]
    a[idx] = rows
    a.unsqueeze_(0)
    a.squeeze_(0)
    a.add_(1, alpha=2)
    a.mul_(a)
    a.zero_()
    return None


def test_indexing_and_in_place_ops_as_torch():
    mine = _top_level(_profile(gradtrack, _indexing, record_shapes=True))
    theirs = _top_level(_profile(torch, _indexing, record_shapes=True))
    # torch wraps the index list first (aten::lift_fresh and friends): compare the ops
    theirs = [(n, s) for n, s in theirs if n in {n for n, _ in mine}]
    assert mine == theirs
    assert ("aten::index_put_", [[3, 4], [], [2, 4], []]) in mine


def _mlp(lib, state):
    if state is None:
        return (lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2)),
                lib.randn(5, 3))
    net, x = state
    with lib.profiler.record_function("forward"):
        loss = lib.nn.functional.cross_entropy(net(x), lib.tensor([0, 1, 0, 1, 1]))
    loss.backward()
    return None


def _groups(prof):
    return {(e.key, str(e.input_shapes)): e.count
            for e in prof.key_averages(group_by_input_shape=True)}


def test_every_input_shape_is_recorded_and_grouped_as_torch():
    mine = _groups(_profile(gradtrack, _mlp, record_shapes=True))
    theirs = {(key.replace("torch::", "gradtrack::"), shapes): count
              for (key, shapes), count in _groups(_profile(torch, _mlp, record_shapes=True)).items()}
    for group in (("aten::linear", "[[5, 3], [4, 3], [4]]"),
                  ("aten::linear", "[[5, 4], [2, 4], [2]]"),
                  ("aten::relu", "[[5, 4]]"),
                  ("aten::cross_entropy_loss", "[[5, 2], [5], [], [], [], []]"),
                  ("AddmmBackward0", "[[5, 2]]"),
                  ("gradtrack::autograd::AccumulateGrad", "[[4, 3]]")):
        assert group in mine, group
    missing = {g: c for g, c in mine.items() if theirs.get(g) != c}
    assert missing == {}


def test_backward_nodes_nest_in_the_engine_events_as_torch():
    def nodes(prof):
        return [(e.name, [c.name for c in e.cpu_children][:1], e.cpu_children[0].input_shapes)
                for e in prof.events() if e.name.startswith("autograd::engine::")]
    mine = nodes(_profile(gradtrack, _mlp, record_shapes=True))
    theirs = [(n.replace("torch::", "gradtrack::"), [c.replace("torch::", "gradtrack::")
                                                     for c in children], shapes)
              for n, children, shapes in nodes(_profile(torch, _mlp, record_shapes=True))]
    assert mine == theirs
    region = next(e for e in _profile(gradtrack, _mlp).events() if e.name == "forward")
    assert [c.name for c in region.cpu_children] == [
        "aten::linear", "aten::relu", "aten::linear", "aten::cross_entropy_loss"]


def _rows(table):
    """(name, input shapes) of each row of a table grouped by input shape."""
    lines = table.splitlines()
    rows = []
    for line in lines[3:]:
        if line.startswith("-"):
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows.append((cells[0], cells[-1]))
    return lines[1].split(), rows


def test_table_grouped_by_input_shape_as_torch():
    mine = _profile(gradtrack, _slots, record_shapes=True)
    theirs = _profile(torch, _slots, record_shapes=True)
    header, rows = _rows(mine.key_averages(group_by_input_shape=True).table())
    their_header, their_rows = _rows(theirs.key_averages(group_by_input_shape=True).table())
    assert header == their_header
    assert header[-2:] == ["Input", "Shapes"]
    assert [r for r in their_rows if r in rows] == rows
    assert ("aten::matmul", "[[2, 3], [3, 4]]") in rows


def test_closing_a_profile_puts_every_op_back():
    def snapshot():
        return (dict(vars(gradtrack._C.Tensor)), dict(vars(gradtrack)),
                dict(vars(gradtrack.nn.functional)), gradtrack._C._active_number_slots())
    before = snapshot()
    with pytest.raises(ZeroDivisionError):
        with gradtrack.profiler.profile():
            assert gradtrack._C.Tensor.__dict__["__add__"] is not before[0]["__add__"]
            1 / 0
    after = snapshot()
    for old, new in zip(before[:3], after[:3]):
        assert old.keys() == new.keys()
        assert [k for k in old if old[k] is not new[k]] == []
    assert after[3] == before[3] == ["__add__", "__sub__", "__mul__", "__truediv__"]


def test_profiled_ops_behave_as_unprofiled():
    def run(profiled):
        gradtrack.manual_seed(0)
        x = gradtrack.randn(4, 3, requires_grad=True)
        if profiled:
            with gradtrack.profiler.profile(record_shapes=True):
                y = ((x * 2 + 1) @ x.T)[1:].relu().sum()
                y.backward()
                seen = {x: 1}[x]
        else:
            y = ((x * 2 + 1) @ x.T)[1:].relu().sum()
            y.backward()
            seen = 1
        return y.item(), x.grad.tolist(), y.grad_fn.name(), seen
    assert run(True) == run(False)


def _trace(lib, tmp_path):
    def program(lib, state):
        if state is None:
            return lib.ones(2, 3, requires_grad=True)
        with lib.profiler.record_function("region"):
            y = (state * 2).sum()
        y.backward()
    prof = _profile(lib, program, record_shapes=True)
    path = tmp_path / f"{lib.__name__}.json"
    prof.export_chrome_trace(str(path))
    return json.loads(path.read_text())


def test_chrome_trace_layout_as_torch(tmp_path):
    mine, theirs = _trace(gradtrack, tmp_path), _trace(torch, tmp_path)
    assert mine.keys() == theirs.keys()
    assert mine["record_shapes"] == theirs["record_shapes"] == 1

    def meta(trace):
        return [(e["name"], e["tid"] != 0) for e in trace["traceEvents"] if e["ph"] == "M"
                and isinstance(e["pid"], int)]
    assert sorted(set(meta(mine))) == sorted(set(meta(theirs)))

    def op(trace, name):
        return next(e for e in trace["traceEvents"] if e["ph"] == "X" and e["name"] == name)
    for name in ("region", "aten::mul", "aten::sum"):
        ours, torchs = op(mine, name), op(theirs, name)
        assert ours["cat"] == torchs["cat"]
        assert set(ours["args"]) == set(torchs["args"]) - {
            "Concrete Inputs", "Sequence number", "Fwd thread id"}
        assert ours["args"].get("Input Dims") == torchs["args"].get("Input Dims")
    assert op(mine, "aten::sum")["args"]["Input type"] == op(theirs, "aten::sum")["args"][
        "Input type"]
    assert [e["args"]["Ev Idx"] for e in mine["traceEvents"] if e["ph"] == "X"] == list(
        range(sum(e["ph"] == "X" for e in mine["traceEvents"])))


def _training(lib, state):
    if state is None:
        model = lib.nn.Linear(2, 1)

        class MySGD(lib.optim.SGD):
            pass
        data = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.ones(4, 2)),
                                         batch_size=2)
        return model, lib.optim.SGD(model.parameters(), lr=0.1), MySGD(
            model.parameters(), lr=0.1), data
    model, sgd, mine, data = state
    for (x,) in data:
        sgd.zero_grad()
        model(x).sum().backward()
        sgd.step()
        mine.step()
        mine.zero_grad()
    return None


def test_optimizer_and_data_loader_regions_as_torch():
    def regions(lib):
        prof = _profile(lib, _training)
        return [(e.name, e.is_user_annotation, [c.name for c in e.cpu_children
                                                if c.name == "aten::add_"])
                for e in prof.events() if e.cpu_parent is None
                and not e.name.startswith(("aten::", "autograd::"))]
    mine = regions(gradtrack)
    assert mine == regions(torch)
    assert ("Optimizer.step#MySGD.step", True, ["aten::add_", "aten::add_"]) in mine


def _cnn(lib, state):
    if state is None:
        return lib.nn.Sequential(lib.nn.Conv2d(1, 4, 3), lib.nn.ReLU(), lib.nn.MaxPool2d(2),
                                 lib.nn.Flatten(), lib.nn.Linear(36, 3)), lib.randn(2, 1, 8, 8)
    net, x = state
    lib.nn.functional.log_softmax(net(x), dim=1)
    return None


def test_layers_record_their_ops_as_torch():
    mine = _groups(_profile(gradtrack, _cnn, record_shapes=True))
    theirs = _groups(_profile(torch, _cnn, record_shapes=True))
    for group in (("aten::conv2d", "[[2, 1, 8, 8], [4, 1, 3, 3], [4], [], [], [], []]"),
                  ("aten::max_pool2d", "[[2, 4, 6, 6], [], [], [], [], []]"),
                  ("aten::linear", "[[2, 36], [3, 36], [3]]"),
                  ("aten::log_softmax", "[[2, 3], [], []]")):
        assert mine.get(group) == theirs.get(group) == 1, group
    assert {g: c for g, c in mine.items() if theirs.get(g) != c} == {}


def _allocating(lib, state):
    if state is None:
        return lib.nn.Linear(64, 64), lib.randn(32, 64)
    model, x = state
    y = model(x).relu()
    _ = y * 2
    return None


def test_profile_memory_counts_each_op_allocations_as_torch():
    def memory(lib):
        prof = _profile(lib, _allocating, profile_memory=True)
        return [(e.name, e.cpu_memory_usage) for e in prof.events()
                if e.cpu_parent is None and e.name.startswith("aten::")]
    assert memory(gradtrack) == memory(torch) == [
        ("aten::linear", 8192), ("aten::relu", 8192), ("aten::mul", 8192)]
    for lib in (gradtrack, torch):
        assert all(e.cpu_memory_usage == 0 for e in _profile(lib, _allocating).events())


@pytest.mark.parametrize("sort_by", ["self_cpu_memory_usage", "cpu_memory_usage",
                                     "cuda_time_total", "self_device_time_total", "count"])
@pytest.mark.parametrize("profile_memory", [False, True])
def test_table_columns_and_sort_keys_as_torch(sort_by, profile_memory):
    def header(lib):
        prof = _profile(lib, _allocating, profile_memory=profile_memory)
        table = prof.key_averages().table(sort_by=sort_by, row_limit=2)
        return re.split(r"\s{2,}", table.splitlines()[1].strip())
    assert header(gradtrack) == header(torch)
    assert ("CPU Mem" in header(gradtrack)) == profile_memory


def test_table_memory_cells_as_torch():
    prof = _profile(gradtrack, _allocating, profile_memory=True)
    table = prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=1)
    row = re.split(r"\s{2,}", table.splitlines()[3].strip())
    assert row[0] in ("aten::addmm", "aten::relu", "aten::mul")  # linear allocates in addmm
    assert row[-3:] == ["8.00 KB", "8.00 KB", "1"]
    for lib in (gradtrack, torch):
        averages = _profile(lib, _allocating).key_averages()
        with pytest.raises(AttributeError,
                           match="'FunctionEventAvg' object has no attribute 'cpu_speed'"):
            averages.table(sort_by="cpu_speed")


def test_schedule_checks_and_warnings_as_torch():
    for lib in (gradtrack, torch):
        with pytest.warns(UserWarning, match="^Profiler won't be using warmup, this can skew"):
            lib.profiler.schedule(wait=1, warmup=0, active=1)
    messages = []
    for lib in (gradtrack, torch):
        with pytest.raises(AssertionError) as info:
            lib.profiler.schedule(wait=-1, warmup=1, active=0)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith("Invalid profiler schedule arguments. Got wait=-1 (need >= 0)")


def test_export_stacks_and_event_stacks_as_torch(torch, tmp_path):
    # torch 2.13 with its default configuration keeps no Python frames even with
    # with_stack=True: every event's stack is empty and export_stacks writes an empty
    # file; without with_stack, or with another metric, it raises.
    import importlib

    def scenario(lib):
        prof = importlib.import_module(lib.__name__ + ".profiler")
        legacy = importlib.import_module(lib.__name__ + ".autograd.profiler")
        x = lib.ones(4, 4, requires_grad=True)
        seen = []
        for make in (lambda ws: prof.profile(activities=[prof.ProfilerActivity.CPU],
                                             with_stack=ws),
                     lambda ws: legacy.profile(with_stack=ws)):
            for with_stack in (True, False):
                with make(with_stack) as p:
                    (x @ x).sum().backward()
                path = tmp_path / f"{lib.__name__}_{with_stack}.txt"
                outcome = []
                for metric in ("self_cpu_time_total", "cpu_time"):
                    try:
                        p.export_stacks(str(path), metric)
                        outcome.append(("written", path.read_text()))
                    except (AssertionError, ValueError) as exc:
                        outcome.append((type(exc).__name__, str(exc)))
                mm = [e for e in (p.events() if hasattr(p, "events") else p.function_events)
                      if e.name == "aten::mm"]
                seen.append((with_stack, [list(e.stack) for e in mm], outcome))
        return seen

    assert scenario(gradtrack) == scenario(torch)
