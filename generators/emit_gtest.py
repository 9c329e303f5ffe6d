"""Emits the exhaustive GoogleTest tables of one conformance suite.

Each table is an array of rows (conformance/checks/<suite>.h types) driven by one
value-parameterized test, named after the row ids, so a suite compiles quickly and
every case names its spec row.

Usage: emit_gtest.py --suite SUITE --out FILE spec/*.toml  (SUITE: see SOURCES)
"""

from __future__ import annotations

import math
import sys

import arith_tables
import interop_tables
import emit_common as ec
from emit_common import dims, dt, error_cxx, format_cxx, no_error, step_cxx, step_text
import strided_model as sm
from spec_model import Operand, Source, Spec

SOURCES = {
    "dtypes": "spec/dtypes.toml, spec/promotion.toml",
    "promotion": "spec/promotion.toml, spec/dtypes.toml",
    "casting": "spec/casting.toml, spec/promotion.toml, spec/dtypes.toml",
    "spec_consistency": "spec/promotion.toml, spec/dtypes.toml",
    "strided": "spec/strided.toml",
    "arithmetic": "spec/arithmetic.toml, spec/strided.toml, spec/promotion.toml, spec/casting.toml, spec/dtypes.toml",
    "devices": "spec/devices.toml",
    "asarray": "spec/asarray.toml, spec/devices.toml, spec/dtypes.toml",
    "dlpack": "spec/dlpack.toml, spec/strided.toml, spec/dtypes.toml",
    "manifest": "spec/*.toml",
}
SUITES = tuple(SOURCES)


class Table:
    """One parameterized test: a C++ row type, a test-suite name and its rows."""

    def __init__(self, name: str, row_type: str):
        self.name, self.row_type, self.rows, self.ids, self.idents = name, row_type, [], [], set()
        self.spec_rows: list[str] = []  # each case's Source.row, in the order of ids

    def add(self, row_id: str, source: Source, text: str, fields: list[str], answer: str = "",
            inputs: str = "") -> None:
        """One case: its id, where it comes from (the clause, basis and spec row it cites:
        RowMeta::clause, basis, spec_row), the statement and the row type's fields. answer: its
        expected answer as data for reports (RowMeta::answer), when it has a one-word one.
        inputs: the operands the case is about (RowMeta::inputs: "int32 float16", "t_int8 s_float"),
        for the report's root causes; "" where the row has none of that shape."""
        # GoogleTest names cases by the row id with punctuation as '_': those must be unique.
        if ec.ident(row_id) in self.idents:
            raise ValueError(f"{self.name}: row id {row_id!r} collides with another as test name {ec.ident(row_id)}")
        if not source.row:
            raise ValueError(f"{self.name}: case {row_id!r} names no spec row")
        self.idents.add(ec.ident(row_id))
        self.ids.append(row_id)
        self.spec_rows.append(source.row)
        meta = "{" + ", ".join(ec.cstr(x) for x in (row_id, source.clause, source.basis, text, answer, source.row,
                                                       ec.row_dtypes(fields), inputs)) + "}"
        self.rows.append("  {" + ", ".join([meta, *fields]) + "},")

    def emit(self) -> str:
        if not self.rows:
            return ""
        arr = f"k{self.name}Rows"
        return "\n".join([
            f"const {self.row_type} {arr}[] = {{",
            *self.rows,
            "};",
            f"class {self.name} : public ::testing::TestWithParam<{self.row_type}> {{}};",
            f"TEST_P({self.name}, Case) {{",
            f"  RunTableCase(GetParam(), Check{self.row_type.removesuffix('Row')});",
            "}",
            f"INSTANTIATE_TEST_SUITE_P(Spec, {self.name}, ::testing::ValuesIn({arr}), RowName<{self.row_type}>);",
            "",
        ])


def operand_cxx(spec: Spec, o: Operand) -> str:
    if o.kind == "scalar":
        return f"{{OperandKind::kScalar, DType::kBool, Scalar::Kind::k{o.what.capitalize()}}}"
    kind = "kTensor" if o.kind == "tensor" else "kZeroDim"
    return f"{{OperandKind::{kind}, {dt(spec, o.what)}, Scalar::Kind::kInt}}"


