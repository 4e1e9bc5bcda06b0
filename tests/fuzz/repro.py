"""Runs a saved fuzz program on torch, then on ember (in this process: a crash ends it), and prints differences."""
import child
import compare


def main(program):
    import torch  # noqa: PLC0415

    import ember  # noqa: PLC0415
    t = child.run_program(torch, program)
    for st in program:
        print(">>>", st["src"])
    print("torch:", [s[:3] if s[0] == "E" else s[:6] for s in t], flush=True)
    e = child.run_program(ember, program)
    print("ember:", [s[:3] if s[0] == "E" else s[:6] for s in e])
    d = compare.compare(e, t, program)
    if d and d[1] >= len(program):  # the final state (writes through views)
        print(f"DIFFERS ({d[0]}) after the last statement:\n  {d[2]}")
    elif d:
        print(f"DIFFERS ({d[0]}) at statement {d[1]}: {program[d[1]]['src']}\n  {d[2]}")
    else:
        print("same")
    return d
