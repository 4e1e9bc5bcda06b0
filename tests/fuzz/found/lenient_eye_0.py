"""Fuzz reproducer (seed 780): lenient at statement 0 (eye): torch raises TypeError: eye() received an invalid combination of arguments - got (int, NoneType), but expected one of:

Run: python tests/fuzz/found/lenient_eye_0.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = m.eye(2, None)', 'out': 'r', 'op': 'eye', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
