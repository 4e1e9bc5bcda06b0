"""Fuzz reproducer (seed 10043313): spurious-error at statement 1 (baddbmm): ember raises RuntimeError: expected m1 and m2 to have the same dtype, but got: float32 != int32

Run: python tests/fuzz/found/spurious-error_baddbmm_10.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([[-1, -2.75, 1.5, 2.12, -4.0, -2.74, -2.47, 2.84, 2.75, -2.7, -1.04], [3.25, -2.25, 2, 2.75, -0.75, 1.25, -3.0, -1.62, -2, -0.87, 1], [0.05, -1.51, 2.59, -3, -3.75, -3.75, -3, 3, 3, 0, 0], [0.45, -1, 3.75, -1, 2.49, 2.67, -3.75, -2.69, 2.61, -0.7, -4], [1, 0.5, -3.25, 2.25, -2, 3, -4, 0, 0.24, 4.0, -2.05], [-2.5, 2.26, -2.75, -1.36, 1, 0.0, -1.0, -1.21, 4, -0.75, -4], [4, -1.13, -2.25, 1.41, -2, 3.75, 0, 2, -2, 2, 0], [-1.66, 3, 0.92, -2.0, 1.51, 2.99, 3.25, 1.77, -1.79, 2, 4.0], [-2, 2.35, 4.0, -2.59, 3.75, 1.5, -3.75, -0.5, 2.31, 2.0, -0.5], [-0.5, -3.5, -4.0, 0.4, -0.86, -2.22, 1.13, 3.25, -3, -2, -2]], dtype=m.float32)[1:9:2, 1:11:2]', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v1 = m.baddbmm(m.tensor([[[], [], []]], dtype=m.float32).permute(1, 2, 0), m.tensor([[[1.82, -1, 3.25, 1.81]], [[-0.32, 1.06, 1.58, 2.25]], [[2.11, 4, 0.18, 2]], [[1.66, 2.5, -2, -1]]], dtype=m.float32)[0:3:1, 1:1:2, 1:4:1], m.tensor([[[0, 3, -6]], [[1, -4, 1]], [[-5, 0, 2]]], dtype=m.int32).permute(2, 0, 1))', 'out': 'v1', 'op': 'baddbmm'},
]

if __name__ == "__main__":
    main(PROGRAM)
