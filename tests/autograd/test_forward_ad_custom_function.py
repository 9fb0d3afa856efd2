"""Forward-mode AD of custom autograd Functions: ``jvp`` with save_for_forward and
mark_dirty, the errors a Function without (or with a wrong) jvp raises in torch's words,
and a Function called without tangents, which skips jvp; compared with torch 2.13.
"""

import numpy as np

import gradtrack

from forward_ad_checks import np_of
from helpers import raised


def _functions(lib):
    fw = lib.autograd.forward_ad
    Function = lib.autograd.Function
    seen = []

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(fw.unpack_dual(a).tangent is None)
            ctx.save_for_forward(a, b)
            ctx.k = k
            return a * b * k

        @staticmethod
        def jvp(ctx, ta, tb, tk):
            a, b = ctx.saved_tensors
            seen.append((np_of(tb), tk))
            return (ta * b + a * tb) * ctx.k

        @staticmethod
        def backward(ctx, g):
            return g, g, None

    class Two(Function):
        @staticmethod
        def forward(a):
            return a * 2, a.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(output[1])

        @staticmethod
        def jvp(ctx, ta):
            (e,) = ctx.saved_tensors
            return ta * 2, ta * e

    class Dirty(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.mark_dirty(a)
            return a.mul_(2)

        @staticmethod
        def jvp(ctx, ta):
            return ta.mul_(2)

    class View(Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def jvp(ctx, ta):
            return ta.view_as(ta)

    return seen, Mul, Two, Dirty, View


def test_custom_function_jvp(torch):
    def run(lib):
        fw = lib.autograd.forward_ad
        seen, Mul, Two, Dirty, View = _functions(lib)
        out = []
        with fw.dual_level():
            a = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 0.5]))
            y = Mul.apply(a, lib.tensor([3.0, 4.0]), 2)
            out += [np_of(fw.unpack_dual(y).tangent), y.grad_fn is None]
            p, q = Two.apply(a)
            out += [np_of(fw.unpack_dual(p).tangent), np_of(fw.unpack_dual(q).tangent)]
            t = lib.tensor([1.0, 5.0])
            x = fw.make_dual(lib.tensor([1.0, 2.0]), t)
            x2 = x.clone()
            tan0 = fw.unpack_dual(x2).tangent
            v0 = x2._version
            r = Dirty.apply(x2)
            out += [r is x2, x2._version - v0, fw.unpack_dual(r).tangent is tan0, np_of(tan0)]
            r = View.apply(x)
            out += [r is x, np_of(fw.unpack_dual(r).tangent), fw.unpack_dual(r).tangent._base is t]
            z = lib.tensor([1.0, 2.0], requires_grad=True)
            yz = Mul.apply(fw.make_dual(z, lib.ones(2)), lib.tensor([3.0, 4.0]), 1)
            tz = fw.unpack_dual(yz).tangent
            out += [type(yz.grad_fn).__name__, tz.requires_grad, np_of(tz)]
        out.append(seen)
        return out

    ours, theirs = run(gradtrack), run(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if isinstance(b, np.ndarray):
            np.testing.assert_allclose(a, b)
        elif isinstance(b, list):
            assert len(a) == len(b)
            for u, w in zip(a, b):
                assert (u[1] == w[1] and np.allclose(u[0], w[0])) if isinstance(w, tuple) else u == w
        else:
            assert a == b


def test_custom_function_jvp_errors(torch):
    def run(lib):
        fw = lib.autograd.forward_ad
        Function = lib.autograd.Function

        def fn(forward, jvp=None, dirty=False):
            def fwd(ctx, a):
                if dirty:
                    ctx.mark_dirty(a)
                    return a.mul_(2)
                return forward(a)
            attrs = {"forward": staticmethod(fwd)}
            if jvp is not None:
                attrs["jvp"] = staticmethod(lambda ctx, ta: jvp(ta))
            return type("F", (Function,), attrs)

        cases = [
            fn(lambda a: a * 2),  # no jvp
            fn(lambda a: a * 2, lambda ta: (ta, ta)),
            fn(lambda a: (a * 2, a * 3), lambda ta: ta),
            fn(lambda a: a * 2, lambda ta: ta[:1]),
            fn(lambda a: a * 2, lambda ta: 3),
            fn(lambda a: a, lambda ta: ta),  # an input as-is: the jvp must return a view
            fn(None, lambda ta: ta * 2, dirty=True),  # must modify the tangent in place
        ]
        out = []
        with fw.dual_level():
            x = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 5.0]))
            for F in cases:
                out.append(raised(lambda F=F: F.apply(x.clone() if F is cases[-1] else x), lib))

            class Saver(Function):
                @staticmethod
                def forward(ctx, a):
                    ctx.save_for_forward(3)
                    return a

            out.append(raised(lambda: Saver.apply(x), lib))
        return out

    assert run(gradtrack) == run(torch)


def test_custom_function_without_tangents_skips_jvp(torch):
    def run(lib):
        fw = lib.autograd.forward_ad
        seen, Mul, *_ = _functions(lib)
        with fw.dual_level():
            y = Mul.apply(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]), 2)
            return np_of(y), fw.unpack_dual(y).tangent is None, seen

    ours, theirs = run(gradtrack), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0])
    assert ours[1:] == theirs[1:]
