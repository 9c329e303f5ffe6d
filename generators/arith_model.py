"""The arithmetic rules of spec/arithmetic.toml, written once: values, broadcasting, layout.

Python 3.11 standard library only. Values are Python objects: bool, int (any width; the
dtype wraps it), float (a double holding the dtype's exact value), complex. Floating
arithmetic is exact rational arithmetic rounded to the target format (round to nearest,
ties to even), with IEEE 754's special cases spelled out, so no host floating-point
behaviour leaks into the expected values.
"""

from __future__ import annotations

import functools
import math
import sys
from fractions import Fraction
from typing import NamedTuple, Sequence

import strided_model as sm
from spec_rows import DType


class Format(NamedTuple):
    """A binary floating-point format by IEEE 754's parameters (its clause 3.3): p, the precision
    in bits including the implicit leading one; emin and emax, the least and greatest exponent
    of a normal number (subnormals share emin). A value is +-m * 2^(e-p+1), 0 <= m < 2^p."""

    p: int
    emin: int
    emax: int

    @staticmethod
    def of_bits(exponent: int, significand: int) -> "Format":
        """The format of a dtype's bits (spec/dtypes.toml `bits`): an IEEE 754 binary encoding
        of that many exponent and trailing significand bits (IEEE 754 3.4: bias = emax =
        2^(w-1) - 1, emin = 1 - emax, p = t + 1). binary16, binary32 and binary64 are such
        encodings, and bfloat16 is one too: binary32's layout with 7 trailing significand bits."""
        emax = 2 ** (exponent - 1) - 1
        return Format(significand + 1, 1 - emax, emax)


# A Python float, which holds the model's floating values: every dtype's format must fit in it
# (spec_model.py checks).
DOUBLE = Format(sys.float_info.mant_dig, sys.float_info.min_exp - 1, sys.float_info.max_exp - 1)


class ArithError(Exception):
    """An operation the rules refuse: `cause` names the spec field holding the error."""

    def __init__(self, cause: str, message: str):
        super().__init__(message)
        self.cause, self.message = cause, message


# ------------------------------------------------------------------ formats
def round_to(x, fmt: Format) -> float:
    """Rounds a real (Fraction, int or float, possibly inf/nan) to format `fmt`, returning
    the exact result as a double (inf beyond the largest finite value; the sign of zero kept
    for float inputs)."""
    if isinstance(x, float):
        if x != x or math.isinf(x) or x == 0 or fmt == DOUBLE:
            return x  # a double is already a value of its own format
    if x == 0:
        return 0.0
    return _round_nonzero(Fraction(x), fmt)


@functools.lru_cache(maxsize=None)
def _round_nonzero(q: Fraction, fmt: Format) -> float:
    p, emin, emax = fmt.p, fmt.emin, fmt.emax
    sign = -1.0 if q < 0 else 1.0
    num, den = abs(q.numerator), q.denominator
    e = num.bit_length() - den.bit_length()  # 2^e <= |q| < 2^(e+1), or one less
    if (num << max(0, -e)) < (den << max(0, e)):
        e -= 1
    e = max(e, emin)  # subnormals share the smallest exponent
    shift = p - 1 - e  # |q| * 2^shift has p significant bits before the point
    n, d = (num << shift, den) if shift >= 0 else (num, den << -shift)
    m, rem = divmod(n, d)
    if 2 * rem > d or (2 * rem == d and m & 1):  # to nearest, ties to even
        m += 1
    if m == 0:
        return math.copysign(0.0, sign)
    if e > emax or (m >> p) and e == emax:  # |value| >= 2^(emax+1): beyond the largest finite value
        return math.copysign(math.inf, sign)
    return sign * math.ldexp(m, -shift)  # exact: m <= 2^p <= 2^53


def max_finite(fmt: Format) -> float:
    return float((2 - Fraction(2) ** (1 - fmt.p)) * Fraction(2) ** fmt.emax)


