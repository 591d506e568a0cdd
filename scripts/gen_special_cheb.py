#!/usr/bin/env python3
# gen_special_cheb.py: derives the coefficient tables of kernels/special.cuh (Chebyshev
# expansions and power series of erfinv, erfcinv's first guess, erfcx, I0, I1, K0, K1 and E1)
# with mpmath at 50 digits, and writes them between the "generated" markers of
# kernels/special.cuh (or prints them with --print). Chebyshev coefficients come from the
# function at n Chebyshev nodes (a discrete cosine transform) and are cut where they fall
# below the wanted relative size; kernels/special.cuh sums them with Clenshaw's recurrence.
# Run: PYTHONPATH=<where mpmath is> python3 scripts/gen_special_cheb.py [--print]
import os
import sys

import mpmath as mp

mp.mp.dps = 50


def chebyshev(f, n=64):
    """coefficients c[0..n-1] of f on [-1, 1], c[0] halved: f(t) ~ sum c[k] T_k(t)"""
    nodes = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    values = [f(t) for t in nodes]
    c = []
    for j in range(n):
        s = mp.fsum(values[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / n) for k in range(n))
        c.append(2 * s / n)
    c[0] /= 2
    return c


def cut(c, tol):
    """c without its tail of terms below tol times the smallest |f| (f >= |c0| - sum |ck|)"""
    low = abs(c[0]) - mp.fsum(abs(v) for v in c[1:])
    m = len(c)
    while m > 1 and abs(c[m - 1]) < tol * low:
        m -= 1
    assert m < len(c) - 4, "too few nodes for this tolerance"
    return c[:m]


def series(term, qmax, tol):
    """power series coefficients term(k) while term(k) qmax^k exceeds tol times the sum"""
    c, total = [], mp.mpf(0)
    for k in range(200):
        c.append(term(k))
        total += c[-1] * mp.mpf(qmax) ** k
    while abs(c[-1]) * mp.mpf(qmax) ** (len(c) - 1) < tol * abs(total):
        c.pop()
    return c


def on(a, b, g):
    """g of x in [a, b] as a function of t in [-1, 1] (x linear in t)"""
    a, b = mp.mpf(a), mp.mpf(b)
    return lambda t: g((b - a) / 2 * t + (a + b) / 2)