def contiguity_answers(spec: Spec, by_format: dict) -> str:
    """is_contiguous(fmt) for every memory format in spec order: {{MemoryFormat::k.., bool}, ...}.
    preserve_format reads as contiguous_format (strided.toml is_contiguous rule)."""
    answer = lambda n: by_format["contiguous_format" if n == "preserve_format" else n]
    return "{" + ", ".join(f"{{{format_cxx(n)}, {ec.cbool(answer(n))}}}" for n in spec.formats) + "}"


def default_matters(spec: Spec, a: Operand, b: Operand, op: str | None) -> bool:
    """Whether the default dtype can change this row's answer (float/complex scalars, an op whose
    integral result becomes the default dtype: the [[op]] row's integer_to_default_float, div's)."""
    if any(o.kind == "scalar" and o.what in ("float", "complex") for o in (a, b)):
        return True
    if op is not None and spec.ops[op]["integer_to_default_float"]:
        return spec.by_name[spec.result_type(a, b, spec.initial_default)].category in ("bool", "integral")
    return False


# ------------------------------------------------------------------ dtypes.toml
def dtypes_tables(spec: Spec) -> list[Table]:
    names = Table("DTypeNames", "DTypeNameRow")
    info = Table("DTypeAttributes", "DTypeInfoRow")
    finfo = Table("DTypeFinfo", "FloatInfoRow")
    legacy = Table("DTypeLegacyConstructor", "LegacyConstructorRow")
    for d in spec.dtypes:
        for n in (d.name, *d.aliases):
            names.add(f"{d.id}.name.{n}", d.source, f"torch.{n} is torch.{d.name}",
                      [ec.cstr(n), dt(spec, d.name)])
        info.add(f"{d.id}.attributes", d.source,
                 f"{d.name}: itemsize {d.itemsize}, is_floating_point {d.is_floating_point}, "
                 f"is_complex {d.is_complex}, is_signed {d.is_signed}",
                 [dt(spec, d.name), str(d.itemsize), ec.cbool(d.is_floating_point), ec.cbool(d.is_complex),
                  ec.cbool(d.is_signed)])
        if d.bits is not None:
            sign, e, m = d.bits
            emax = 2 ** (e - 1) - 1
            eps = math.ldexp(1.0, -m)
            mx = (2 - eps) * math.ldexp(1.0, emax)
            tiny = math.ldexp(1.0, 1 - emax)
            finfo.add(f"{d.id}.finfo", d.source,
                      f"{d.name}: {sign} sign, {e} exponent, {m} significand bits -> "
                      f"eps 2^-{m}, max (2-2^-{m})*2^{emax}, tiny 2^{1 - emax}",
                      [dt(spec, d.name), str(sign + e + m), ec.cdouble(eps), ec.cdouble(mx), ec.cdouble(tiny)])
        if d.legacy_constructor:
            legacy.add(f"{d.id}.legacy_constructor", d.source.with_basis("doc"),
                       f"{d.name}'s legacy constructor is {d.legacy_constructor}",
                       [dt(spec, d.name), ec.cstr(d.legacy_constructor)])
    tensor = Table("DTypeBarebonesTensor", "BarebonesTensorRow")
    if spec.barebones_tensor is not None:
        source, text, values = spec.barebones_tensor
        for d in spec.barebones:
            tensor.add(f"{d.id}.tensor", source, f"{text}: torch.tensor({values}, dtype=torch.{d.name}).dtype is "
                       f"torch.{d.name}, its sizes [{len(values)}]", [dt(spec, d.name), dims(values)],
                       answer=d.name)
    return [names, info, finfo, legacy, tensor]


