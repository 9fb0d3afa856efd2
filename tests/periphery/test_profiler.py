"""The profiler against torch 2.13's: the ops, regions and backward nodes a profile
records (by torch's names), how events nest into self and total time, schedules and
``step()``, ``on_trace_ready``, the table's layout and the Chrome trace.
NOTE [What the profiler times]."""

import json

import pytest

import gradtrack

torch = pytest.importorskip("torch")


def _mlp_profile(lib, **kwargs):
    lib.manual_seed(0)
    model = lib.nn.Linear(8, 4)
    x = lib.ones(16, 8)
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], **kwargs) as prof:
        with lib.profiler.record_function("model_inference"):
            y = model(x).relu().sum()
        y.backward()
    return prof


def test_records_the_ops_regions_and_backward_nodes_torch_names():
    mine = {e.key: e.count for e in _mlp_profile(gradtrack).key_averages()}
    theirs = {e.key.replace("torch::", "gradtrack::"): e.count
              for e in _mlp_profile(torch).key_averages()}
    assert "aten::backward" not in mine
    for key in ("model_inference", "aten::linear", "aten::relu", "aten::sum",
                "autograd::engine::evaluate_function: AddmmBackward0",
                "autograd::engine::evaluate_function: ReluBackward0",
                "autograd::engine::evaluate_function: SumBackward0",
                "autograd::engine::evaluate_function: gradtrack::autograd::AccumulateGrad"):
        assert key in mine, key
        if key in theirs and not key.startswith("aten::sum"):  # torch's backward calls sum too
            assert mine[key] == theirs[key], key


def test_events_nest_into_self_and_total_time():
    events = _mlp_profile(gradtrack).events()
    region = next(e for e in events if e.key == "model_inference")
    inside = {c.key for c in region.cpu_children}
    assert {"aten::linear", "aten::relu", "aten::sum"} <= inside
    assert region.is_user_annotation
    assert region.self_cpu_time_total == pytest.approx(
        region.cpu_time_total - sum(c.cpu_time_total for c in region.cpu_children))
    assert all(0 <= e.self_cpu_time_total <= e.cpu_time_total for e in events)
    averages = _mlp_profile(gradtrack).key_averages()
    total = sum(e.self_cpu_time_total for e in averages)
    assert total == pytest.approx(averages.self_cpu_time_total)


def _table_shape(lib, **kwargs):
    prof = _mlp_profile(lib, record_shapes=True)
    text = prof.key_averages(**kwargs).table(sort_by="cpu_time_total", row_limit=3)
    lines = text.splitlines()
    return ([line.split("  ") and line.strip().split()[0] if i in (0, 2) else None
             for i, line in enumerate(lines[:3])], lines[1].split(), len(lines),
            lines[-1].startswith("Self CPU time total: ") or lines[-2].startswith("Self CPU"))


@pytest.mark.parametrize("grouped", [False, True])
def test_table_layout_matches_torch(grouped):
    kwargs = {"group_by_input_shape": True} if grouped else {}
    assert _table_shape(gradtrack, **kwargs) == _table_shape(torch, **kwargs)


def _scheduled(lib):
    seen = []
    sched = lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=2)
    x = lib.ones(4, 4)
    with lib.profiler.profile(schedule=sched, on_trace_ready=lambda p: seen.append(
            (p.step_num, sum(e.count for e in p.key_averages() if e.key == "aten::exp")))) as p:
        for _ in range(10):
            x.exp()
            p.step()
    return seen, [sched(i).name for i in range(10)]


def test_schedule_and_on_trace_ready_as_torch():
    assert _scheduled(gradtrack) == _scheduled(torch)


def test_schedule_skip_first_as_torch():
    for kwargs in ({"wait": 2, "warmup": 1, "active": 1, "skip_first": 3},
                   {"wait": 2, "warmup": 0, "active": 3, "repeat": 1, "skip_first_wait": 1}):
        assert ([gradtrack.profiler.schedule(**kwargs)(i).name for i in range(12)]
                == [torch.profiler.schedule(**kwargs)(i).name for i in range(12)])


def test_chrome_trace_and_tensorboard_handler(tmp_path):
    prof = _mlp_profile(gradtrack)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {"model_inference", "aten::linear"} <= {e["name"] for e in complete}
    assert all(e["dur"] >= 0 for e in complete)
    assert {e["ph"] for e in trace["traceEvents"]} == {"M", "X", "i"}
    with gradtrack.profiler.profile(on_trace_ready=gradtrack.profiler.tensorboard_trace_handler(
            str(tmp_path / "tb"), worker_name="w")):
        gradtrack.ones(2).sum()
    (written,) = (tmp_path / "tb").iterdir()
    assert written.name.startswith("w.") and written.name.endswith(".pt.trace.json")


def test_legacy_autograd_profiler_as_torch():
    def scenario(lib):
        with lib.autograd.profiler.profile(record_shapes=True) as prof:
            lib.ones(3, 2).mul(2).sum()
        keys = [e.key for e in prof.key_averages()]
        return (type(prof.function_events).__name__, "aten::mul" in keys, "aten::sum" in keys,
                type(prof.total_average()).__name__, prof.self_cpu_time_total > 0)
    assert scenario(gradtrack) == scenario(torch)


def test_key_averages_before_the_profile_ran_raises_as_torch():
    for lib in (gradtrack, torch):
        with pytest.raises(AssertionError, match="Profiler must be initialized before getting"):
            lib.profiler.profile().key_averages()


def test_profiling_leaves_results_unchanged():
    def run():
        gradtrack.manual_seed(0)
        model = gradtrack.nn.Linear(8, 4)
        loss = model(gradtrack.ones(16, 8)).pow(2).mean()
        loss.backward()
        return loss.item(), model.weight.grad.tolist()
    plain = run()
    with gradtrack.profiler.profile():
        profiled = run()
    assert plain == profiled
