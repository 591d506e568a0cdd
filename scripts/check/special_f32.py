#!/usr/bin/env python3
# special_f32.py: gpu.special's float32 functions that compute in float (erfinv, erfcinv,
# ndtri, erfcx, i0, i0e, i1, i1e, k0, k0e, k1, k1e) against scipy's float64 value of the same
# float32 input rounded to float32, over a dense sweep of each region of kernels/special.cuh's
# float code (tails near 0, 1 and 2, subnormals, huge arguments, NaN, infinities, the exact
# special points): prints a table of the largest distance in float32 ulp (steps between
# neighbouring floats, so subnormals count as any) per function and region, and where it is.
# With --ref BIN it also runs the same inputs in float64 through build/gpuhost and BIN (a
# build before a change) and says whether the float64 results are byte for byte the same.
# Run: PYTHONPATH=<scipy> python3 scripts/check/special_f32.py [--gpuhost build/gpuhost]
#      [--ref /tmp/old_gpuhost] [--n 20000] (the CPU backend will do; on a GPU it measures that)
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.special as sc

F = np.float32
TINY = float(np.nextafter(F(0), F(1)))   # the least subnormal
BIG = float(np.finfo(F).max)
SPECIAL = [0.0, -0.0, np.nan, np.inf, -np.inf, TINY, -TINY, 1e-38, BIG, -BIG]


def logs(a, b, n, rng):
    return np.exp(rng.uniform(np.log(a), np.log(b), n))


def steps(base, k, sign, n):
    """base + sign k ulp-sized steps (k from 1 to n): the last floats before base"""
    return base + sign * np.arange(1, n + 1) * k


def regions(n, rng):
    """{function: [(region, float32 inputs)]}"""
    u = rng.uniform
    near1 = 1 - np.arange(1, 4097) * 2.0 ** -24   # the 4096 floats below 1
    r = {}
    # erfinv's regions: w = -log(1 - y^2) <= 4 (|y| <= 0.9908), s = sqrt(w) <= 4.5 (q = 1 - |y|
    # >= 8.03e-10: every float32 y), past it (erfcinv's and ndtri's far tails)
    yA, qA, qB = 0.990799859, 0.00920014, 8.0261e-10
    r["erfinv"] = [("tiny", logs(TINY, 1e-4, n, rng)), ("w<=4", u(0, yA, n)),
                   ("w>4", u(yA, 1, n)), ("near 1", near1),
                   ("negative", -u(0, 1, n)), ("special", [1, -1, 1.5, -2] + SPECIAL)]
    r["erfcinv"] = [("s>4.5", logs(TINY, qB, n, rng)), ("w>4,s<=4.5", logs(qB, qA, n, rng)),
                    ("w<=4", u(qA, 1, n)), ("(1,2)", u(1, 2, n)), ("near 2", 2 - np.arange(1, 4097) * 2.0 ** -23),
                    ("special", [0, 1, 2, 2.5, -1] + SPECIAL)]
    r["ndtri"] = [("s>4.5", logs(TINY, qB / 2, n, rng)), ("w>4,s<=4.5", logs(qB / 2, qA / 2, n, rng)),
                  ("w<=4", u(qA / 2, 1 - qA / 2, n)), ("near 1", near1), ("near 1/2", 0.5 + u(-1e-4, 1e-4, n)),
                  ("special", [0, 0.5, 1, 1.5, -1] + SPECIAL)]
    r["erfcx"] = [("[0,10]", u(0, 10, n)), ("(10,1e38]", logs(10, 1e38, n, rng)), ("[-9.3,0)", -u(0, 9.3, n)),
                  ("tiny", logs(TINY, 1e-3, n, rng) * rng.choice([-1, 1], n)), ("special", [-9.5, -20] + SPECIAL)]
    for f in ("i0", "i0e", "i1", "i1e"):
        r[f] = [("tiny", logs(TINY, 1e-3, n, rng)), ("[0,8]", u(0, 8, n)), ("(8,92]", u(8, 92, n)),
                ("(92,1e38]", logs(92, 1e38, n, rng)), ("negative", -u(0, 100, n)), ("special", SPECIAL)]
    for f in ("k0", "k0e", "k1", "k1e"):
        r[f] = [("tiny", logs(TINY, 1e-3, n, rng)), ("(1e-3,1]", u(1e-3, 1, n)), ("(1,10]", u(1, 10, n)),
                ("(10,110]", u(10, 110, n)), ("(110,1e38]", logs(110, 1e38, n, rng)),
                ("negative", -u(0, 10, n)), ("special", SPECIAL)]
    return {f: [(name, np.asarray(x, dtype=np.float64).astype(F)) for name, x in regs] for f, regs in r.items()}


