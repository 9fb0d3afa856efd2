"""Autograd graphs as pictures: explain(format="svg"/"png") and make_dot."""

import shutil

import pytest

import gradtrack

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot program is not installed")


def stale_graph():
    w = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = w * 1
    c = b * b
    b.add_(1)
    return c.sum()


def test_dot_marks_stale_saved_tensor_with_the_write_that_changed_it():
    dot = gradtrack.autograd.explain(stale_graph(), format="dot")
    stale = [line for line in dot.splitlines() if "color=red" in line]
    assert len(stale) == 1 and stale[0].count("MODIFIED: backward will fail") == 2
    assert "It was saved by MulBackward0 for the call at " in stale[0]
    assert "then changed in place by add_ at " in stale[0]


def test_dot_without_provenance_still_marks_but_names_no_write():
    with gradtrack.autograd.set_provenance(False):
        dot = gradtrack.autograd.explain(stale_graph(), format="dot")
    assert "color=red" in dot and "changed in place by" not in dot


@needs_dot
def test_explain_svg_is_a_string_jupyter_shows_inline():
    svg = gradtrack.autograd.explain(stale_graph(), format="svg")
    assert isinstance(svg, str) and svg._repr_svg_() == svg
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert 'stroke="red"' in svg and "changed in place by add_" in svg


@needs_dot
def test_explain_png_is_png_bytes():
    png = gradtrack.autograd.explain(stale_graph(), format="png")
    assert isinstance(png, bytes) and png[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_dot_says_how_to_install(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="apt install graphviz"):
        gradtrack.autograd.explain(stale_graph(), format="svg")
    # The text forms need nothing installed.
    assert gradtrack.autograd.explain(stale_graph(), format="dot").startswith("digraph")


def test_bad_format_is_a_value_error():
    with pytest.raises(ValueError, match="format must be 'text', 'dot', 'svg' or 'png', got 'jpg'"):
        gradtrack.autograd.explain(stale_graph(), format="jpg")


def test_make_dot_names_parameters_and_takes_torchviz_arguments():
    model = gradtrack.nn.Sequential(gradtrack.nn.Linear(3, 2), gradtrack.nn.ReLU())
    out = model(gradtrack.ones(4, 3)).sum()
    graph = gradtrack.autograd.make_dot(out, params=dict(model.named_parameters()),
                                        show_attrs=True, show_saved=True)
    assert "0.weight (2, 3)" in graph.source and "0.bias (2,)" in graph.source
    assert "saved " in graph.source
    plain = gradtrack.autograd.make_dot(out)
    assert "saved " not in plain.source and "AccumulateGrad" in plain.source


@needs_dot
def test_make_dot_renders_to_a_file(tmp_path):
    w = gradtrack.ones(2, requires_grad=True)
    path = gradtrack.autograd.make_dot((w * 2).sum()).render(str(tmp_path / "g"), format="png")
    assert path.endswith("g.png") and (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
