#!/usr/bin/env python3
# File: suites/docs/numpy_baseline.py
# The numpy baseline of the DOCS CPU speed target: the same steps as
# docs/cpu (normalise columns, X^T Y in fp32, row and column abs-max) with
# numpy on the same OpenBLAS. Not run by CI; needs Debian's python3-numpy:
#   /usr/bin/python3 suites/docs/numpy_baseline.py 4096
# and compare with `claimbench bench --filter 'docs/cpu/4096$'`.
import sys
import time

import numpy as np


def docs_maxima(x, y):
    xn = x / np.linalg.norm(x.astype(np.float64), axis=0).astype(np.float32)
    yn = y / np.linalg.norm(y.astype(np.float64), axis=0).astype(np.float32)
    c = np.abs(xn.T @ yn)
    return c.max(axis=1), c.max(axis=0)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    rng = np.random.default_rng(2025)
    x = rng.standard_normal((n, n), dtype=np.float32)
    y = rng.standard_normal((n, n), dtype=np.float32)
    docs_maxima(x, y)  # warm-up
    seconds = []
    for _ in range(reps):
        start = time.perf_counter()
        docs_maxima(x, y)
        seconds.append(time.perf_counter() - start)
    seconds.sort()
    median = seconds[len(seconds) // 2]
    print(f"numpy {np.__version__} DOCS maxima n={n}: median {median:.3f} s over {reps} "
          f"(min {seconds[0]:.3f}), {2 * n**3 / median / 1e9:.1f} GFLOP/s")


if __name__ == "__main__":
    main()
