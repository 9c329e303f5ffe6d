"""The arithmetic suite's tables (spec/arithmetic.toml), for emit_gtest.py.

Every expected value, shape and stride comes from generators/arith_model.py applied to
the spec's rows; nothing is typed in by hand except what the spec itself states.
"""

from __future__ import annotations

import itertools
import math

import arith_model as am
import emit_common as ec
from emit_common import dims, dt
import strided_model as sm
from spec_model import Operand, Spec

FORM_CXX = {"functional": "BinaryForm::kFunctional", "out": "BinaryForm::kOut", "inplace": "BinaryForm::kInplace"}
KIND_CXX = {"bool": "kBool", "integral": "kInt", "floating": "kFloat", "complex": "kComplex"}


def double_cxx(v: float) -> str:
    if math.isinf(v):
        return ("-" if v < 0 else "") + "std::numeric_limits<double>::infinity()"
    return ec.cdouble(v)


def value_cxx(v, category: str) -> str:
    """A Value of the category (dtypes.toml `category`) of the dtype that holds v."""
    kind = KIND_CXX[category]
    if kind == "kBool":
        return f"{{Scalar::Kind::kBool, {int(bool(v))}, 0, 0}}"
    if kind == "kInt":
        return f"{{Scalar::Kind::kInt, {'INT64_MIN' if v == -2**63 else str(v) + 'LL'}, 0, 0}}"
    if kind == "kFloat":
        return f"{{Scalar::Kind::kFloat, 0, {double_cxx(v)}, 0}}"
    c = complex(v)
    return f"{{Scalar::Kind::kComplex, 0, {double_cxx(c.real)}, {double_cxx(c.imag)}}}"


def scalar_value_cxx(v) -> str:
    """A Python scalar: its kind is its Python type."""
    if isinstance(v, bool):
        return value_cxx(v, "bool")
    if isinstance(v, int):
        return value_cxx(v, "integral")
    if isinstance(v, float):
        return value_cxx(v, "floating")
    return value_cxx(v, "complex")


class Pool:
    """Interned literal arrays, emitted before the tables that point into them."""

    name, ids, rows, spec_rows = "ValuePool", [], [], []

    def __init__(self):
        self.names: dict[tuple[str, ...], str] = {}
        self.lines: list[str] = []

    def ref(self, values: list, category: str) -> str:
        items = tuple(value_cxx(v, category) for v in values)
        if not items:
            return "nullptr"
        if items not in self.names:
            self.names[items] = f"kValues{len(self.names)}"
            self.lines.append(f"const Value {self.names[items]}[] = {{{', '.join(items)}}};")
        return self.names[items]

    def emit(self) -> str:
        return "\n".join(self.lines) + "\n"


class Storage:
    """make_tensor(base, dtype, values): values in row-major order of base."""

    def __init__(self, dtype: str, base, values: list):
        self.dtype, self.base, self.values = dtype, tuple(base), list(values)


class Arg:
    """A row operand: a tensor (storage index + geometry; view=False: the storage itself)
    or a Python scalar."""

    def __init__(self, storage: int | None = None, geometry: sm.Geometry | None = None, scalar=None):
        self.storage, self.geometry, self.scalar = storage, geometry, scalar

    @property
    def is_scalar(self) -> bool:
        return self.storage is None


def element(storages: list[Storage], arg: Arg, index) -> object:
    g = arg.geometry
    return storages[arg.storage].values[g.offset + sum(i * s for i, s in zip(index, g.strides))]


def indices(shape):
    return itertools.product(*[range(s) for s in shape])