# ------------------------------------------------------------------ promotion.toml
def binary_row(spec: Spec, table: Table, row_id: str, source: Source, form: str, op: str,
               a: Operand, b: Operand, default: str, out: str | None) -> None:
    outcome = spec.op_outcome(op, a, b, default, out)
    form_cxx = {"functional": "kFunctional", "out": "kOut", "inplace": "kInplace"}[form]
    if outcome[0] == "error":
        _, kind, msg = outcome
        if spec.op_outcome(op, a, b, default, out, refusal=False)[0] == "ok":
            source = spec.ops[op]["refuses"]["source"]  # refused by the op's kernel: its row says where
        expect = ["true", f"ErrorKind::k{kind}", ec.cstr(msg), "MessageMatch::kContains"]
        res_text = f"{kind}: {msg}"
        # Not looked at when an error is expected; filled in so the row reads sensibly.
        result = out_dtype = out or spec.result_type(a, b, default)
        value = arith_tables.value_cxx(False, "bool")
    else:
        _, result, out_dtype = outcome
        expect = ["false", "ErrorKind::kRuntimeError", '""', "MessageMatch::kContains"]
        value = arith_tables.value_cxx(binary_value(spec, op, a, b, result, out_dtype), spec.by_name[out_dtype].category)
        res_text = f"dtype {out_dtype}" + (f" (computed in {result})" if result != out_dtype else "")
    if form == "functional":
        text = f"{op}({a}, {b}) -> {res_text}"
    elif form == "out":
        text = f"{op}({a}, {b}, out=tensor:{out}) -> {res_text}"
    else:
        text = f"{a}.{op}_({b}) -> {res_text}"
    if default != spec.initial_default:
        text += f" [default dtype {default}]"
    table.add(row_id, source, text,
              [f"BinaryForm::{form_cxx}", ec.binary_op_cxx(op), operand_cxx(spec, a), operand_cxx(spec, b),
               dt(spec, out_dtype), dt(spec, default), *expect, dt(spec, result), value],
              answer="error" if outcome[0] == "error" else "ok", inputs=f"{a.token} {b.token}")


def operand_value(spec: Spec, o: Operand, first: bool):
    """What a binary row's operand holds (checks/binary.h OperandValue): 3 for the first
    operand, 2 for the second, true for bool; a tensor holds it cast to its dtype."""
    v = 3 if first else 2
    if o.kind == "scalar":
        return {"bool": True, "int": v, "float": float(v), "complex": complex(v)}[o.what]
    return True if o.what == "bool" else spec.compute.cast(v, o.what)


def binary_value(spec: Spec, op: str, a: Operand, b: Operand, result: str, out: str):
    """Every element of a binary row's result: arith_model computes in the result dtype, then
    the value is cast to the output's dtype (the one value oracle)."""
    c = spec.compute
    va, vb = (c.cast(operand_value(spec, o, first), result) for o, first in ((a, True), (b, False)))
    return c.cast(c.element(op, va, vb, result), out)


def op_source(spec: Spec, op: str) -> Source:
    """What an op's row cites: the result_type rules where the op adds nothing the doc does not
    say, else the op's own row (on the result_type rules' basis too)."""
    src = spec.ops[op]["source"]
    if src.basis == "doc":
        return spec.result_type_source
    return src.with_basis(f"{src.basis}; {spec.result_type_source.basis}")


def promotion_tables(spec: Spec) -> list[Table]:
    promote = Table("PromoteTypes", "PromoteRow")
    for (a, b), r in spec.matrix.items():
        promote.add(spec.promote_id(a, b), spec.promote_source,
                    f"promote_types({a}, {b}) = {r}", [dt(spec, a), dt(spec, b), dt(spec, r)], answer=r,
                    inputs=f"{a} {b}")
    refused = Table("PromoteTypesRefused", "PromoteRefusedRow")
    kind, message = spec.barebones_error or ("", "")
    for a, b in spec.barebones_pairs():
        r = spec.promote_barebones(a, b)
        if r is not None:
            promote.add(spec.promote_id(a, b), spec.barebones_source, f"promote_types({a}, {b}) = {r}",
                        [dt(spec, a), dt(spec, b), dt(spec, r)], answer=r, inputs=f"{a} {b}")
        else:
            refused.add(spec.promote_id(a, b), spec.barebones_source,
                        f"promote_types({a}, {b}): {kind}: {message}",
                        [dt(spec, a), dt(spec, b), f"{{true, ErrorKind::k{kind}, {ec.cstr(message)}}}"],
                        answer="-", inputs=f"{a} {b}")  # "-": refused, as the reports' matrices write it

    rt = Table("ResultType", "ResultTypeRow")
    doc = Table("ResultTypeDocExamples", "ResultTypeRow")
    binary = Table("BinaryOps", "BinaryRow")
    src = spec.result_type_source
    operands = spec.all_operands()
    for default in spec.default_dtypes:
        for a in operands:
            for b in operands:
                prefix = "result_type" if default == spec.initial_default else f"result_type.default_{default}"
                if default == spec.initial_default or default_matters(spec, a, b, None):
                    r = spec.result_type(a, b, default)
                    text = f"result_type({a}, {b}) = {r}"
                    if default != spec.initial_default:
                        text += f" [default dtype {default}]"
                    rt.add(f"{prefix}.{a.token}.{b.token}", src, text,
                           [operand_cxx(spec, a), operand_cxx(spec, b), dt(spec, default), dt(spec, r)],
                           inputs=f"{a.token} {b.token}")
                for op in spec.op_names:
                    if default == spec.initial_default or default_matters(spec, a, b, op):
                        bprefix = "binary" if default == spec.initial_default else f"binary.default_{default}"
                        binary_row(spec, binary, f"{bprefix}.{op}.{a.token}.{b.token}", op_source(spec, op),
                                   "functional", op, a, b, default, None)
    for (row_id, a, b, res, text, s) in spec.examples:
        doc.add(row_id, s, f"{text}: result_type({a}, {b}) = {res}",
                [operand_cxx(spec, a), operand_cxx(spec, b), dt(spec, spec.initial_default), dt(spec, res)],
                inputs=f"{a.token} {b.token}")
        binary_row(spec, binary, row_id + ".via_add", s, "functional", "add", a, b,
                   spec.initial_default, None)
    return [promote, *([refused] if refused.rows else []), rt, doc, binary]