def eps(fmt: Format) -> float:
    return 2.0 ** (1 - fmt.p)


def tiny(fmt: Format) -> float:
    return 2.0 ** fmt.emin


# ------------------------------------------------------------------ dtypes
class Dtypes:
    """What the model needs of spec/dtypes.toml's rows: each dtype's category, an integral
    dtype's width and signedness, a floating dtype's format (from its bits) and a complex
    dtype's part (the floating dtype of its real and imaginary components)."""

    def __init__(self, dtypes: Sequence[DType]):
        self.by_name = {d.name: d for d in dtypes}
        real = {d.name: Format.of_bits(d.bits[1], d.bits[2]) for d in dtypes if d.is_floating_point}
        self._formats = {**real, **{d.name: real[d.part] for d in dtypes if d.is_complex}}

    def category(self, dtype: str) -> str:
        return self.by_name[dtype].category

    def format(self, dtype: str) -> Format | None:
        """The format of a floating dtype or of a complex dtype's components; None otherwise."""
        return self._formats.get(dtype)

    def wrap(self, v: int, dtype: str) -> int:
        """v modulo 2^bits, as the integral dtype's two's complement (signed) or unsigned value."""
        d = self.by_name[dtype]
        bits = d.itemsize * 8
        v &= (1 << bits) - 1
        if d.is_signed and v >= 1 << (bits - 1):
            v -= 1 << bits
        return v

    def cast(self, v, to: str, via_float32: Sequence[str]):
        """v (a bool, int, float or complex value) converted to dtype `to` as a cast does:
        bool is v != 0; integers truncate toward zero and wrap; floats round to nearest even
        (through float32 for the via_float32 dtypes); real -> complex takes imaginary 0;
        complex -> real drops the imaginary part."""
        cat = self.category(to)
        if isinstance(v, bool):
            v = int(v)
        if cat == "bool":
            return v != 0
        if cat == "integral":
            if isinstance(v, complex):
                v = v.real
            if isinstance(v, float):
                if v != v or math.isinf(v):
                    raise ArithError("internal", f"cast of {v} to {to} is undefined")
                v = math.trunc(v)
            return self.wrap(int(v), to)
        via = self.format("float32") if to in via_float32 else None
        fmt = self.format(to)
        if cat == "floating":
            if isinstance(v, complex):
                v = v.real
            return _to_real(v, fmt, via)
        c = v if isinstance(v, complex) else complex(0.0, 0.0)
        re = v.real if isinstance(v, complex) else v
        return complex(_to_real(re, fmt, via), _to_real(c.imag, fmt, via))


def _to_real(v, fmt: Format, via: Format | None) -> float:
    if via is not None and fmt != via:
        v = round_to(v, via)
    return round_to(v, fmt)


# ------------------------------------------------------------------ IEEE arithmetic
def _special(op: str, a: float, b: float) -> float | None:
    """IEEE 754 results when an operand is inf or NaN, or a division by zero."""
    if a != a or b != b:
        return math.nan
    if op == "div" and b == 0:
        if a == 0:
            return math.nan
        return math.copysign(math.inf, math.copysign(1, a) * math.copysign(1, b))
    if not (math.isinf(a) or math.isinf(b)):
        return None
    if op == "add":
        return math.nan if math.isinf(a) and math.isinf(b) and a != b else (a if math.isinf(a) else b)
    if op == "sub":
        return _special("add", a, -b)
    if op == "mul":
        if a == 0 or b == 0:
            return math.nan
        return math.copysign(math.inf, math.copysign(1, a) * math.copysign(1, b))
    # div
    if math.isinf(a) and math.isinf(b):
        return math.nan
    if math.isinf(b):
        return math.copysign(0.0, math.copysign(1, a) * math.copysign(1, b))
    return math.copysign(math.inf, math.copysign(1, a) * math.copysign(1, b))


