"""Fuzz reproducer (seed 10038036): missing-error at statement 3 (div): torch raises RuntimeError: unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Pleas

Run: python tests/fuzz/found/missing-error_div_8.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([-2.75, 0.0, -0.24, 0, 3.75], dtype=m.float64, requires_grad=True)', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v1 = m.amax(v0, dim=(-1,))', 'out': 'v1', 'op': 'amax'},
    {'src': 'v2 = v1.flatten(-1, -1)', 'out': 'v2', 'op': 'flatten'},
    {'src': 'v4 = v2.div_(v1)', 'out': 'v4', 'op': 'div'},
]

if __name__ == "__main__":
    main(PROGRAM)
