"""Fuzz reproducer (seed 10018442): grad_fn at statement 1 (matmul): grad_fn ViewBackward0 vs torch UnsafeViewBackward0

Run: python tests/fuzz/found/grad_fn_matmul_4.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([-1.0], dtype=m.float32, requires_grad=True)', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v2 = m.matmul(v0, m.tensor([[[-1.75, -3.5, -4], [-1, 1.5, -0.6], [1.77, -1, 1.0]], [[4.0, 0.2, -1], [0.38, 0.67, -2.51], [-1.25, -0.6, 1.83]]], dtype=m.float32)[1:2:1, 0:2:2, 0:2:2])', 'out': 'v2', 'op': 'matmul'},
]

if __name__ == "__main__":
    main(PROGRAM)
