"""Fuzz reproducer (seed 10088885): value at statement 5 (backward): values

Run: python tests/fuzz/found/value_backward_15.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([4.0, -0.87, -3, 2.46], dtype=m.float32, requires_grad=True)', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v1 = m.log1p(v0)', 'out': 'v1', 'op': 'log1p'},
    {'src': 'v3 = m.log(v1)', 'out': 'v3', 'op': 'log'},
    {'src': 'v6 = m.cat([v3], 0)', 'out': 'v6', 'op': 'cat'},
    {'src': 'v7 = m.max(v6)', 'out': 'v7', 'op': 'max'},
    {'src': '(v7).float().sum().backward(); v8 = v0.grad', 'out': 'v8', 'op': 'backward'},
]

if __name__ == "__main__":
    main(PROGRAM)