# The binary ops whose element values this model computes (real_op, _special, complex_op,
# Compute._op): an [[op]] row of spec/promotion.toml outside them is refused where the spec is
# read (spec_model.py), naming the row, since its expected values would have no oracle.
VALUE_OPS = ("add", "sub", "mul", "div")


def real_op(op: str, a: float, b: float, fmt: Format) -> float:
    """a op b for doubles holding values of format fmt, rounded once to fmt."""
    s = _special(op, a, b)
    if s is not None:
        return s
    fa, fb = Fraction(a), Fraction(b)
    exact = {"add": fa + fb, "sub": fa - fb, "mul": fa * fb, "div": fa / fb if fb else None}[op]
    if exact == 0:
        sa, sb = math.copysign(1, a), math.copysign(1, b)
        if op in ("mul", "div"):
            return math.copysign(0.0, sa * sb)
        if op == "sub":
            sb = -sb
        return -0.0 if sa < 0 and sb < 0 else 0.0
    return round_to(exact, fmt)


def complex_op(op: str, a: complex, b: complex, fmt: Format) -> complex:
    """Complex a op b rounded once per component to fmt (mul/div: from the exact value)."""
    if op in ("add", "sub"):
        return complex(real_op(op, a.real, b.real, fmt), real_op(op, a.imag, b.imag, fmt))
    for x in (a.real, a.imag, b.real, b.imag):
        if x != x or math.isinf(x):
            raise ArithError("internal", "complex mul/div of non-finite values is not specified")
    ar, ai, br, bi = (Fraction(x) for x in (a.real, a.imag, b.real, b.imag))
    if op == "mul":
        re, im = ar * br - ai * bi, ar * bi + ai * br
    else:
        d = br * br + bi * bi
        if d == 0:
            raise ArithError("internal", "complex division by zero is not specified")
        big = Fraction(max_finite(fmt))
        if max(abs(ar), abs(ai)) * max(abs(br), abs(bi)) > big or d > big:
            raise ArithError("internal", "complex division whose a*conj(b) or |b|^2 overflows is not specified")
        re, im = (ar * br + ai * bi) / d, (ai * br - ar * bi) / d
    return complex(round_to(re, fmt), round_to(im, fmt))


def _exact_in(q: Fraction, fmt: Format) -> bool:
    x = round_to(q, fmt)
    return not math.isinf(x) and Fraction(x) == q


def _parts(v) -> tuple[Fraction, Fraction] | None:
    c = complex(v)
    if any(x != x or math.isinf(x) for x in (c.real, c.imag)):
        return None
    return Fraction(c.real), Fraction(c.imag)


def rounding_free(op: str, a, b, fmt: Format, alpha=None) -> bool:
    """Whether op(a, b[, alpha]) rounds nowhere in fmt, whichever way an implementation
    evaluates it: every partial product, sum, squared norm and quotient of the textbook,
    fused-multiply-add and Smith (scaled) formulas is exactly representable. Then a
    [[tolerance]] row has nothing to tolerate, and the result is compared exactly."""
    pa, pb = _parts(a), _parts(b)
    if pa is None or pb is None:
        return False
    (ar, ai), (br, bi) = pa, pb
    terms: list[Fraction] = []
    if alpha is not None and op in ("add", "sub"):
        pal = _parts(alpha)
        if pal is None:
            return False
        al, am_ = pal
        if op == "sub":
            al, am_ = -al, -am_
        pr, pi = al * br - am_ * bi, al * bi + am_ * br  # alpha * b
        terms += [al * br, am_ * bi, al * bi, am_ * br, pr, pi, ar + pr, ai + pi]
    elif op == "mul":
        terms += [ar * br, ai * bi, ar * bi, ai * br, ar * br - ai * bi, ar * bi + ai * br]
    elif op == "div":
        d = br * br + bi * bi
        if d == 0:
            return False
        terms += [br * br, bi * bi, d, ar * br, ai * bi, ar * bi, ai * br, ar * br + ai * bi, ai * br - ar * bi,
                  (ar * br + ai * bi) / d, (ai * br - ar * bi) / d]
        if br != 0:  # Smith, |br| >= |bi| branch
            r = bi / br
            den = br + bi * r
            terms += [r, bi * r, den, ai * r, ar * r, ar + ai * r, ai - ar * r]
            if den == 0:
                return False
            terms += [(ar + ai * r) / den, (ai - ar * r) / den]
        if bi != 0:  # Smith, |bi| > |br| branch
            r = br / bi
            den = br * r + bi
            terms += [r, br * r, den, ar * r, ai * r, ar * r + ai, ai * r - ar]
            if den == 0:
                return False
            terms += [(ar * r + ai) / den, (ai * r - ar) / den]
    else:
        terms += [ar + br, ai + bi, ar - br, ai - bi]
    # A zero component's sign depends on the evaluation ((-3)*0 - 0.5*0 is -0 or +0), so a
    # result with a zero component is not evaluation-independent either.
    results = {"mul": (ar * br - ai * bi, ar * bi + ai * br)}.get(op, ())
    if alpha is not None and op in ("add", "sub"):
        results = (terms[-2], terms[-1])
    elif op == "div":
        results = (terms[9], terms[10])
    if any(x == 0 for x in results):
        return False
    return all(_exact_in(t, fmt) for t in terms)


