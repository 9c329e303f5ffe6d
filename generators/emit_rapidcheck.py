"""Emits the spec-derived tables of one suite's RapidCheck properties.

The property bodies are checked-in C++ (conformance/properties/<suite>_properties.cc); this
emitter writes only what they take from the spec, as X-macros in <suite>_properties.inc:
each property's row (test name, case id, clause, statement) and the spec's values a body
uses. A body without a row, or a row without a body, does not compile
(conformance/properties/properties.h). Properties are randomized and compare a candidate with
itself or with the spec's rules; a candidate that breaks a rule fails them, and lists them in its
expectations like any case (their ids are in the case manifest, emit_gtest.py --suite manifest).

Usage: emit_rapidcheck.py --suite {promotion,casting,strided,arithmetic,dtype_values} --out FILE spec/*.toml
(dtype_values: the values each dtype holds, a table every property suite shares)
"""

from __future__ import annotations

import sys

import emit_common as ec
from spec_model import Operand, Spec


def xmacro(name: str, doc: list[str], rows: list[str]) -> str:
    """`#define NAME(_)` with one `_(...)` row per line (the last without a continuation),
    after its comment lines."""
    comment = "".join(f"// {line}\n" for line in doc)
    define = " \\\n".join([f"#define {name}(_)"] + [f"  _({row})" for row in rows])
    return comment + define + "\n\n"


def property_rows(suite: str, rows: dict) -> str:
    """The properties' rows: _(Name, "case id", "clause", "statement", "spec row") for test
    <Suite>Properties.Name."""
    test_suite = suite.capitalize() + "Properties"
    return xmacro(f"TCTS_{suite.upper()}_PROPERTIES",
                  [f'TCTS_{suite.upper()}_PROPERTIES(_): _(Name, "case id", "clause", "statement", "spec row") for',
                   f"each property test {test_suite}.Name; the spec row is the rule the property states."],
                  [", ".join([name] + [ec.cstr(v) for v in (pid, src.clause, text, src.row)])
                   for name, (pid, src, text) in rows.items()])


# Each property's row: test name -> (id, source, statement), the source being the spec row of
# the rule it states (its clause and id). A property test has no table row, so it registers
# this one for the runner's records and reports.
def promotion_rows(spec: Spec) -> dict:
    c = spec.result_type_source
    return {
        "PromoteTypesIsCommutative": ("property.promote_types.commutative", c, "promote_types(a, b) == promote_types(b, a)"),
        "PromoteTypesIsIdempotent": ("property.promote_types.idempotent", c, "promote_types(a, a) == a"),
        "PromoteTypesCategoryIsTheHigher": ("property.promote_types.category", spec.categories_source,
                                            "the result's category is the higher of the inputs' categories"),
        "ResultTypeIgnoresValues": ("property.result_type.ignores_values", c,
                                    "result_type and the dtype of add/sub/mul/div never depend on operand values"),
    }


def casting_rows(spec: Spec) -> dict:
    return {"RejectedInplaceLeavesDestinationUnchanged": (
        "property.inplace.rejected_leaves_destination", spec.output_casting_source,
        "an in-place op whose result cannot be cast to self is an error and leaves self unchanged")}


def strided_rows(spec: Spec) -> dict:
    address = spec.address["source"]
    view = lambda op: spec.views[op]["source"]  # noqa: E731
    return {
        "ViewChainsMatchTheLogicalModelAndTheAddressFormula": (
            "property.views.model", address, "every view shows storage[offset + sum(stride * index)]"),
        "ViewsShareStorageAndReshapeCopiesOnlyWhenViewFails": (
            "property.views.share_storage", view("reshape"), "views share storage; reshape copies exactly when view fails"),
        "WritesThroughAViewAreVisibleEverywhere": (
            "property.views.write", address, "a write through a view is visible through every view of the storage"),
        "IsContiguousAgreesWithItsDefinition": (
            "property.is_contiguous.definition", spec.is_contiguous["source"],
            "is_contiguous(fmt) holds exactly for the strides empty(sizes, fmt) allocates"),
        "ClonePreservesTheStridesOfADenseTensor": (
            "property.clone.preserve_format", spec.preserve["source"],
            "clone(preserve_format) of a dense tensor keeps its strides"),
        "ContiguousIsFormatContiguousAndValueEqual": (
            "property.contiguous.format", view("contiguous"), "contiguous(fmt) is fmt-contiguous and equal in value"),
        "TransposingTwiceRestoresTheGeometry": (
            "property.transpose.involution", view("transpose"), "transpose(d0, d1) twice restores the geometry"),
        "InvalidViewRequestsAreErrors": (
            "property.views.invalid_requests", view("as_strided"), "invalid view requests are errors"),
    }


def arithmetic_rows(spec: Spec) -> dict:
    return {
        "RandomLayoutsAddAndLayOutAsTheRuleSays": (
            "property.arith.random_layouts", spec.arith["output_layout"]["source"],
            "add over random layouts broadcasts, is dense and follows the output-layout rule"),
        "OutAndInplaceAgreeWithTheFunctionalForm": (
            "property.arith.out_and_inplace", spec.arith["out"]["source"],
            "out= and in-place agree with the functional form and keep the destination's layout"),
    }