class Builder:
    def __init__(self, spec: Spec):
        self.spec, self.pool, self.c = spec, Pool(), spec.compute
        self.formats = spec.formats

    def contiguous(self, sizes) -> tuple[int, ...]:
        return sm.format_strides(self.formats["contiguous_format"], sizes)

    def plain(self, storages: list[Storage], k: int) -> Arg:
        """Operand k: storage k itself, contiguous."""
        base = storages[k].base
        return Arg(k, sm.Geometry(base, self.contiguous(base), 0))

    # ------------------------------------------------------------ the row
    def row(self, table, row_id: str, source, text: str, form: str, op: str, storages: list[Storage], a: Arg, b: Arg,
            out: Arg | None = None, alpha=None, tol_for: str | None = None) -> None:
        """Derives the outcome from the rules and emits one ArithRow."""
        spec = self.spec
        dtype_of = lambda x: None if x.is_scalar else storages[x.storage].dtype  # noqa: E731
        oa = Operand("scalar", scalar_kind(a.scalar)) if a.is_scalar else Operand(
            "zerodim" if not a.geometry.sizes else "tensor", dtype_of(a))
        ob = Operand("scalar", scalar_kind(b.scalar)) if b.is_scalar else Operand(
            "zerodim" if not b.geometry.sizes else "tensor", dtype_of(b))
        dest = a if form == "inplace" else out
        error, result, shape, strides, values, keeps = None, None, (), (), [], False
        device_strides = ()
        try:
            outcome = spec.op_outcome(op, oa, ob, spec.initial_default, refusal=False)
            if outcome[0] == "error":
                raise am.ArithError("op", outcome[2], outcome[1])
            if dest is not None:
                self.check_overlap(storages, dest, [a, b] if form == "out" else [b])
            sa = () if a.is_scalar else a.geometry.sizes
            sb = () if b.is_scalar else b.geometry.sizes
            try:
                shape = am.broadcast(sa, sb)
            except am.ArithError as e:
                x, y, k = e.message.split(",")
                raise am.ArithError.stated("broadcast", spec.broadcast_error, a=x, b=y, dim=k) from None
            if form == "inplace" and shape != tuple(sa):
                raise am.ArithError.stated("inplace", spec.inplace_error, self=shape_text(sa), shape=shape_text(shape))
            result = outcome[1]
            if dest is not None:
                outcome = spec.op_outcome(op, oa, ob, spec.initial_default, storages[dest.storage].dtype,
                                          refusal=False)
                if outcome[0] == "error":
                    raise am.ArithError("cast", outcome[2], outcome[1])
            if alpha is not None:
                if isinstance(alpha, bool) and result != "bool":
                    raise am.ArithError.stated("alpha", spec.alpha_errors["bool_error"])
                if isinstance(alpha, (float, complex)) and self.spec.by_name[result].category not in ("floating", "complex"):
                    raise am.ArithError.stated("alpha", spec.alpha_errors["float_error"])
                if isinstance(alpha, complex) and self.spec.by_name[result].category != "complex":
                    raise am.ArithError.stated("alpha", spec.alpha_errors["complex_error"])
            refused = spec.op_refusal(op, result)
            if refused is not None:
                raise am.ArithError("refuses", refused[1], refused[0])
        except am.ArithError as e:
            error = e
            if e.cause == "refuses":  # the op's kernel has no loop for the result dtype: its row says where
                source = spec.ops[op]["refuses"]["source"]
        out_dtype = result
        if error is None:
            if dest is not None and dest.geometry.sizes == shape:
                strides, keeps = dest.geometry.strides, True
                device_strides = strides
                out_dtype = storages[dest.storage].dtype
            else:
                strides = self.layout(storages, shape, result, [a, b], on_cpu=True)
                device_strides = self.layout(storages, shape, result, [a, b], on_cpu=False)
                if dest is not None:
                    out_dtype = storages[dest.storage].dtype
            values = []
            exact = True  # no element rounds anywhere, whatever the evaluation
            for index in indices(shape):
                x = a.scalar if a.is_scalar else element(storages, a, am.source_index(index, a.geometry.sizes))
                y = b.scalar if b.is_scalar else element(storages, b, am.source_index(index, b.geometry.sizes))
                v = self.c.element(op, self.c.cast(x, result), self.c.cast(y, result), result, alpha)
                values.append(self.c.cast(v, out_dtype))
                exact = exact and self.c.rounding_free(op, self.c.cast(x, result), self.c.cast(y, result), result, alpha)
        atol = rtol = 0.0
        tol = spec.tolerance_for(op, result, alpha) if result else None
        if tol is not None and error is None and exact:
            text += f" [exact: no rounding in any evaluation, {tol[0]} not needed]"
        elif tol is not None and error is None:
            fmt = self.c.dtypes.format(out_dtype)
            atol, rtol = am.tiny(fmt), tol[1] * am.eps(fmt)
            text += f" [tolerance: {tol[0]}]"
        self.emit(table, row_id, source, text, form, op, alpha, storages, a, b, out, error, out_dtype or "bool",
                  shape, strides, device_strides, keeps, values, atol, rtol)

    def check_overlap(self, storages, dest: Arg, inputs: list[Arg]) -> None:
        g = dest.geometry
        if am.internal_overlap(g.sizes, g.strides):
            raise am.ArithError.stated("overlap", self.spec.overlap_errors["internal_error"])
        size = lambda k: self.spec.by_name[storages[k].dtype].itemsize  # noqa: E731
        for x in inputs:
            if x.is_scalar or x.storage != dest.storage or x is dest:
                continue
            if am.partial_overlap(self.formats, g, x.geometry, size(dest.storage), size(x.storage)):
                raise am.ArithError.stated("overlap", self.spec.overlap_errors["partial_error"])

    def layout(self, storages, shape, result: str, inputs: list[Arg], on_cpu: bool) -> tuple[int, ...]:
        """output_layout; step 1 (inputs of another dtype as their to(result) copies) on the cpu only."""
        ops = []
        for x in inputs:
            if x.is_scalar:
                ops.append(((), (), True))
                continue
            g = x.geometry
            cast_copy = on_cpu and storages[x.storage].dtype != result
            strides = sm.preserve_strides(self.formats, g.sizes, g.strides) if cast_copy else g.strides
            ops.append((g.sizes, strides, True))
        return am.output_strides(self.formats, shape, ops)

    def emit(self, table, row_id, source, text, form, op, alpha, storages, a, b, out, error, dtype, shape, strides,
             device_strides, keeps, values, atol, rtol) -> None:
        sdefs = []
        for k in range(3):
            if k < len(storages):
                s = storages[k]
                sdefs.append(f"{{true, {dt(self.spec, s.dtype)}, {dims(s.base)}, {len(s.values)}, "
                             f"{self.pool.ref(s.values, self.spec.by_name[s.dtype].category)}}}")
            else:
                sdefs.append(f"{{false, DType::kBool, {dims([])}, 0, nullptr}}")
        err = "{false, ErrorKind::kRuntimeError, \"\"}" if error is None else \
            f"{{true, ErrorKind::k{error.kind}, {ec.cstr(error.message)}}}"
        fields = [FORM_CXX[form], ec.binary_op_cxx(op), ec.cbool(alpha is not None),
                  scalar_value_cxx(alpha if alpha is not None else 1), "{" + ", ".join(sdefs) + "}",
                  self.arg_cxx(storages, a), self.arg_cxx(storages, b), self.arg_cxx(storages, out), err,
                  dt(self.spec, dtype), dims(shape), dims(strides), dims(device_strides), ec.cbool(keeps), str(len(values)),
                  self.pool.ref(values, self.spec.by_name[dtype].category) if values else "nullptr", double_cxx(atol), double_cxx(rtol)]
        table.add(row_id, source, text, fields, inputs=" ".join(self.input_token(storages, x) for x in (a, b) if x is not None))

    @staticmethod
    def input_token(storages, x: Arg) -> str:
        """An operand as RowMeta::inputs names it (spec_model.Operand.token): s_<Python type>
        for a scalar, z_<dtype> for a zero-dim tensor, t_<dtype> for any other tensor."""
        if x.is_scalar:
            return "s_" + {bool: "bool", int: "int", float: "float", complex: "complex"}[type(x.scalar)]
        return ("z_" if len(x.geometry.sizes) == 0 else "t_") + storages[x.storage].dtype

    def arg_cxx(self, storages, x: Arg | None) -> str:
        if x is None:
            return f"{{ArithOperandKind::kNone, 0, false, {dims([])}, {dims([])}, 0, {value_cxx(0, 'integral')}}}"
        if x.is_scalar:
            return f"{{ArithOperandKind::kScalar, 0, false, {dims([])}, {dims([])}, 0, {scalar_value_cxx(x.scalar)}}}"
        g, base = x.geometry, storages[x.storage].base
        view = not (g.sizes == base and g.strides == self.contiguous(base) and g.offset == 0)
        return (f"{{ArithOperandKind::kTensor, {x.storage}, {ec.cbool(view)}, {dims(g.sizes)}, {dims(g.strides)}, "
                f"{g.offset}, {value_cxx(0, 'integral')}}}")


