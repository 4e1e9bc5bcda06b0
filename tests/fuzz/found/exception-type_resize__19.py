"""Fuzz reproducer (seed 697): exception-type at statement 0 (resize_): ember RuntimeError: Trying to create tensor with negative dimension -1: [0, -1]

Run: python tests/fuzz/found/exception-type_resize__19.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = x.resize_((0, -1))', 'out': 'r', 'op': 'resize_', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
