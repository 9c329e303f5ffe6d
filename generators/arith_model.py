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
    """An operation the rules refuse: `cause` names the spec field holding the error, `kind` the
    error's kind as the spec names it."""

    def __init__(self, cause: str, message: str, kind: str = "RuntimeError"):
        super().__init__(message)
        self.cause, self.message, self.kind = cause, message, kind

    @classmethod
    def stated(cls, cause: str, error: dict, **fields) -> "ArithError":
        """The error a spec row states (`error`: its {kind, message}; `fields` fill the message's
        braces)."""
        return cls(cause, error["message"].format(**fields) if fields else error["message"], error["kind"])


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


# ------------------------------------------------------------------ the binary ops' arithmetic
def _signed_inf(a: float, b: float) -> float:
    """Infinity with the sign of a's sign times b's."""
    return math.copysign(math.inf, math.copysign(1, a) * math.copysign(1, b))


def _signed_zero(a: float, b: float) -> float:
    return math.copysign(0.0, math.copysign(1, a) * math.copysign(1, b))


class OpArith:
    """One binary op's element arithmetic: everything the oracle knows of an [[op]] row of
    spec/promotion.toml besides what the row says (its promotion, its refusals). A new op is one
    subclass here, registered in OPS; an [[op]] row whose name OPS lacks is refused where the spec
    is read (spec_model.py), naming the row, since its expected values would have no oracle.

    Real values are doubles holding values of the computation's format; `exact` is the real
    result as a rational, rounded once to the format by real_op; complex values and integers are
    computed here too. Where a method says "not specified", the model raises and the case is not
    generated with a value."""

    def special(self, a: float, b: float) -> float | None:
        """IEEE 754's result when an operand is infinite (or, for division, b is zero); None when
        the exact rule applies. NaN operands are handled before (the result is NaN)."""
        raise NotImplementedError

    def exact(self, a: Fraction, b: Fraction) -> Fraction:
        """The exact real result of finite a and b (special() returned None)."""
        raise NotImplementedError

    def zero(self, a: float, b: float) -> float:
        """The signed zero an exact zero result has (IEEE 754 6.3)."""
        raise NotImplementedError

    def complex(self, a: complex, b: complex, fmt: Format) -> complex:
        """a op b of complex values, each component rounded once to fmt."""
        raise NotImplementedError

    def integer(self, a: int, b: int) -> int:
        """a op b of integers, before the dtype wraps it."""
        raise ArithError("internal", f"integer {self.name} is not computed in an integral dtype")

    def boolean(self, a: bool, b: bool) -> bool:
        raise ArithError("internal", f"bool {self.name} is rejected before computing")

    def rounding_terms(self, ar: Fraction, ai: Fraction, br: Fraction, bi: Fraction):
        """(every intermediate value of the textbook, fused and scaled evaluations of complex
        a op b, the result's components whose sign of zero depends on the evaluation), or None when
        an evaluation divides by zero (rounding_free)."""
        raise NotImplementedError


class Add(OpArith):
    name = "add"

    def special(self, a, b):
        if not (math.isinf(a) or math.isinf(b)):
            return None
        return math.nan if math.isinf(a) and math.isinf(b) and a != b else (a if math.isinf(a) else b)

    def exact(self, a, b):
        return a + b

    def zero(self, a, b):
        return -0.0 if math.copysign(1, a) < 0 and math.copysign(1, b) < 0 else 0.0

    def complex(self, a, b, fmt):
        return complex(real_op(self.name, a.real, b.real, fmt), real_op(self.name, a.imag, b.imag, fmt))

    def integer(self, a, b):
        return a + b

    def boolean(self, a, b):
        return bool(a) or bool(b)

    def rounding_terms(self, ar, ai, br, bi):
        return [ar + br, ai + bi, ar - br, ai - bi], ()


class Sub(Add):
    """a - b: add(a, -b), IEEE 754's definition; bool operands are refused by its row."""
    name = "sub"

    def special(self, a, b):
        return super().special(a, -b)

    def exact(self, a, b):
        return a - b

    def zero(self, a, b):
        return super().zero(a, -b)

    def integer(self, a, b):
        return a - b

    # Not Add's: bool subtraction is refused (its row's bool_error), and the spec reader's check
    # sees the base's refusing method as no bool arithmetic at all.
    boolean = OpArith.boolean


def _complex_finite(name: str, *parts: float) -> None:
    for x in parts:
        if x != x or math.isinf(x):
            raise ArithError("internal", f"complex {name} of non-finite values is not specified")


