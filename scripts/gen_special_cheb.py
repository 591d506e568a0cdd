#!/usr/bin/env python3
# gen_special_cheb.py: derives the coefficient tables of kernels/special.cuh (Chebyshev
# expansions and power series of erfinv, erfcinv's first guess, erfcx, I0, I1, K0, K1 and E1)
# with mpmath at 50 digits, and writes them between the "generated" markers of
# kernels/special.cuh (or prints them with --print). Chebyshev coefficients come from the
# function at n Chebyshev nodes (a discrete cosine transform) and are cut where they fall
# below the wanted relative size; kernels/special.cuh sums them with Clenshaw's recurrence.
# Run: PYTHONPATH=<where mpmath is> python3 scripts/gen_special_cheb.py [--print]
import os
import struct
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


# ---- float32's tables: polynomials in the kernel's own variable t (Horner's rule in float,
# fmaf), each coefficient a float; from the highest down each is rounded to float and the
# ones below it fitted again to what is left (so that the rounding of one is absorbed by the
# rest), by Chebyshev interpolation in u = (2t - a - b) / (b - a) at 48 nodes
def f32(v):
    return float(struct.unpack("f", struct.pack("f", float(v)))[0])


def monomial(c, a, b):
    """sum c[k] T_k(u), u = (2t - a - b) / (b - a), as coefficients of powers of t"""
    alpha, beta = 2 / (mp.mpf(b) - a), -(mp.mpf(a) + b) / (mp.mpf(b) - a)
    T = [[mp.mpf(1)], [beta, alpha]]   # T_k(alpha t + beta) as polynomials in t
    for k in range(2, len(c)):
        up = [mp.mpf(0)] + [2 * alpha * v for v in T[k - 1]]
        nxt = [2 * beta * v for v in T[k - 1]] + [mp.mpf(0)]
        prev = T[k - 2] + [mp.mpf(0)] * (len(up) - len(T[k - 2]))
        T.append([x + y - z for x, y, z in zip(up, nxt, prev)])
    m = [mp.mpf(0)] * len(c)
    for k in range(len(c)):
        for i, v in enumerate(T[k]):
            m[i] += c[k] * v
    return m


def float_poly(f, a, b, tol, nodes=48):
    """float coefficients of a polynomial in t in [a, b] to f within tol relative (before
    rounding), fewest terms; printed to stderr with the error after rounding"""
    a, b = mp.mpf(a), mp.mpf(b)
    us = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / nodes) for k in range(nodes)]
    ts = [(b - a) / 2 * u + (a + b) / 2 for u in us]
    fs = [f(t) for t in ts]
    def fit(values, n):
        c = []
        for j in range(n):
            s = mp.fsum(values[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / nodes) for k in range(nodes))
            c.append(2 * s / nodes)
        c[0] /= 2
        return monomial(c, a, b)
    grid = [a + (b - a) * i / 200 for i in range(201)]
    exact = [f(t) for t in grid]
    def error(m):
        return max(abs(mp.polyval(m[::-1], t) / e - 1) for t, e in zip(grid, exact))
    n = 2
    while error(fit(fs, n)) > tol:
        n += 1
        assert n < nodes - 8, "no polynomial within tol"
    fixed = []   # the rounded coefficients from the highest
    for k in range(n - 1, -1, -1):
        rest = [v - mp.polyval(fixed, t) * t ** (k + 1) for v, t in zip(fs, ts)]
        fixed.append(f32(fit(rest, k + 1)[k]))
    m = fixed[::-1]
    sys.stderr.write("%d terms, %.2g relative after rounding\n" % (n, error(m)))
    return m


