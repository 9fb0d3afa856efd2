"""``python -m gradtrack`` and ``gradtrack.__config__``: what a bug report starts with."""

import os
import subprocess
import sys

import gradtrack


def test_python_m_gradtrack_prints_version_blas_threads_and_build():
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-m", "gradtrack"], capture_output=True, text=True,
                         timeout=120, env=env, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == f"gradtrack {gradtrack.__version__}"
    assert any(line.startswith("  - BLAS: OpenBLAS from scipy-openblas32, core ") for line in lines)
    assert any(line.startswith("  - SIMD kernels: ") for line in lines)
    assert any(line.startswith("  - Build: ") for line in lines)
    assert "gradtrack.get_num_threads() : 1" in lines
    assert "OMP_NUM_THREADS : 1" in lines


def test_config_reports_current_thread_count():
    before = gradtrack.get_num_threads()
    try:
        gradtrack.set_num_threads(1)
        assert "gradtrack.get_num_threads() : 1" in gradtrack.__config__.parallel_info()
    finally:
        gradtrack.set_num_threads(before)
    assert f"gradtrack.get_num_threads() : {before}" in gradtrack.__config__.parallel_info()
