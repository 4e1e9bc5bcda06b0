"""Fuzz reproducer (seed 10004492): value at statement 2 (sqrt): values

Run: python tests/fuzz/found/value_sqrt_3.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([[[-3, 0.81, 0.62, 2.8], [-2.81, 2.38, 0, 2.25], [4, -2.46, -2, -1.0]], [[1.6, -1.0, -0.09, 4.0], [-2.0, 1.6, 0, -2.25], [1, -1, -1.8, 2.93]], [[0.5, -2, 3, 1.82], [0.5, -2, 2.59, -0.78], [-2, 1.44, 0.0, -3.0]]], dtype=m.bfloat16).transpose(2, 1)', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v1 = m.log_softmax(v0, -1)', 'out': 'v1', 'op': 'log_softmax'},
    {'src': 'v2 = m.sqrt(v1)', 'out': 'v2', 'op': 'sqrt'},
]

if __name__ == "__main__":
    main(PROGRAM)
