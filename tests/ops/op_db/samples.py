"""The sample sets several areas share (an area's own sets live in its module).

A sample set is a tuple of ``Sample``s, each a name (the test id's part) and one ``Arg``
per input. tests/ops/fuzz_op_table.py knows the elementwise, broadcasting, reduction and
shape-op sets by identity and draws random shapes of the same kind for them, so a row
uses these tuples themselves, not copies.
"""

from .rows import A, E, S, Step, T, Tr

UNARY = (
    S("0d", A()),
    S("1d", A(5)),
    S("2x3", A(2, 3)),
    S("empty", A(0, 3)),
    S("t", T(2, 3)),
    S("step", Step(2, 3)),
    S("expand", E((1, 3), (2, 3))),
)
UNARY_SMALL = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("0d", A()))

BINARY = (
    S("same", A(2, 3), A(2, 3)),
    S("bcast_row", A(2, 3), A(3)),
    S("bcast_outer", A(2, 1), A(1, 3)),
    S("bcast_3d", A(2, 1, 3), A(4, 1)),
    S("0d_2x3", A(), A(2, 3)),
    S("2x3_0d", A(2, 3), A()),
    S("0d_0d", A(), A()),
    S("empty", A(0, 3), A(3)),
    S("t_step", T(2, 3), Step(2, 3)),
    S("expand_same", E((1, 3), (2, 3)), A(2, 3)),
)
BINARY_SMALL = (S("same", A(2, 3), A(2, 3)), S("bcast_outer", A(2, 1), A(1, 3)),
                S("t_0d", T(2, 3), A()))

RED_ALL = (S("0d", A()), S("1d", A(4)), S("2x3", A(2, 3)), S("t", T(2, 3)),
           S("3d_tr", Tr((2, 3, 2), 0, 2)))
RED_ALL_EMPTY = RED_ALL + (S("empty", A(0, 3)),)
RED_DIM = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("3d", A(2, 3, 2)), S("step", Step(2, 3)))
RED_DIM_EMPTY = RED_DIM + (S("empty", A(0, 3)),)
SCAN = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("3d", A(2, 3, 2)), S("step", Step(2, 3)),
        S("empty", A(0, 3)))
STAT = (S("2x3", A(2, 3)), S("t", T(3, 4)), S("3d", A(2, 3, 4)), S("step", Step(3, 4)))
MATRIX = (S("3x4", A(3, 4)), S("t", T(4, 3)), S("batch", A(2, 3, 3)), S("step", Step(3, 4)))
SHAPE = (S("2x3", A(2, 3)), S("t", T(3, 4)), S("3d", A(2, 3, 2)), S("expand", E((1, 3), (2, 3))))
LOSS_PAIR = (S("3x4", A(3, 4), A(3, 4)), S("t", T(3, 4), A(3, 4)),
             S("bcast_0d", A(), A()))
V23 = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("step", Step(2, 3)), S("expand", E((1, 3), (2, 3))))
V23C = (S("2x3", A(2, 3)),)
V234 = (S("2x3x4", A(2, 3, 4)), S("tr", Tr((2, 3, 4), 0, 2)))
_CAST_SAMPLES = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("0d", A()), S("empty", A(0, 3)))