class Mul(OpArith):
    name = "mul"

    def special(self, a, b):
        if not (math.isinf(a) or math.isinf(b)):
            return None
        return math.nan if a == 0 or b == 0 else _signed_inf(a, b)

    def exact(self, a, b):
        return a * b

    def zero(self, a, b):
        return _signed_zero(a, b)

    def complex(self, a, b, fmt):
        _complex_finite("mul/div", a.real, a.imag, b.real, b.imag)
        ar, ai, br, bi = (Fraction(x) for x in (a.real, a.imag, b.real, b.imag))
        return complex(round_to(ar * br - ai * bi, fmt), round_to(ar * bi + ai * br, fmt))

    def integer(self, a, b):
        return a * b

    def boolean(self, a, b):
        return bool(a) and bool(b)

    def rounding_terms(self, ar, ai, br, bi):
        return [ar * br, ai * bi, ar * bi, ai * br, ar * br - ai * bi, ar * bi + ai * br], \
            (ar * br - ai * bi, ar * bi + ai * br)


class Div(OpArith):
    """True division; an integral result dtype is promoted to the default float first (its row's
    integer_to_default_float), so integers are never divided here."""
    name = "div"

    def special(self, a, b):
        if b == 0:
            return math.nan if a == 0 else _signed_inf(a, b)
        if not (math.isinf(a) or math.isinf(b)):
            return None
        if math.isinf(a) and math.isinf(b):
            return math.nan
        return _signed_zero(a, b) if math.isinf(b) else _signed_inf(a, b)

    def exact(self, a, b):
        return a / b

    def zero(self, a, b):
        return _signed_zero(a, b)

    def complex(self, a, b, fmt):
        _complex_finite("mul/div", a.real, a.imag, b.real, b.imag)
        ar, ai, br, bi = (Fraction(x) for x in (a.real, a.imag, b.real, b.imag))
        d = br * br + bi * bi
        if d == 0:
            raise ArithError("internal", "complex division by zero is not specified")
        big = Fraction(max_finite(fmt))
        if max(abs(ar), abs(ai)) * max(abs(br), abs(bi)) > big or d > big:
            raise ArithError("internal", "complex division whose a*conj(b) or |b|^2 overflows is not specified")
        return complex(round_to((ar * br + ai * bi) / d, fmt), round_to((ai * br - ar * bi) / d, fmt))

    def rounding_terms(self, ar, ai, br, bi):
        d = br * br + bi * bi
        if d == 0:
            return None
        terms = [br * br, bi * bi, d, ar * br, ai * bi, ar * bi, ai * br, ar * br + ai * bi, ai * br - ar * bi,
                 (ar * br + ai * bi) / d, (ai * br - ar * bi) / d]
        results = (terms[9], terms[10])
        if br != 0:  # Smith, |br| >= |bi| branch
            r = bi / br
            den = br + bi * r
            terms += [r, bi * r, den, ai * r, ar * r, ar + ai * r, ai - ar * r]
            if den == 0:
                return None
            terms += [(ar + ai * r) / den, (ai - ar * r) / den]
        if bi != 0:  # Smith, |bi| > |br| branch
            r = br / bi
            den = br * r + bi
            terms += [r, br * r, den, ar * r, ai * r, ar * r + ai, ai * r - ar]
            if den == 0:
                return None
            terms += [(ar * r + ai) / den, (ai * r - ar) / den]
        return terms, results


# The binary ops whose element values this model computes, by [[op]] name.
OPS: dict[str, OpArith] = {op.name: op for op in (Add(), Sub(), Mul(), Div())}


def real_op(op: str, a: float, b: float, fmt: Format) -> float:
    """a op b for doubles holding values of format fmt, rounded once to fmt."""
    if a != a or b != b:
        return math.nan
    arith = OPS[op]
    s = arith.special(a, b)
    if s is not None:
        return s
    exact = arith.exact(Fraction(a), Fraction(b))
    return arith.zero(a, b) if exact == 0 else round_to(exact, fmt)


def complex_op(op: str, a: complex, b: complex, fmt: Format) -> complex:
    """Complex a op b rounded once per component to fmt (mul/div: from the exact value)."""
    return OPS[op].complex(a, b, fmt)


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
    if alpha is not None and op in ("add", "sub"):
        pal = _parts(alpha)
        if pal is None:
            return False
        al, am_ = pal
        if op == "sub":
            al, am_ = -al, -am_
        pr, pi = al * br - am_ * bi, al * bi + am_ * br  # alpha * b
        terms = [al * br, am_ * bi, al * bi, am_ * br, pr, pi, ar + pr, ai + pi]
        results = (terms[-2], terms[-1])
    else:
        found = OPS[op].rounding_terms(ar, ai, br, bi)
        if found is None:
            return False
        terms, results = found
    # A zero component's sign depends on the evaluation ((-3)*0 - 0.5*0 is -0 or +0), so a
    # result with a zero component is not evaluation-independent either.
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
        cat, arith = self.dtypes.category(m), OPS[op]
        if cat == "bool":
            return arith.boolean(a, b)
        if cat == "integral":
            return self.dtypes.wrap(arith.integer(a, b), m)
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