def float_tables():
    out = []
    fact = mp.factorial
    tol = mp.mpf(2) ** -27
    # erfinv(y) / y as a function of w = -log(1 - y^2): up to w = 4 in w; past it in
    # s = sqrt(w), t = s - 3.25 for s in [2, 4.5] (every float32 erfinv), t = s - 7.375 for
    # s in [4.5, 10.25] (erfcinv and ndtri down to the least subnormal)
    def x_over_y(w):
        if w == 0:
            return mp.sqrt(mp.pi) / 2
        e = mp.exp(-w)
        y = mp.sqrt(1 - e)
        if w < 3:
            return mp.erfinv(y) / y
        q = e / (1 + y)   # 1 - y
        x0 = mp.sqrt(w - mp.log(mp.sqrt(mp.pi * w)))
        return mp.findroot(lambda x: mp.log(mp.erfc(x)) - mp.log(q), x0) / y
    out.append(("ERFINV_F_A", "erfinv(y) / y, w = -log(1 - y^2) in [0, 4], t = w", 
                float_poly(x_over_y, 0, 4, tol)))
    out.append(("ERFINV_F_B", "erfinv(y) / y, s = sqrt(w) in [2, 4.5], t = s - 3.25",
                float_poly(lambda t: x_over_y((t + mp.mpf(3.25)) ** 2), -1.25, 1.25, tol)))
    out.append(("ERFINV_F_C", "erfinv(y) / y, s = sqrt(w) in [4.5, 10.25], t = s - 7.375",
                float_poly(lambda t: x_over_y((t + mp.mpf(7.375)) ** 2), -2.875, 2.875, tol)))
    # (1 + x) erfcx(x), t = (x - 4) / (x + 4), x >= 0
    def erfcx_t(t):
        if t == 1:
            return 1 / mp.sqrt(mp.pi)
        x = 4 * (1 + t) / (1 - t)
        return (1 + x) * mp.erfc(x) * mp.exp(x * x)
    out.append(("ERFCX_F", "(1 + x) erfcx(x), t = (x - 4) / (x + 4), x >= 0", float_poly(erfcx_t, -1, 1, tol)))
    # I0, I1 up to 8: their power series in q = x^2 / 4; past 8 sqrt(x) e^-x I(x) in t = 1 / x
    out.append(("I0_F_SERIES", "I0(x) = sum c[k] q^k, q = x^2 / 4, x <= 8",
                [f32(v) for v in series(lambda k: 1 / fact(k) ** 2, 16, tol)]))
    out.append(("I1_F_SERIES", "I1(x) = x/2 sum c[k] q^k, q = x^2 / 4, x <= 8",
                [f32(v) for v in series(lambda k: 1 / (fact(k) * fact(k + 1)), 16, tol)]))
    for nu in (0, 1):
        g = lambda t, nu=nu: (lambda x: mp.sqrt(x) * mp.exp(-x) * mp.besseli(nu, x))(1 / t) if t else 1 / mp.sqrt(2 * mp.pi)
        out.append(("I%d_F_LARGE" % nu, "sqrt(x) e^-x I%d(x), t = 1 / x, x >= 8" % nu,
                    float_poly(g, 0, mp.mpf(1) / 8, tol)))
    # K0, K1 up to 1: the float64 series' first terms (K0_SERIES, K1_SERIES); past 1
    # sqrt(x) e^x K(x) in t = 1 / x
    out.append(("K0_F_SERIES", "K0's series: H_k / k!^2, q = x^2 / 4 <= 1/4",
                [f32(v) for v in series(lambda k: mp.harmonic(k) / fact(k) ** 2, mp.mpf(1) / 4, tol)]))
    out.append(("K1_F_SERIES", "K1's series: (psi(k + 1) + psi(k + 2)) / (k! (k + 1)!), q <= 1/4",
                [f32(v) for v in series(lambda k: (mp.digamma(k + 1) + mp.digamma(k + 2)) / (fact(k) * fact(k + 1)),
                                        mp.mpf(1) / 4, tol)]))
    for nu in (0, 1):
        g = lambda t, nu=nu: (lambda x: mp.sqrt(x) * mp.exp(x) * mp.besselk(nu, x))(1 / t) if t else mp.sqrt(mp.pi / 2)
        out.append(("K%d_F_LARGE" % nu, "sqrt(x) e^x K%d(x), t = 1 / x, x >= 1" % nu, float_poly(g, 0, 1, tol)))
    return out


def render(tabs, ctype="double"):
    lines = []
    for name, what, c in tabs:
        if what is None:   # a constant of the tables before it
            lines.append("const double %s = %r;" % (name, float(c)))
            continue
        lines.append("// %s (%d terms)" % (what, len(c)))
        if ctype == "float":   # the shortest text that reads back as the float
            body = ", ".join(float_text(v) for v in c)
        else:
            body = ", ".join(repr(float(v)) for v in c)
        text = "__constant__ const %s %s[] = {%s};" % (ctype, name, body)
        # wrap at 100 columns
        words, line = text.split(" "), ""
        for w in words:
            if len(line) + len(w) + 1 > 100:
                lines.append(line.rstrip())
                line = "  "
            line += w + " "
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def float_text(v):
    for digits in range(6, 10):
        t = "%.*g" % (digits, v)
        if f32(t) == v:
            break
    if "e" not in t and "." not in t:
        t += ".0"
    return t + "f"


BEGIN = "// ---- generated by scripts/gen_special_cheb.py: do not edit ----\n"
END = "// ---- end of the generated tables ----\n"

if __name__ == "__main__":
    text = render(tables()) + "// float32's (and float16's): polynomials in t by Horner's rule in float\n" + \
        render(float_tables(), "float")
    if "--print" in sys.argv:
        sys.stdout.write(text)
        sys.exit(0)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "special.cuh")
    src = open(path).read()
    i, j = src.index(BEGIN) + len(BEGIN), src.index(END)
    open(path, "w").write(src[:i] + text + src[j:])
