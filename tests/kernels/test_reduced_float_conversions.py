"""float32 <-> float16 / bfloat16 conversions: the vector loops of dense runs give the
bits of the scalar conversions (which strided runs use) and of torch's.

NOTE [Conversions in vectors] in csrc/kernels/reduced_float.cpp: dense runs go through
branch-free loops and the CPU's float16 instructions; a strided view takes the scalar
path, so comparing the two covers every word and the float32 edge cases.
"""

import numpy as np
import pytest

import gradtrack

EDGES = np.array([
    0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC12345, 0x7FBFFFFF,
    0x477FF000, 0x477FEFFF, 0x477FE000, 0x33000000, 0x33000001, 0x387FFFFF, 0x38800000,
    0x00000001, 0x807FFFFF, 0x3F808000, 0x3F818000, 0x3F80C000, 0x7F7FFFFF, 0xC77FF000,
], dtype=np.uint32)


def _float_bits():
    rng = np.random.RandomState(0)
    high = rng.randint(0, 2**16, 20000).astype(np.uint32) << 16
    return np.concatenate([
        EDGES,
        rng.randint(0, 2**32, 200000, dtype=np.uint64).astype(np.uint32),
        high | 0x8000, high | 0x7FFF, high | 0x8001,  # bfloat16 ties and near-ties
        (rng.randint(0, 2**19, 20000).astype(np.uint32) << 13) | 0x1000,  # float16 ties
    ])


def _strided(a):
    """The same values in a view whose elements are 2 apart (the scalar path)."""
    return gradtrack.tensor(np.stack([a, a], 1))[:, 0]


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
@pytest.mark.parametrize("length", [1, 15, 16, 17, 33])
def test_to_reduced_dense_equals_scalar(dt, length):
    bits = _float_bits()
    bits = bits[: len(bits) // length * length]  # lengths exercise the tails
    f = bits.view(np.float32)
    target = getattr(gradtrack, dt)
    dense = gradtrack.tensor(f).reshape(-1, length).to(target).view(gradtrack.int16).numpy()
    scalar = _strided(f).to(target).view(gradtrack.int16).numpy()
    assert dense.ravel().tobytes() == scalar.tobytes()


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
def test_every_word_widens_as_the_scalar_conversion(dt):
    words = np.arange(65536, dtype=np.uint16).view(np.int16)
    source = getattr(gradtrack, dt)
    dense = gradtrack.tensor(words).view(source).float().numpy().view(np.uint32)
    scalar = _strided(words).view(source).float().numpy().view(np.uint32)
    assert dense.tobytes() == scalar.tobytes()
    # signaling float16 NaNs keep their payload without the quiet bit
    if dt == "float16":
        assert dense[0x7C01] == 0x7F802000


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
def test_conversions_match_torch(torch, dt):
    f = _float_bits().view(np.float32)
    ours = gradtrack.tensor(f).to(getattr(gradtrack, dt)).view(gradtrack.int16).numpy()
    theirs = torch.tensor(f).to(getattr(torch, dt)).view(torch.int16).numpy()
    finite = ~np.isnan(f)  # NaN payloads: torch's vector and scalar paths differ themselves
    assert ours[finite].tobytes() == theirs[finite].tobytes()
    assert np.isnan(gradtrack.tensor(ours).view(getattr(gradtrack, dt)).float().numpy()[~finite]).all()
    words = np.arange(65536, dtype=np.uint16).view(np.int16)
    back = gradtrack.tensor(words).view(getattr(gradtrack, dt)).float().numpy()
    tback = torch.tensor(words).view(getattr(torch, dt)).float().numpy()
    keep = ~np.isnan(tback)
    assert back[keep].tobytes() == tback[keep].tobytes()
