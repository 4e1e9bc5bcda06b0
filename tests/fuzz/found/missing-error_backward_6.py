"""Fuzz reproducer (seed 10022977): missing-error at statement 2 (backward): torch raises RuntimeError: false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/Scalar.cpp":42, please report a bug to PyTorch. unknown ival

Run: python tests/fuzz/found/missing-error_backward_6.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([0.25, 3, 3], dtype=m.float64, requires_grad=True)', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v5 = True ** (v0)', 'out': 'v5', 'op': 'pow'},
    {'src': '(v5).float().square().sum().backward(); v7 = v0.grad', 'out': 'v7', 'op': 'backward'},
]

if __name__ == "__main__":
    main(PROGRAM)