# ------------------------------------------------------------------ casting.toml
def casting_tables(spec: Spec) -> list[Table]:
    cc = Table("CanCast", "CanCastRow")
    for a in spec.documented:
        for b in spec.documented:
            rule = spec.cast_rule_violated(a.name, b.name)
            ok = rule is None
            source = rule["source"] if rule else spec.can_cast_source
            why = f" ({rule['id']}: {rule['text']})" if rule else " (no disallow rule applies)"
            # No inputs: a cast's (from, to) pair is no operand pair, so the in-place and out= cases
            # below it are compared with it by row alone (report.py root_causes).
            cc.add(spec.can_cast_id(a.name, b.name), source, f"can_cast({a.name}, {b.name}) = {ec.cbool(ok)}{why}",
                   [dt(spec, a.name), dt(spec, b.name), ec.cbool(ok)], answer=ec.cbool(ok))

    inplace = Table("InplaceCasting", "BinaryRow")
    out = Table("OutCasting", "BinaryRow")
    doc = Table("InplaceCastingDocExamples", "BinaryRow")
    src = spec.output_casting_source
    swept = src.with_basis(f"{src.basis}; {spec.result_type_source.basis}")
    for op in spec.op_names:
        for s in spec.documented:
            for o in spec.documented:
                binary_row(spec, inplace, f"inplace.{op}.{s.name}.{o.name}", swept, "inplace", op,
                           Operand("tensor", s.name), Operand("tensor", o.name), spec.initial_default, s.name)
                binary_row(spec, out, f"out.{op}.{s.name}.to_{o.name}", swept, "out", op,
                           Operand("tensor", s.name), Operand("tensor", s.name), spec.initial_default, o.name)
    for ex in spec.cast_examples:
        a, b = Operand("tensor", ex["self"]), Operand("tensor", ex["other"])
        result = spec.result_type(a, b, spec.initial_default)
        if ex["allowed"]:
            expect = ["false", "ErrorKind::kRuntimeError", '""', "MessageMatch::kContains"]
            text = f"{ex['expr']}: allowed"
        else:
            expect = ["true", f"ErrorKind::k{spec.cast_error_kind}", ec.cstr(spec.cast_doc_message), "MessageMatch::kGlob"]
            text = f"{ex['expr']}: {spec.cast_error_kind}: {spec.cast_doc_message}"
        value = binary_value(spec, "mul", a, b, result, ex["self"]) if ex["allowed"] else False
        doc.add(ex["id"], src.for_row(ex["id"]).with_basis("doc"), text,
                ["BinaryForm::kInplace", "BinaryOp::kMul", operand_cxx(spec, a), operand_cxx(spec, b),
                 dt(spec, ex["self"]), dt(spec, spec.initial_default), *expect, dt(spec, result),
                 arith_tables.value_cxx(value, spec.by_name[ex["self"]].category if ex["allowed"] else "bool")],
                inputs=f"{a.token} {b.token}")
    return [cc, inplace, out, doc]