# ------------------------------------------------------------------ the spec's values the bodies use
def casting_values(spec: Spec) -> str:
    rejected = []
    for op in spec.op_names:
        for s in spec.documented:
            for o in spec.documented:
                out = spec.op_outcome(op, Operand("tensor", s.name), Operand("tensor", o.name),
                                      spec.initial_default, s.name, refusal=False)
                if out[0] == "error":
                    rejected.append(f"{ec.binary_op_cxx(op)}, {ec.dt(spec, s.name)}, {ec.dt(spec, o.name)}")
    return xmacro("TCTS_CASTING_REJECTED_INPLACE",
                  ["TCTS_CASTING_REJECTED_INPLACE(_): _(op, self dtype, other dtype) for every `self op= other`",
                   f"the spec rejects (spec/casting.toml [output_casting]; {len(rejected)} of them)."],
                  rejected)


def strided_values(spec: Spec) -> str:
    rows = []
    for name in spec.allocating_formats:
        f = spec.formats[name]
        rank = -1 if f["rank"] == "any" else f["rank"]
        order = "()" if f["order"] == "reverse" else "(" + ", ".join(str(d) for d in f["order"]) + ")"
        rows.append(f"{ec.format_cxx(name)}, {rank}, {ec.cbool(rank == -1)}, {f['size_floor']}, {order}, "
                    f"{ec.cstr(f['id'])}")
    return xmacro("TCTS_STRIDED_FORMATS",
                  ['TCTS_STRIDED_FORMATS(_): _(format, rank, empty_is_contiguous, size_floor, (order), "row id") for',
                   "each allocating memory format (spec/strided.toml [[memory_format]] and [is_contiguous]): rank -1",
                   "is any rank; empty_is_contiguous: numel == 0 makes any strides contiguous in the format. The",
                   "strides empty(sizes, format) allocates: walking the dimensions in `order` (innermost first;",
                   "() is n-1, ..., 0), each stride is the product of the sizes walked before it, each size taken",
                   "as at least size_floor (generators/strided_model.py format_strides)."],
                  rows)


# ------------------------------------------------------------------ what values each dtype holds
def dtype_values(spec: Spec) -> str:
    """The values a tensor of each dtype holds exactly, from spec/dtypes.toml: the range of the
    integral dtypes (itemsize, is_signed), the binary formats of the floating ones (bits), the
    component dtype of the complex ones (the floating dtype with that complex type, half its size).
    uint16/32/64 ([promote_types_barebones]) have none: no property makes a tensor of them, and
    uint64's highest is past the int64 the ranges are kept in."""
    integral, floating, complex_ = [], [], []
    bare = {b.name for b in spec.barebones}
    for d in spec.dtypes:
        if d.name in bare:
            continue
        if d.category == "integral":
            bits = d.itemsize * 8
            lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if d.is_signed else (0, 2 ** bits - 1)
            lo_cxx = f"{lo + 1} - 1" if lo < -(2 ** 62) else str(lo)  # INT64_MIN has no literal
            integral.append(f"{ec.dt(spec, d.name)}, {lo_cxx}, {hi}")
        elif d.category == "floating":
            fmt = spec.numbers.format(d.name)  # m * 2^(e-p+1) with emin <= e <= emax
            floating.append(f"{ec.dt(spec, d.name)}, {fmt.p}, {fmt.emin - fmt.p + 1}, {fmt.emax - fmt.p + 1}")
        elif d.category == "complex":
            complex_.append(f"{ec.dt(spec, d.name)}, {ec.dt(spec, d.part)}")
    return (xmacro("TCTS_INTEGRAL_RANGES",
                   ["TCTS_INTEGRAL_RANGES(_): _(dtype, lowest, highest) for each integral dtype (itemsize, is_signed)."],
                   integral)
            + xmacro("TCTS_FLOATING_FORMATS",
                     ["TCTS_FLOATING_FORMATS(_): _(dtype, precision, lowest exponent, highest exponent) for each",
                      "floating dtype (bits): it holds exactly the values m * 2^e with integers |m| < 2^precision and",
                      "lowest <= e <= highest (the smallest subnormal is 2^lowest; the largest finite value is",
                      "(2^precision - 1) * 2^highest), and the infinities and NaN."],
                     floating)
            + xmacro("TCTS_COMPLEX_COMPONENTS",
                     ["TCTS_COMPLEX_COMPONENTS(_): _(complex dtype, the floating dtype of its real and imaginary parts)."],
                     complex_))


SUITES = {
    # suite: (spec files, the rows, the spec's values its bodies use)
    "promotion": ("spec/promotion.toml", promotion_rows, None),
    "casting": ("spec/casting.toml, spec/promotion.toml", casting_rows, casting_values),
    "strided": ("spec/strided.toml", strided_rows, strided_values),
    "arithmetic": ("spec/arithmetic.toml", arithmetic_rows, None),
}


# Tables every property suite shares (conformance/properties/properties.h includes them).
SHARED = {"dtype_values": ("spec/dtypes.toml", dtype_values)}


def emit(spec: Spec, suite: str) -> str:
    if suite in SHARED:
        sources, table = SHARED[suite]
        return (ec.header(sources, "generators/emit_rapidcheck.py")
                + "// The values a tensor of each dtype holds, for the random values of properties.h.\n\n"
                + table(spec)).rstrip("\n") + "\n"
    sources, rows, values = SUITES[suite]
    return (ec.header(sources, "generators/emit_rapidcheck.py")
            + f"// The tables of conformance/properties/{suite}_properties.cc.\n\n"
            + property_rows(suite, rows(spec))
            + (values(spec) if values else "")).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.exit(ec.main(sys.argv[1:], __doc__, emit, sorted(SUITES) + sorted(SHARED)))