# ------------------------------------------------------------------ the computation rule
class Compute:
    """spec/arithmetic.toml [compute]: one element of op(a, b, alpha) in result dtype r."""

    def __init__(self, dtypes: Dtypes, opmath: dict[str, str], via_float32: Sequence[str]):
        self.dtypes = dtypes
        self.opmath = opmath
        self.via = tuple(via_float32)

    def cast(self, v, to: str):
        return self.dtypes.cast(v, to, self.via)

    def rounding_free(self, op: str, a, b, r: str, alpha=None) -> bool:
        """Whether one element of op(a, b[, alpha]) in result dtype r (a, b already cast to
        r) rounds nowhere in r's opmath format, whatever the evaluation (rounding_free)."""
        m = self.opmath.get(r, r)
        fmt = self.dtypes.format(m)
        if fmt is None:
            return True  # bool and integral results are exact
        return rounding_free(op, self.cast(a, m), self.cast(b, m), fmt, alpha)

    def element(self, op: str, a, b, r: str, alpha=None):
        """One element of op(a, b[, alpha]) with a and b already cast to r; the value in r.

        alpha (add/sub): sub(a, b, alpha) is add(a, b, -alpha); alpha is converted to
        opmath(r) and alpha*b is rounded there before the addition (the unfused evaluation;
        [[tolerance]] arith.tolerance.alpha covers the fused one).
        """
        m = self.opmath.get(r, r)
        if alpha is not None and op in ("add", "sub"):
            if op == "sub":
                alpha = -int(alpha) if isinstance(alpha, bool) else -alpha
            scaled = self._op("mul", self.cast(alpha, m), self.cast(b, m), m)
            return self.cast(self._op("add", self.cast(a, m), scaled, m), r)
        return self.cast(self._op(op, self.cast(a, m), self.cast(b, m), m), r)

    def _op(self, op: str, a, b, m: str):
        cat = self.dtypes.category(m)
        if cat == "bool":
            if op == "add":
                return bool(a) or bool(b)
            if op == "mul":
                return bool(a) and bool(b)
            raise ArithError("internal", f"bool {op} is rejected before computing")
        if cat == "integral":
            if op == "div":
                raise ArithError("internal", "integer true division is promoted to float first")
            return self.dtypes.wrap({"add": a + b, "sub": a - b, "mul": a * b}[op], m)
        if cat == "floating":
            return real_op(op, a, b, self.dtypes.format(m))
        return complex_op(op, complex(a), complex(b), self.dtypes.format(m))