LUA = """
local dir, dt = arg[1], arg[2]
for line in io.lines(dir .. "/names.txt") do
  local x = gpu.load(dir .. "/" .. line .. ".npy", {device = true}):astype(dt)
  gpu.save(dir .. "/" .. line .. "." .. dt .. ".out.npy", gpu.special[line](x))
end
"""


def run(gpuhost, d, dt):
    script = os.path.join(d, "run.lua")
    open(script, "w").write(LUA)
    subprocess.run([gpuhost, script, d, dt], check=True)


def ordered(a):
    """float32 bits as integers in the floats' order (-0 and 0 next to each other)"""
    i = a.astype(F).view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)


def ulps(got, want):
    got, want = got.astype(F), want.astype(F)
    same = (np.isnan(got) & np.isnan(want)) | (got == want)
    d = np.abs(ordered(got) - ordered(want)).astype(np.float64)
    d[np.isnan(got) != np.isnan(want)] = np.inf
    return np.where(same, 0, d)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuhost", default="build/gpuhost")
    ap.add_argument("--ref")
    ap.add_argument("--n", type=int, default=20000)
    a = ap.parse_args()
    rng = np.random.default_rng(11)
    regs = regions(a.n, rng)
    worst_all = 0
    with tempfile.TemporaryDirectory() as d:
        for f, rr in regs.items():
            np.save(os.path.join(d, f + ".npy"), np.concatenate([x for _, x in rr]))
        open(os.path.join(d, "names.txt"), "w").write("\n".join(regs) + "\n")
        run(a.gpuhost, d, "float32")
        print("%-8s %-12s %8s %6s  %s" % ("function", "region", "points", "ulp", "worst at (got, scipy)"))
        for f, rr in regs.items():
            got = np.load(os.path.join(d, f + ".float32.out.npy"))
            i = 0
            for name, x in rr:
                g = got[i:i + len(x)]
                i += len(x)
                with np.errstate(all="ignore"):
                    want = getattr(sc, f)(x.astype(np.float64)).astype(F)
                if f in ("i0", "i1"):   # README: I0(+-inf) = inf, I1(+-inf) = +-inf (scipy: NaN)
                    want = np.where(np.isinf(x), np.abs(x) if f == "i0" else x, want)
                e = ulps(g, want)
                k = int(np.argmax(e))
                worst_all = max(worst_all, e[k])
                print("%-8s %-12s %8d %6g  x=%r (%r, %r)" % (f, name, len(x), e[k], float(x[k]), float(g[k]), float(want[k])))
        print("largest: %g ulp" % worst_all)
        if a.ref:
            outs = []
            for b in (a.gpuhost, a.ref):
                run(b, d, "float64")
                outs.append(b"".join(open(os.path.join(d, f + ".float64.out.npy"), "rb").read() for f in regs))
            print("float64 results byte for byte as %s's: %s" % (a.ref, "yes" if outs[0] == outs[1] else "NO"))
    return 0 if worst_all <= 4 else 1


if __name__ == "__main__":
    sys.exit(main())
