"""Fuzz reproducer (seed 10045583): exception-type at statement 3 (setitem): ember IndexError: index -3 is out of bounds for dimension 0 with size 1

Run: python tests/fuzz/found/exception-type_setitem_11.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([[], []], dtype=m.uint8)', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v1 = (v0).maximum(m.tensor([[[True]]], dtype=m.bool))', 'out': 'v1', 'op': 'maximum'},
    {'src': 'v2 = m.arange(-2.0, 7, 2, dtype=m.bfloat16)', 'out': 'v2', 'op': 'arange'},
    {'src': 'v1[-3, -2:3:2] = -2.5; v3 = v1', 'out': 'v3', 'op': 'setitem'},
]

if __name__ == "__main__":
    main(PROGRAM)