# ------------------------------------------------------------------ spec self-consistency
def spec_consistency(spec: Spec) -> str:
    """A candidate-independent test: the promote_types matrix is the lattice join, cell by cell."""
    edges = ",\n".join(f"    {{{dt(spec, a)}, {dt(spec, b)}}}" for a, b in spec.lattice_edges)
    cells = ",\n".join(f"    {{{ec.cstr(spec.promote_id(a, b))}, {ec.cstr(ec.ident(spec.promote_id(a, b)))}, "
                       f"{dt(spec, a)}, {dt(spec, b)}, {dt(spec, r)}}}"
                       for (a, b), r in spec.matrix.items())
    return f"""// promotion.toml [promotion_lattice]: an edge {{a, b}} says b holds a.
const std::pair<DType, DType> kEdges[] = {{
{edges}
}};

struct Cell {{
  const char* id;
  const char* test_name;  // the id as a GoogleTest name
  DType a, b, matrix;
}};
// promotion.toml [promote_types], the literal matrix.
const Cell kCells[] = {{
{cells}
}};

// Every dtype reachable from d (d included).
std::set<DType> UpperBounds(DType d) {{
  std::set<DType> up = {{d}};
  for (bool grew = true; grew;) {{
    grew = false;
    for (const auto& [lo, hi] : kEdges)
      if (up.count(lo) && !up.count(hi)) grew = up.insert(hi).second || grew;
  }}
  return up;
}}

class PromoteMatrixIsLatticeJoin : public ::testing::TestWithParam<Cell> {{}};

TEST_P(PromoteMatrixIsLatticeJoin, Cell) {{
  const Cell& c = GetParam();
  const std::set<DType> ua = UpperBounds(c.a), ub = UpperBounds(c.b);
  std::vector<DType> common;
  for (DType d : ua)
    if (ub.count(d)) common.push_back(d);
  std::vector<DType> least;  // common upper bounds below every other common upper bound
  for (DType d : common) {{
    const std::set<DType> ud = UpperBounds(d);
    bool below_all = true;
    for (DType e : common) below_all = below_all && ud.count(e);
    if (below_all) least.push_back(d);
  }}
  ASSERT_EQ(least.size(), 1u) << c.id << ": the lattice has no unique join of " << DTypeName(c.a) << " and "
                              << DTypeName(c.b) << " (spec/promotion.toml [promotion_lattice])";
  EXPECT_EQ(DTypeName(least[0]), std::string(DTypeName(c.matrix)))
      << c.id << ": spec/promotion.toml's matrix cell disagrees with the join of its lattice";
}}

INSTANTIATE_TEST_SUITE_P(Spec, PromoteMatrixIsLatticeJoin, ::testing::ValuesIn(kCells),
                         [](const ::testing::TestParamInfo<Cell>& info) {{ return std::string(info.param.test_name); }});
"""


# ------------------------------------------------------------------ strided.toml
def view_row(spec: Spec, table: Table, row_id: str, base: tuple[int, ...], steps: list[list], prefix_text: str,
             own: Source | None = None) -> None:
    """One ViewRow: the chain's last step as the rules decide it (the earlier steps must succeed).
    own: row_id is a spec row of its own (an example) with this source: the case cites that row,
    its clause and basis, not the rule's."""
    g = sm.allocated_geometry(base, spec.formats)
    numel = g.numel  # elements in the storage the next step sees
    for st in steps[:-1]:
        out = sm.apply(st[0], list(st[1:]), g, numel, spec.formats)
        g = out.geometry
        numel = g.numel if out.copies else numel
    last = steps[-1]
    view = spec.views[last[0]]
    src = view["source"]
    call = f"{prefix_text}.{step_text(last)}"
    try:
        out = sm.apply(last[0], list(last[1:]), g, numel, spec.formats)
    except sm.RuleError as e:
        err, esrc, erow = spec.rule_error(e)
        text = f"{call} -> {err['kind']}" + (f" containing {err['message']!r}" if err["message"] else "") + f" ({erow})"
        table.add(row_id, own or esrc, text,
                  [dims(base), str(len(steps)), "{" + ", ".join(step_cxx(s) for s in steps) + "}", error_cxx(err),
                   dims([]), dims([]), "0", "false", "false"])
        return
    o = out.geometry
    kind = "copy" if out.copies else "view"
    text = f"{call} -> sizes {list(o.sizes)} strides {list(o.strides)} offset {o.offset} ({kind})"
    table.add(row_id, own or src, text,
              [dims(base), str(len(steps)), "{" + ", ".join(step_cxx(s) for s in steps) + "}", no_error(),
               dims(o.sizes), dims(o.strides), str(o.offset), ec.cbool(out.copies), ec.cbool(last[0] != "empty_like")])


