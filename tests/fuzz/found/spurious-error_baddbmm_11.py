"""Fuzz reproducer (seed 10043313): spurious-error at statement 0 (baddbmm): ember raises RuntimeError: expected m1 and m2 to have the same dtype, but got: float32 != int32

Run: python tests/fuzz/found/spurious-error_baddbmm_11.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v1 = m.baddbmm(m.tensor([[[], [], []]], dtype=m.float32).permute(1, 2, 0), m.tensor([[[1.82, -1, 3.25, 1.81]], [[-0.32, 1.06, 1.58, 2.25]], [[2.11, 4, 0.18, 2]], [[1.66, 2.5, -2, -1]]], dtype=m.float32)[0:3:1, 1:1:2, 1:4:1], m.tensor([[[0, 3, -6]], [[1, -4, 1]], [[-5, 0, 2]]], dtype=m.int32).permute(2, 0, 1))', 'out': 'v1', 'op': 'baddbmm'},
]

if __name__ == "__main__":
    main(PROGRAM)