def tables():
    out = []
    fact = mp.factorial
    # erfinv(y) / y for |y| <= 1/2, in t = 8 y^2 - 1: the whole answer there
    out.append(("ERFINV_MID", "erfinv(y) / y, t = 8y^2 - 1, |y| <= 1/2",
                cut(chebyshev(lambda t: mp.erfinv(mp.sqrt((t + 1) / 8)) / mp.sqrt((t + 1) / 8)), 1e-17)))

    # erfcinv(q) for q <= 1/2 as w g(1/w), w = sqrt(-log q): a first guess good to ~1e-10,
    # which one Newton step makes exact; g in s = 1/w on two intervals of w
    def x_of_w(w):
        x0 = mp.sqrt(w * w - mp.log(mp.sqrt(mp.pi) * w)) if w > 1 else mp.mpf(0.5)
        return mp.findroot(lambda x: mp.log(mp.erfc(x)) + w * w, x0)
    w0, w1, w2 = mp.sqrt(mp.log(2)), mp.mpf(3), mp.mpf(27.3)   # 27.3: past the least double
    for name, a, b in (("ERFCINV_GUESS_A", w0, w1), ("ERFCINV_GUESS_B", w1, w2)):
        g = on(1 / b, 1 / a, lambda s: x_of_w(1 / s) * s)
        mid, scale = (1 / a + 1 / b) / 2, 2 / (1 / a - 1 / b)
        out.append((name, "erfcinv(q) / w, w = sqrt(-log q) in [%s, %s], t = (1/w - %s_MID) %s_SCALE"
                    % (mp.nstr(a, 6), mp.nstr(b, 4), name, name), cut(chebyshev(g, 40), 1e-10)))
        out.append((name + "_MID", None, mid))
        out.append((name + "_SCALE", None, scale))

    # erfcx(x) for x >= 0: (1 + x) erfcx(x), which goes from 1 to 1/sqrt(pi), in t = (x - K) / (x + K)
    # (t = 1 at infinity: 25 terms cover [0, inf))
    K = mp.mpf(ERFCX_K)
    def erfcx_t(t):
        x = K * (1 + t) / (1 - t)
        return (1 + x) * mp.erfc(x) * mp.exp(x * x)
    out.append(("ERFCX_C", "(1 + x) erfcx(x), t = (x - %s) / (x + %s), x >= 0" % (ERFCX_K, ERFCX_K),
                cut(chebyshev(lambda t: erfcx_t(t) if t < 1 else 1 / mp.sqrt(mp.pi), 96), 1e-17)))

    # I0, I1: power series in q = x^2 / 4 up to x = 8 (q = 16), all terms positive
    out.append(("I0_SERIES", "I0(x) = sum c[k] q^k, q = x^2 / 4, x <= 8",
                series(lambda k: 1 / fact(k) ** 2, 16, 1e-19)))
    out.append(("I1_SERIES", "I1(x) = x/2 sum c[k] q^k, q = x^2 / 4, x <= 8",
                series(lambda k: 1 / (fact(k) * fact(k + 1)), 16, 1e-19)))
    # past 8: sqrt(x) e^-x I(x) in t = 16 / x - 1
    for nu in (0, 1):
        f = lambda t, nu=nu: (lambda x: mp.sqrt(x) * mp.exp(-x) * mp.besseli(nu, x))(16 / (t + 1))
        out.append(("I%d_LARGE" % nu, "sqrt(x) e^-x I%d(x), t = 16 / x - 1, x >= 8" % nu,
                    cut(chebyshev(f), 1e-17)))
    # K0, K1 up to 1: K0 = sum c[k] q^k - (log(x/2) + euler) I0(x), with c[k] = H_k / k!^2;
    # K1 = 1/x + log(x/2) I1(x) - x/4 sum c[k] q^k, c[k] = (psi(k+1) + psi(k+2)) / (k! (k+1)!)
    out.append(("K0_SERIES", "K0's series: H_k / k!^2, q = x^2 / 4 <= 1/4",
                series(lambda k: mp.harmonic(k) / fact(k) ** 2, mp.mpf(1) / 4, 1e-19)))
    out.append(("K1_SERIES", "K1's series: (psi(k + 1) + psi(k + 2)) / (k! (k + 1)!), q <= 1/4",
                series(lambda k: (mp.digamma(k + 1) + mp.digamma(k + 2)) / (fact(k) * fact(k + 1)),
                       mp.mpf(1) / 4, 1e-19)))
    # E1 up to 1/2: -euler - log x + x sum c[k] x^k, c[k] = (-1)^k / ((k + 1) (k + 1)!)
    # (its terms cancel more past 1/2); on [1/2, 2] x e^x E1(x) in t = (4x - 5) / 3, past 2
    # in t = 4 / x - 1
    out.append(("E1_SERIES", "E1's series: (-1)^k / ((k + 1) (k + 1)!), x <= 1/2",
                series(lambda k: (-1) ** k / ((k + 1) * fact(k + 1)), mp.mpf(1) / 2, 1e-19)))
    out.append(("E1_MID", "x e^x E1(x), t = (4x - 5) / 3, 1/2 <= x <= 2",
                cut(chebyshev(on(0.5, 2, lambda x: x * mp.exp(x) * mp.e1(x))), 1e-17)))
    out.append(("E1_LARGE", "x e^x E1(x), t = 4 / x - 1, x >= 2",
                cut(chebyshev(lambda t: (lambda x: x * mp.exp(x) * mp.e1(x))(4 / (t + 1)), 80), 1e-17)))
    # past 1: sqrt(x) e^x K(x) in t = 2 / x - 1
    for nu in (0, 1):
        f = lambda t, nu=nu: (lambda x: mp.sqrt(x) * mp.exp(x) * mp.besselk(nu, x))(2 / (t + 1))
        out.append(("K%d_LARGE" % nu, "sqrt(x) e^x K%d(x), t = 2 / x - 1, x >= 1" % nu,
                    cut(chebyshev(f), 1e-17)))
    return out


ERFCX_K = "4"


def render(tabs):
    lines = []
    for name, what, c in tabs:
        if what is None:   # a constant of the tables before it
            lines.append("const double %s = %r;" % (name, float(c)))
            continue
        lines.append("// %s (%d terms)" % (what, len(c)))
        body = ", ".join(repr(float(v)) for v in c)
        text = "__constant__ const double %s[] = {%s};" % (name, body)
        # wrap at 100 columns
        words, line = text.split(" "), ""
        for w in words:
            if len(line) + len(w) + 1 > 100:
                lines.append(line.rstrip())
                line = "  "
            line += w + " "
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


BEGIN = "// ---- generated by scripts/gen_special_cheb.py: do not edit ----\n"
END = "// ---- end of the generated tables ----\n"

if __name__ == "__main__":
    text = render(tables())
    if "--print" in sys.argv:
        sys.stdout.write(text)
        sys.exit(0)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "special.cuh")
    src = open(path).read()
    i, j = src.index(BEGIN) + len(BEGIN), src.index(END)
    open(path, "w").write(src[:i] + text + src[j:])
