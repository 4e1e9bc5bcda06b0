"""Fuzz reproducer (seed 10003084): missing-error at statement 1 (setitem): torch raises RuntimeError: value cannot be converted to type uint8_t without overflow; ember gives ('T', 'uint8', (1, 1), (1, 1), 0, False, b'\x06', [

Run: python tests/fuzz/found/missing-error_setitem_0.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([[6]], dtype=m.uint8)', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v0[m.tensor([[False]], dtype=m.bool), ..., None] = m.tensor(-2.52, dtype=m.float32); v1 = v0', 'out': 'v1', 'op': 'setitem'},
]

if __name__ == "__main__":
    main(PROGRAM)
