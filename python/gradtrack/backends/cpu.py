"""``torch.backends.cpu``: the SIMD level this CPU offers.

>>> import gradtrack
>>> gradtrack.backends.cpu.get_cpu_capability() in ("DEFAULT", "AVX2", "AVX512")
True
"""


def get_cpu_capability():
    """"DEFAULT", "AVX2" or "AVX512", as torch names the vector level of this CPU.

    >>> import gradtrack
    >>> isinstance(gradtrack.backends.cpu.get_cpu_capability(), str)
    True
    """
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line for line in f if line.startswith("flags")), "").split()
    except OSError:
        return "DEFAULT"
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= set(flags):
        return "AVX512"
    if {"avx2", "fma"} <= set(flags):
        return "AVX2"
    return "DEFAULT"
