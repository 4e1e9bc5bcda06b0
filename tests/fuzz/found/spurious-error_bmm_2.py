"""Fuzz reproducer (seed 10006599): spurious-error at statement 0 (bmm): ember raises RuntimeError: expected m1 and m2 to have the same dtype, but got: int32 != int16

Run: python tests/fuzz/found/spurious-error_bmm_2.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v4 = m.bmm(m.tensor([[[6]], [[3]], [[4]]], dtype=m.int32).transpose(1, 2), m.tensor([4, 6, -4, 3], dtype=m.int16).as_strided((3, 1, 0,), (1, 0, 3,), 1))', 'out': 'v4', 'op': 'bmm'},
]

if __name__ == "__main__":
    main(PROGRAM)