# ------------------------------------------------------------------ shapes
def broadcast(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The broadcast shape; ArithError("broadcast", message) when the shapes do not fit."""
    n = max(len(a), len(b))
    out = [0] * n
    for k in range(n - 1, -1, -1):  # from the last dimension: the error names the last mismatch
        sa = a[k - n + len(a)] if k - n + len(a) >= 0 else 1
        sb = b[k - n + len(b)] if k - n + len(b) >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            raise ArithError("broadcast", f"{sa},{sb},{k}")
        out[k] = sb if sa == 1 else sa
    return tuple(out)


def broadcast_strides(sizes: Sequence[int], strides: Sequence[int], shape: Sequence[int]) -> list[int]:
    lead = len(shape) - len(sizes)
    out = [0] * len(shape)
    for k in range(len(sizes)):
        out[lead + k] = 0 if sizes[k] == 1 and shape[lead + k] != 1 else strides[k]
    return out


def source_index(index: Sequence[int], sizes: Sequence[int]) -> tuple[int, ...]:
    """The element of a tensor of `sizes` that broadcasting reads at result index `index`."""
    lead = len(index) - len(sizes)
    return tuple(0 if sizes[k] == 1 else index[lead + k] for k in range(len(sizes)))


def output_strides(formats: dict[str, dict], shape: Sequence[int], operands: list[tuple[Sequence[int], Sequence[int], bool]],
                   ) -> tuple[int, ...]:
    """spec/arithmetic.toml [output_layout] steps 2 and 3.

    operands: (sizes, strides, is_input) of every operand taking part, in TensorIterator's
    order (a right-shaped output first, then the inputs), step 1 already applied.
    """
    contiguous, cl = formats["contiguous_format"], formats["channels_last"]
    inputs = [o for o in operands if o[2]]
    ranks = {len(s) for s, _, _ in inputs}
    same_shape = len({tuple(s) for s, _, _ in inputs}) == 1 and not (0 in ranks and len(ranks) > 1)
    if same_shape:
        if all(sm.is_contiguous(contiguous, s, st) for s, st, _ in operands):
            return sm.format_strides(contiguous, shape)
        if all(len(s) == 4 and sm.is_contiguous(cl, s, st) for s, st, _ in operands):
            return sm.format_strides(cl, shape)
        if (all(sm.dense_for_preserve(formats, s, st) for s, st, _ in operands)
                and len({tuple(st) for _, st, _ in operands}) == 1):
            return tuple(operands[0][1])
    nd = len(shape)
    bstrides = [broadcast_strides(s, st, shape) for s, st, _ in operands]

    def should_swap(d0: int, d1: int) -> int:
        for st in bstrides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = sm.tensoriterator_order(nd, should_swap)
    if perm == list(range(nd - 1, -1, -1)):
        return sm.format_strides(contiguous, shape)
    strides = [0] * nd
    running = 1
    for d in perm:
        strides[d] = running
        running *= shape[d]
    return tuple(strides)


def internal_overlap(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """MemoryOverlap.cpp has_internal_overlap == Yes: a stride-0 dimension of size > 1."""
    return any(s > 1 and st == 0 for s, st in zip(sizes, strides))


def partial_overlap(formats, a: sm.Geometry, b: sm.Geometry, itemsize_a: int, itemsize_b: int) -> bool:
    """get_overlap_status == Partial for two views of one storage (offsets in elements of
    each view's own dtype)."""
    if a.numel == 0 or b.numel == 0:
        return False
    if not (sm.dense_for_preserve(formats, a.sizes, a.strides) and sm.dense_for_preserve(formats, b.sizes, b.strides)):
        return False  # TooHard: allowed
    a0, a1 = a.offset * itemsize_a, (a.offset + a.numel) * itemsize_a
    b0, b1 = b.offset * itemsize_b, (b.offset + b.numel) * itemsize_b
    if a0 == b0 and a1 == b1:
        return tuple(a.strides) != tuple(b.strides)
    return a0 < b1 and b0 < a1