def scalar_kind(v) -> str:
    return "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "float" if isinstance(v, float) else "complex"


def shape_text(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def defined_pairs(c: am.Compute, op: str, xs: list, ys: list, r: str, alpha=None) -> list[tuple]:
    """The (x, y) pairs the rules define (complex mul/div of non-finite values and complex
    division by zero are left unspecified by the spec)."""
    out = []
    for x, y in itertools.product(xs, ys):
        try:
            c.element(op, c.cast(x, r), c.cast(y, r), r, alpha)
        except am.ArithError:
            continue
        out.append((x, y))
    return out


def iota(n: int, scale: int, dtype: str) -> list:
    return [(k + 1) * scale if dtype != "bool" else bool((k + 1) % 2) for k in range(n)]


# ------------------------------------------------------------------ tables
def arithmetic_tables(spec: Spec, Table) -> list:
    """The suite's tables; Table is emit_gtest's table writer."""
    bld = Builder(spec)
    vals = spec.arith["values"]["source"]
    documented = [d.name for d in spec.documented]
    # Shape and layout rows hold integers: the widest integral dtype the spec documents.
    ints = [d for d in documented if spec.by_name[d].category == "integral"]
    i64 = "int64" if "int64" in ints else ints[-1]

    def value_row(table, row_id, text, op, da, db, pairs, alpha=None, source=vals):
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        st = [Storage(da, [len(xs)], xs), Storage(db, [len(ys)], ys)]
        bld.row(table, row_id, source, text, "functional", op, st, bld.plain(st, 0), bld.plain(st, 1), alpha=alpha)

    examples = Table("ValueExamples", "ArithRow")
    for ex in spec.value_examples:
        value_row(examples, ex["id"], ex["text"], ex["op"], ex["a_dtype"], ex["b_dtype"], [(ex["a"], ex["b"])],
                  ex["alpha"], ex["source"])

    values = Table("Values", "ArithRow")
    for d in documented:
        for op in spec.op_names:
            outcome = spec.op_outcome(op, Operand("tensor", d), Operand("tensor", d), spec.initial_default)
            r = outcome[1] if outcome[0] == "ok" else d
            pairs = defined_pairs(spec.compute, op, spec.value_sets[d], spec.value_sets[d], r) if outcome[0] == "ok" \
                else [(spec.value_sets[d][0], spec.value_sets[d][0])]
            value_row(values, f"arith.values.{op}.{d}", f"{op} over every pair of the {d} value set", op, d, d, pairs)

    alpha_table = Table("Alpha", "ArithRow")
    asrc = spec.arith["alpha"]["source"]
    for d in documented:
        for alpha in spec.alpha_values[spec.by_name[d].category]:
            for op in ("add", "sub"):
                if op == "sub" and d == "bool":
                    continue
                pairs = defined_pairs(spec.compute, op, spec.value_sets[d], spec.value_sets[d], d, alpha)
                value_row(alpha_table, f"arith.alpha.{op}.{d}.{alpha_token(alpha)}",
                          f"{op}(a, b, alpha={alpha!r}) over every pair of the {d} value set", op, d, d, pairs,
                          alpha, asrc)
    # Each kind of alpha against one dtype of each category: alpha_check accepts or refuses.
    firsts = {}
    for d in documented:
        firsts.setdefault(spec.by_name[d].category, d)
    for d in firsts.values():
        for alpha in (True, 2, 0.5, complex(0.5, 1.0)):
            value_row(alpha_table, f"arith.alpha.kind.{d}.{alpha_token(alpha)}",
                      f"add({d}, {d}, alpha={alpha!r}): alpha_check", "add", d, d, [(spec.value_sets[d][1],) * 2],
                      alpha, asrc)

    mixed = Table("MixedDTypes", "ArithRow")
    m = spec.value_mixed
    for da, db in itertools.permutations(documented, 2):
        for op in spec.op_names:
            outcome = spec.op_outcome(op, Operand("tensor", da), Operand("tensor", db), spec.initial_default)
            xs, ys = spec.value_sets[da][:m], spec.value_sets[db][:m]
            pairs = defined_pairs(spec.compute, op, xs, ys, outcome[1]) if outcome[0] == "ok" else [(xs[0], ys[0])]
            value_row(mixed, f"arith.mixed.{op}.{da}.{db}", f"{op}({da} tensor, {db} tensor): promoted, then computed",
                      op, da, db, pairs)

    scalars = Table("Scalars", "ArithRow")
    ssrc = spec.arith["scalars"]["source"]
    for d in documented:
        for kind in ("bool", "int", "float", "complex"):
            s = spec.scalar_values[kind][0]
            for op in spec.op_names:
                for side in ("right", "left"):
                    outcome = spec.op_outcome(op, Operand("tensor", d) if side == "right" else Operand("scalar", kind),
                                              Operand("scalar", kind) if side == "right" else Operand("tensor", d),
                                              spec.initial_default)
                    xs = spec.value_sets[d][:m]
                    if outcome[0] == "ok":  # the tensor values the rules define with this scalar
                        xs = [p[0] if side == "right" else p[1] for p in
                              (defined_pairs(spec.compute, op, xs, [s], outcome[1]) if side == "right"
                               else defined_pairs(spec.compute, op, [s], xs, outcome[1]))]
                        if not xs:
                            continue
                    st = [Storage(d, [len(xs)], xs)]
                    t = bld.plain(st, 0)
                    a, b = (t, Arg(scalar=s)) if side == "right" else (Arg(scalar=s), t)
                    text = f"{op}({d} tensor, {kind} scalar {s!r})" if side == "right" else \
                        f"{op}({kind} scalar {s!r}, {d} tensor)"
                    bld.row(scalars, f"arith.scalar.{op}.{d}.{side}_{kind}", ssrc, text, "functional", op, st, a, b)

    broadcast = Table("Broadcast", "ArithRow")
    bsrc = spec.arith["broadcast"]["source"]
    for sa, sb in spec.broadcast_shapes:
        tok = f"{sm.shape_token(sa)}.{sm.shape_token(sb)}"
        na, nb = math.prod(sa), math.prod(sb)
        st = [Storage(i64, sa, iota(na, 1, i64)), Storage(i64, sb, iota(nb, 100, i64))]
        bld.row(broadcast, f"arith.broadcast.{tok}", bsrc, f"add of shapes {list(sa)} and {list(sb)}", "functional",
                "add", st, bld.plain(st, 0), bld.plain(st, 1))
        if sa:  # in-place into a (zero-dim self is covered by the promotion suite)
            bld.row(broadcast, f"arith.broadcast.inplace.{tok}", spec.arith["inplace"]["source"],
                    f"self of shape {list(sa)} += shape {list(sb)}", "inplace", "add", st, bld.plain(st, 0), bld.plain(st, 1))

    layouts = Table("OutputLayout", "ArithRow")
    lsrc = spec.arith["output_layout"]["source"]
    for la, lb in itertools.product(spec.layouts_same, repeat=2):
        for da, db in spec.layout_dtypes:
            st = [Storage(da, la["base"], iota(math.prod(la["base"]), 1, da)),
                  Storage(db, lb["base"], iota(math.prod(lb["base"]), 1000, db))]
            bld.row(layouts, f"arith.layout.{la['id']}.{lb['id']}.{da}.{db}", lsrc,
                    f"add({da} {la['id']}, {db} {lb['id']}): the result's strides", "functional", "add", st,
                    Arg(0, la["geometry"]), Arg(1, lb["geometry"]))
    for l in spec.layouts_same:
        for bc in spec.layouts_broadcast:
            for first in (l, bc):
                second = bc if first is l else l
                st = [Storage(i64, first["base"], iota(math.prod(first["base"]), 1, i64)),
                      Storage(i64, second["base"], iota(math.prod(second["base"]), 1000, i64))]
                bld.row(layouts, f"arith.layout.{first['id']}.{second['id']}", lsrc,
                        f"add({first['id']}, {second['id']}): broadcast, the result's strides", "functional", "add",
                        st, Arg(0, first["geometry"]), Arg(1, second["geometry"]))
    for e in spec.layout_extra:
        for fa, fb in itertools.product(e["formats"], repeat=2):
            st = [Storage(i64, e["base"], iota(math.prod(e["base"]), 1, i64)),
                  Storage(i64, e["base"], iota(math.prod(e["base"]), 1000, i64))]
            ga = sm.Geometry(e["base"], sm.format_strides(spec.formats[fa], e["base"]), 0)
            gb = sm.Geometry(e["base"], sm.format_strides(spec.formats[fb], e["base"]), 0)
            bld.row(layouts, f"arith.layout.{e['id']}.{fa}.{fb}", lsrc, f"add({e['id']} {fa}, {fb})", "functional",
                    "add", st, Arg(0, ga), Arg(1, gb))

    for e in spec.layout_pairs:
        a, b = e["a"], e["b"]
        st = [Storage(i64, a["base"], iota(math.prod(a["base"]), 1, i64)),
              Storage(i64, b["base"], iota(math.prod(b["base"]), 1000, i64))]
        bld.row(layouts, f"arith.layout.pair.{e['id']}", lsrc, f"add({list(a['geometry'].sizes)} strides "
                f"{list(a['geometry'].strides)}, {list(b['geometry'].sizes)} strides {list(b['geometry'].strides)}): "
                "the result's strides", "functional", "add", st, Arg(0, a["geometry"]), Arg(1, b["geometry"]))

    # A reduced-precision dtype computes in a wider type on the CPU (OpMath: float16 and bfloat16
    # in float32), through buffers: an operand or an out= with a stride must be read and written
    # element by element of its own size, not as the wider type.
    strided = Table("StridedReduced", "ArithRow")
    osrc, isrc = spec.arith["out"]["source"], spec.arith["inplace"]["source"]
    every_other = sm.Geometry((6,), (2,), 1)  # of a 12-element storage
    for d in documented:
        if spec.compute.opmath.get(d, d) == d:
            continue
        st = [Storage(d, (12,), iota(12, 1, d)), Storage(d, (6,), iota(6, 100, d)), Storage(d, (12,), [0] * 12)]
        bld.row(strided, f"arith.strided_operand.{d}", vals, f"add({d} every other element, {d}): computed in "
                f"{spec.compute.opmath[d]}, each element read at its own stride", "functional", "add", st,
                Arg(0, every_other), bld.plain(st, 1))
        bld.row(strided, f"arith.strided_out.{d}", osrc, f"add({d}, {d}, out=every other element of a {d} tensor): "
                "each result written at its own stride", "out", "add", st, bld.plain(st, 1), bld.plain(st, 1),
                Arg(2, every_other))

    # Kernels may run in chunks and take fast paths by stride: runs longer than any small buffer
    # (300 elements), and out= whose stride is not the element size.
    runs = Table("RunsAndOutStrides", "ArithRow")
    n = 300
    for da, db in (("float16", "float16"), ("int64", "int32"), ("int32", "int64")):
        st = [Storage(da, (n,), iota(n, 1, da)), Storage(db, (n,), iota(n, 100, db))]
        rid = f"arith.long_run.{da}" if da == db else f"arith.long_run.{da}.{db}"
        bld.row(runs, rid, vals, f"add({da} [{n}], {db} [{n}]): a long run", "functional", "add", st,
                bld.plain(st, 0), bld.plain(st, 1))
    st = [Storage("float16", (2, n + 1), iota(2 * (n + 1), 1, "float16")), Storage("float16", (2, n), [1.0] * (2 * n))]
    bld.row(runs, "arith.long_run.inplace_narrowed.float16", isrc, f"x[:, :{n}] += ones for a float16 x of shape "
            f"[2, {n + 1}]", "inplace", "add", st, Arg(0, sm.Geometry((2, n), (n + 1, 1), 0)), bld.plain(st, 1))
    st = [Storage("float32", (2, 3), iota(6, 1, "float32")), Storage("float32", (2, 3), iota(6, 100, "float32")),
          Storage("float32", (2, 4), [0.0] * 8)]
    bld.row(runs, "arith.out.padded.float32", osrc, "add(float32 [2, 3], float32 [2, 3], out=[2, 4][:, :3])", "out",
            "add", st, bld.plain(st, 0), bld.plain(st, 1), Arg(2, sm.Geometry((2, 3), (4, 1), 0)))
    st = [Storage("float32", (6,), iota(6, 1, "float32")), Storage("float32", (12,), [0.0] * 12)]
    stepped = Arg(1, sm.Geometry((6,), (2,), 0))
    bld.row(runs, "arith.out.stepped.tensor_scalar", osrc, "add(float32 [6], 2.0, out=[12][::2])", "out", "add", st,
            bld.plain(st, 0), Arg(scalar=2.0), stepped)
    bld.row(runs, "arith.out.stepped.scalar_tensor", osrc, "add(2.0, float32 [6], out=[12][::2])", "out", "add", st,
            Arg(scalar=2.0), bld.plain(st, 0), stepped)
    st = [Storage("int64", (6,), iota(6, 1, "int64")), Storage("int32", (6,), iota(6, 100, "int32")),
          Storage("int64", (12,), [0] * 12)]
    bld.row(runs, "arith.out.stepped.int64.int32", osrc, "add(int64 [6], int32 [6], out=int64 [12][::2])", "out",
            "add", st, bld.plain(st, 0), bld.plain(st, 1), Arg(2, sm.Geometry((6,), (2,), 0)))

    return [bld.pool, examples, values, alpha_table, mixed, scalars, broadcast, layouts, strided, runs,
            forms_table(spec, bld, Table)]


def forms_table(spec: Spec, bld: Builder, Table):
    """out= and in-place: kept strides, resizing, overlap, and which error comes first."""
    t = Table("OutAndInplace", "ArithRow")
    osrc, isrc, vsrc = spec.arith["out"]["source"], spec.arith["inplace"]["source"], spec.arith["overlap"]["source"]
    shape = spec.layout_shape
    n = math.prod(shape)
    contiguous = sm.Geometry(shape, bld.contiguous(shape), 0)

    def two(dtype="float32"):
        return [Storage(dtype, shape, iota(n, 1, dtype)), Storage(dtype, shape, iota(n, 1000, dtype))]

    for r in spec.layouts_same:
        if r["id"] == "expanded":
            continue  # an expanded output is the overlap rows' business
        st = two() + [Storage("float32", r["base"], [7.0] * math.prod(r["base"]))]
        bld.row(t, f"arith.out.keeps_strides.{r['id']}", osrc, f"add(a, b, out={r['id']} tensor of the right shape)",
                "out", "add", st, Arg(0, contiguous), Arg(1, contiguous), Arg(2, r["geometry"]))
        st = [Storage("float32", r["base"], iota(math.prod(r["base"]), 1, "float32")), two()[1]]
        bld.row(t, f"arith.inplace.keeps_strides.{r['id']}", isrc, f"{r['id']} self += contiguous other", "inplace",
                "add", st, Arg(0, r["geometry"]), Arg(1, contiguous))
    cl = spec.layouts_same[1]
    for size, fill in (((0,), []), ((3,), [7.0] * 3)):
        for name, g, base in (("contiguous", contiguous, shape), ("channels_last", cl["geometry"], cl["base"])):
            st = [Storage("float32", base, iota(n, 1, "float32")), Storage("float32", base, iota(n, 1000, "float32")),
                  Storage("float32", size, fill)]
            bld.row(t, f"arith.out.resized.{'empty' if not fill else 'nonempty'}.{name}", osrc,
                    f"add({name}, {name}, out=shape {list(size)}): resized and laid out as a new result", "out",
                    "add", st, Arg(0, g), Arg(1, g), bld.plain(st, 2))
    # Errors leave the destination untouched.
    st = two() + [Storage("int32", (3,), [7] * 3)]
    bld.row(t, "arith.out.cast_error", osrc, "add(float32, float32, out=int32) is refused before any resize", "out",
            "add", st, Arg(0, contiguous), Arg(1, contiguous), bld.plain(st, 2))
    st = [Storage("float32", (4, 5), iota(20, 1, "float32")), Storage("float32", (4, 5), iota(20, 10, "float32")),
          Storage("float32", (1, 5), [7.0] * 5)]
    expanded = sm.Geometry((4, 5), (0, 1), 0)
    bld.row(t, "arith.out.internal_overlap", vsrc, "out= an expanded tensor (stride 0, size 4) is refused", "out",
            "add", st, bld.plain(st, 0), bld.plain(st, 1), Arg(2, expanded))
    st2 = [Storage("float32", (1, 5), iota(5, 1, "float32")), Storage("float32", (4, 5), iota(20, 10, "float32"))]
    bld.row(t, "arith.inplace.internal_overlap", vsrc, "an expanded self += other is refused", "inplace", "add", st2,
            Arg(0, expanded), bld.plain(st2, 1))
    line = [Storage("float32", (10,), iota(10, 1, "float32")), Storage("float32", (6,), iota(6, 100, "float32"))]
    view = lambda off: sm.Geometry((6,), (1,), off)  # noqa: E731
    bld.row(t, "arith.out.partial_overlap", vsrc, "out= a view overlapping input a by 4 of 6 elements is refused", "out",
            "add", line, Arg(0, view(0)), bld.plain(line, 1), Arg(0, view(2)))
    bld.row(t, "arith.out.full_overlap", vsrc, "out= a view with a's exact memory and strides is allowed", "out", "add",
            line, Arg(0, view(2)), bld.plain(line, 1), Arg(0, view(2)))
    bld.row(t, "arith.inplace.partial_overlap", vsrc, "x[0:6] += x[2:8] is refused", "inplace", "add", line,
            Arg(0, view(0)), Arg(0, view(2)))
    bld.row(t, "arith.inplace.self", vsrc, "x += x (the same memory) is allowed", "inplace", "add", line,
            Arg(0, view(2)), Arg(0, view(2)))
    # Touching is not overlapping: memory ranges that meet at one end do not intersect.
    line12 = [Storage("float32", (12,), iota(12, 1, "float32")), Storage("float32", (6,), iota(6, 100, "float32"))]
    bld.row(t, "arith.out.adjacent_after", vsrc, "out= the 6 elements right after input a's (touching, not "
            "overlapping) is allowed", "out", "add", line12, Arg(0, view(0)), bld.plain(line12, 1), Arg(0, view(6)))
    bld.row(t, "arith.out.adjacent_before", vsrc, "out= the 6 elements right before input a's (touching, not "
            "overlapping) is allowed", "out", "add", line12, Arg(0, view(6)), bld.plain(line12, 1), Arg(0, view(0)))
    bld.row(t, "arith.inplace.adjacent", vsrc, "x[0:6] += x[6:12] (touching, not overlapping) is allowed", "inplace",
            "add", line12, Arg(0, view(0)), Arg(0, view(6)))
    # Overlap at the rule's edges: a zero-dim operand on self's one element; a strided self (not
    # dense: the check cannot decide, so allows); an out= expanded along a dimension of size 2.
    line10 = [Storage("float32", (10,), iota(10, 1, "float32"))]
    bld.row(t, "arith.inplace.zerodim_same_element", vsrc, "x[2:3] += x[2] (a zero-dim view of self's one element, "
            "other strides) is refused", "inplace", "add", line10, Arg(0, sm.Geometry((1,), (1,), 2)),
            Arg(0, sm.Geometry((), (), 2)))
    solo12 = [Storage("float32", (12,), iota(12, 1, "float32"))]
    bld.row(t, "arith.inplace.strided_self", vsrc, "x[0:12:4] += x[1:4] (self not dense: the check cannot decide, "
            "so allows)", "inplace", "add", solo12, Arg(0, sm.Geometry((3,), (4,), 0)), Arg(0, sm.Geometry((3,), (1,), 1)))
    st = [Storage("float32", (2, 5), iota(10, 1, "float32")), Storage("float32", (2, 5), iota(10, 10, "float32")),
          Storage("float32", (1, 5), [7.0] * 5)]
    bld.row(t, "arith.out.internal_overlap_size2", vsrc, "out= a tensor expanded along a dimension of size 2 (stride "
            "0) is refused", "out", "add", st, bld.plain(st, 0), bld.plain(st, 1), Arg(2, sm.Geometry((2, 5), (0, 1), 0)))
    # Which check comes first (sub_check, overlap, shapes, dtypes, alpha).
    st = [Storage("bool", (4, 5), [True] * 20), Storage("bool", (4, 5), [False] * 20), Storage("bool", (1, 5), [False] * 5)]
    bld.row(t, "arith.order.sub_before_overlap", vsrc, "sub of bools into an expanded out: the bool error first",
            "out", "sub", st, bld.plain(st, 0), bld.plain(st, 1), Arg(2, expanded))
    st = [Storage("float32", (4, 5), iota(20, 1, "float32")), Storage("float32", (3,), iota(3, 1, "float32")),
          Storage("int32", (1, 5), [7] * 5)]
    bld.row(t, "arith.order.overlap_before_shape", vsrc, "expanded out, shapes that do not broadcast, float into int: "
            "the overlap error first", "out", "add", st, bld.plain(st, 0), bld.plain(st, 1), Arg(2, expanded))
    st = [Storage("float32", (4, 5), iota(20, 1, "float32")), Storage("float32", (3,), iota(3, 1, "float32")),
          Storage("int32", (2,), [7] * 2)]
    bld.row(t, "arith.order.shape_before_cast", spec.arith["broadcast"]["source"],
            "shapes that do not broadcast and float into int: the shape error first", "out", "add", st, bld.plain(st, 0),
            bld.plain(st, 1), bld.plain(st, 2))
    st = [Storage("float32", (3,), iota(3, 1, "float32")), Storage("float32", (3,), iota(3, 1, "float32")),
          Storage("int32", (3,), [7] * 3)]
    bld.row(t, "arith.order.cast_before_alpha", spec.arith["alpha"]["source"],
            "float into int with a bool alpha: the cast error first", "out", "add", st, bld.plain(st, 0), bld.plain(st, 1),
            bld.plain(st, 2), alpha=True)
    return t


def alpha_token(alpha) -> str:
    if isinstance(alpha, bool):
        return str(alpha).lower()
    if isinstance(alpha, complex):
        return f"c{alpha.real:g}_{alpha.imag:g}".replace("-", "m").replace(".", "p")
    return f"{alpha:g}".replace("-", "m").replace(".", "p")