def layout_token(sizes, strides) -> str:
    return f"{sm.shape_token(sizes)}.s{sm.ints_token(strides)}"


def strided_tables(spec: Spec) -> list[Table]:
    layouts = Table("Layouts", "LayoutRow")
    for l in spec.layouts:
        layouts.add(l["id"], l["source"], l["text"],
                    [f"Layout::k{''.join(p.capitalize() for p in l['name'].split('_'))}", ec.cbool(l["required"])])

    address = Table("AddressExamples", "AddressRow")
    for ex in spec.address["examples"]:
        w = ex["write"] or (0, 0)
        address.add(ex["id"], ex["source"], ex["text"],
                    [dims(ex["sizes"]), dims(ex["values"]), dims(ex["strides"]), str(ex["offset"]),
                     ec.cbool(ex["write"] is not None), str(w[0]), str(w[1]), dims(ex.get("after", ()))])

    empty = Table("EmptyStrides", "EmptyRow")
    notes = "; ".join(n["id"] for n in spec.stride_notes)
    for sizes in sm.shapes(spec.sweep["empty_shapes"]):
        for name, fmt in spec.formats.items():
            rejected = not fmt["allocates"] or (fmt["rank"] != "any" and len(sizes) != fmt["rank"])
            if rejected and any(s != 2 for s in sizes):
                continue  # a rejection does not depend on the sizes: one row per rank says so
            row_id = f"empty.{name}.{sm.shape_token(sizes)}"
            call = f"empty({list(sizes)}, memory_format={name})"
            try:
                st = sm.format_strides(fmt, sizes)
            except sm.RuleError as e:
                err, src, erow = spec.rule_error(e)
                empty.add(row_id, src, f"{call} -> {err['kind']}: {err['message']}",
                          [dims(sizes), format_cxx(name), error_cxx(err), dims([])])
                continue
            src = fmt["source"]
            extra = f" (see {notes})" if notes and any(s < 2 for s in sizes) else ""
            empty.add(row_id, src, f"{call} -> strides {list(st)}{extra}",
                      [dims(sizes), format_cxx(name), no_error(), dims(st)])

    contiguity = Table("IsContiguous", "ContiguityRow")
    rule = spec.is_contiguous
    for ex in rule["examples"]:
        e = ex["expected"]
        contiguity.add(ex["id"], ex["source"], ex["text"],
                       [dims(ex["sizes"]), dims(ex["strides"]), contiguity_answers(spec, e)])
    layouts_swept = []
    seen = set()
    for sizes in sm.shapes(spec.sweep["layout_shapes"]):
        for variant in spec.sweep["layout_variants"]:
            st = sm.layout_variant(variant, sizes, spec.formats)
            if st is None or (sizes, st) in seen:
                continue
            seen.add((sizes, st))
            layouts_swept.append((sizes, st, variant))
    for sizes, st, variant in layouts_swept:
        got = {n: sm.is_contiguous(spec.formats[n], sizes, st) for n in spec.allocating_formats}
        text = (f"sizes {list(sizes)} strides {list(st)} ({variant}): " +
                ", ".join(f"{n} {ec.cbool(v)}" for n, v in got.items()))
        contiguity.add(f"is_contiguous.{layout_token(sizes, st)}", rule["source"], text,
                       [dims(sizes), dims(st), contiguity_answers(spec, got)])

    # Memory-format copies of every swept layout, built as as_strided views of a 1-D base.
    copies = Table("FormatCopies", "ViewRow")
    for ex in spec.preserve["examples"]:
        g = sm.Geometry(ex["sizes"], ex["strides"])
        base = (max(g.extent(), 1),)
        view_row(spec, copies, ex["id"], base, [["as_strided", *ex["sizes"], *ex["strides"], 0],
                                                 ["clone", "preserve_format"]], f"make_tensor({list(base)})",
                 own=ex["source"])
    for sizes, st, variant in layouts_swept:
        g = sm.Geometry(sizes, st)
        base = (max(g.extent(), 1),)
        setup = ["as_strided", *sizes, *st, 0]
        prefix = f"make_tensor({list(base)}).as_strided({list(sizes)}, {list(st)}, 0)"
        tok = layout_token(sizes, st)
        dense = sm.dense_for_preserve(spec.formats, sizes, st)
        for op, fmt in (("clone", "preserve_format"), ("empty_like", "preserve_format"),
                        ("contiguous", "contiguous_format"), ("contiguous", "channels_last"),
                        ("contiguous", "channels_last_3d")):
            if op == "empty_like" and dense:
                continue  # same strides as clone's; kept where the preserve rule infers new ones
            if fmt != "contiguous_format" and fmt != "preserve_format" and len(sizes) != spec.formats[fmt]["rank"]:
                continue  # wrong ranks: EmptyStrides and the Views table cover the rejection
            view_row(spec, copies, f"{op}.{fmt}.{tok}", base, [setup, [op, fmt]], prefix)

    views = Table("Views", "ViewRow")
    for b in spec.view_bases:
        prefix = f"make_tensor({list(b['sizes'])})" + "".join("." + step_text(s) for s in b["chain"])
        for op in spec.views:
            for args in sm.view_arg_sweep(op, b["geometry"]):
                arg_token = args[0] if op in sm.COPY_OPS else sm.ints_token(args)  # copies: the format name
                row_id = f"{op}.{b['id']}.{arg_token}"
                view_row(spec, views, row_id, b["sizes"], [*b["chain"], [op, *args]], prefix)
    return [layouts, address, empty, contiguity, copies, views]


