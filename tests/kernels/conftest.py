import pytest

import gradtrack as gt


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    """Each test on one thread and on two (the kernels split work differently)."""
    old = gt.get_num_threads()
    gt.set_num_threads(request.param)
    yield request.param
    gt.set_num_threads(old)
