"""Fuzz reproducer (seed 10003273): grad_fn at statement 2 (setitem): grad_fn torch::autograd::CopySlices vs torch torch::autograd::CopyBackwards

Run: python tests/fuzz/found/grad_fn_setitem_1.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([[-2.75, 1.0]], dtype=m.float64, requires_grad=True)', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v2 = m.cumprod(v0, 1)', 'out': 'v2', 'op': 'cumprod'},
    {'src': 'v2[::1] = m.tensor([[0], [-2.25]], dtype=m.float64).transpose(1, 0); v7 = v2', 'out': 'v7', 'op': 'setitem'},
]

if __name__ == "__main__":
    main(PROGRAM)