SUITE_TABLES = {"dtypes": dtypes_tables, "promotion": promotion_tables, "casting": casting_tables,
                "strided": strided_tables, "arithmetic": lambda spec: arith_tables.arithmetic_tables(spec, Table),
                "devices": lambda spec: interop_tables.devices_tables(spec, Table),
                "asarray": lambda spec: interop_tables.asarray_tables(spec, Table),
                "dlpack": lambda spec: interop_tables.dlpack_tables(spec, Table)}


def manifest(spec: Spec) -> str:
    """Every case of every suite, one per line — its suite, its id (what expectations entries
    may match) and the spec row it comes from — tab-separated."""
    import emit_rapidcheck  # the properties' rows: a candidate that fails a property lists it too
    ids = []
    for name, tables in SUITE_TABLES.items():
        for t in tables(spec):
            ids += [f"{name}\t{rid}\t{row}" for rid, row in zip(t.ids, t.spec_rows, strict=True)]
        rows = getattr(emit_rapidcheck, f"{name}_rows", None)
        if rows is not None:
            ids += [f"{name}\t{pid}\t{src.row}" for pid, src, _ in rows(spec).values()]
    return "# " + ec.header(SOURCES["manifest"], "generators/emit_gtest.py", "").strip() + "\n" + "\n".join(ids) + "\n"


def emit(spec: Spec, suite: str) -> str:
    if suite == "manifest":
        return manifest(spec)
    if suite == "spec_consistency":
        return ec.cxx_file(SOURCES[suite], "generators/emit_gtest.py",
                           ["<gtest/gtest.h>", "<set>", "<string>", "<utility>", "<vector>",
                            '"conformance/candidate/dtype.h"'], spec_consistency(spec))
    tables = SUITE_TABLES[suite](spec)
    body = "\n".join(text for text in (t.emit() for t in tables) if text)
    counts = ", ".join(f"{t.name}: {len(t.rows)}" for t in tables if t.rows)
    header = f'"conformance/checks/{suite}.h"'
    includes = ["<gtest/gtest.h>", header] + (["<cstdint>", "<limits>"] if suite == "arithmetic" else [])
    return ec.cxx_file(SOURCES[suite], "generators/emit_gtest.py", includes,
                       f"// Cases: {counts}.\n\nTCTS_SUITE_SOURCE(\"{suite}\");\n\n{body}")

if __name__ == "__main__":
    sys.exit(ec.main(sys.argv[1:], __doc__, emit, sorted(SUITES)))
