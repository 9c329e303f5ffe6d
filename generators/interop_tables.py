"""The devices, asarray and dlpack suites' tables (spec/devices.toml, spec/asarray.toml,
spec/dlpack.toml), for emit_gtest.py.

Every expected answer comes from generators/interop_model.py applied to the spec's rules;
nothing is typed in by hand except what the spec itself states (the doc's examples).
"""

from __future__ import annotations

from arith_tables import scalar_value_cxx, value_cxx
import emit_common as ec
from emit_common import dims, dt, error_cxx, no_error, step_cxx, step_text
from interop_model import Device, call_text, fill
from spec_model import Source

STEP_CXX = {"set": "kSet", "enter": "kEnter", "exit": "kExit", "factory": "kFactory", "get": "kGet",
            "asarray": "kAsarray", "asarray_tensor": "kAsarrayTensor"}
SOURCE_CXX = {"tensor": "kTensor", "array": "kArray", "dlpack": "kDLPack", "array_scalar": "kArrayScalar",
              "buffer": "kBuffer", "sequence": "kSequence", "scalar": "kScalar"}
COPY_TEXT = {None: "None", True: "True", False: "False"}
COPY_CXX = {None: "-1", True: "1", False: "0"}


def arg_cxx(args: list) -> str:
    if len(args) == 1 and isinstance(args[0], int):
        return f"{{DeviceArg::Form::kOrdinal, \"\", {args[0]}}}"
    if len(args) == 1:
        return f"{{DeviceArg::Form::kString, {ec.cstr(args[0])}, 0}}"
    return f"{{DeviceArg::Form::kTypeIndex, {ec.cstr(args[0])}, {args[1]}}}"


def arg_token(args: list) -> str:
    """'cuda:1' -> cuda_1, ('cuda', 1) -> cuda.with_index_1, (1,) -> ordinal_1."""
    if len(args) == 1 and isinstance(args[0], int):
        return f"ordinal_{args[0]}"
    return args[0].replace(":", "_") + (f".with_index_{args[1]}" if len(args) == 2 else "") if args[0] else "empty"


def device_error(m, cls: str, fills: dict) -> tuple[str, str]:
    """The row's ExpectedError and its text for a rejected device call."""
    e = m.device_errors[cls]
    msg = fill(e["message"], fills)
    return f"{{true, ErrorKind::k{e['kind']}, {ec.cstr(msg)}}}", f"{e['kind']}: {msg}"


# ------------------------------------------------------------------ devices.toml
def devices_tables(spec, Table) -> list:
    m = spec.interop
    src = m.grammar["source"]
    errors_basis = f"pytorch: {m.errors_source}"
    parse = Table("DeviceParse", "DeviceRow")

    def add(row_id: str, args: list, source: Source, note: str = "") -> None:
        got = m.device_outcome(args)
        call = call_text(args)
        if got[0] == "ok":
            d: Device = got[1]
            parse.add(row_id, source, f"{call} -> {d.repr()}, str '{d}'{note}",
                      [arg_cxx(args), no_error(), "false", ec.cstr(d.type), str(-1 if d.index is None else d.index),
                       ec.cstr(str(d)), ec.cstr(d.repr())])
        else:
            _, cls, fills = got
            err, text = device_error(m, cls, fills)
            lists = m.device_errors[cls]["lists_types"]
            parse.add(row_id, source.with_basis(errors_basis), f"{call} -> {text}{note}" + (" (naming cpu, cuda, mps)" if lists else ""),
                      [arg_cxx(args), err, ec.cbool(lists), '""', "-1", '""', '""'])

    for ex in m.device_examples:
        add(ex["id"], ex["args"], ex["source"])
    for t in m.device_types:
        forms = [[t["name"]], [f"{t['name']}:0"], [t["name"], 0]]
        if t["name"] != "cpu":
            forms += [[f"{t['name']}:1"], [f"{t['name']}:{m.max_index}"], [t["name"], m.max_index]]
        for args in forms:
            by_doc = t["documented"] and len(args) == 1 and ":" not in args[0]
            # The grammar decides; the type's row (a documented type's, or PyTorch's list) is
            # where the case comes from.
            add(f"device.parse.{arg_token(args)}", args,
                Source(t["source"].clause if t["documented"] else src.clause,
                       t["source"].basis if by_doc else src.basis, t["source"].row))
    for inp in m.device_inputs:
        add(inp["id"], inp["args"], src.for_row(inp["id"]), f" ({inp['why']})")

    eq = Table("DeviceEquality", "DeviceEqualityRow")
    e = m.equality
    for a_args, a in m.equality_devices:
        for b_args, b in m.equality_devices:
            same = a == b
            eq.add(f"device.equal.{arg_token(a_args)}.{arg_token(b_args)}", e["source"],
                   f"{call_text(a_args)} {'==' if same else '!='} {call_text(b_args)}" + (", same hash" if same else ""),
                   [arg_cxx(a_args), arg_cxx(b_args), ec.cbool(same)])

    default = Table("DefaultDevice", "DefaultDeviceRow")
    d = m.default_device
    for case in m.default_cases:
        steps = case["steps"]
        if len(steps) > 10:
            raise ValueError(f"{case['id']}: more than 10 steps")
        cxx = ", ".join(f"{{DeviceStepKind::{STEP_CXX[k]}, {ec.cstr(arg or '')}, {ec.cstr(expect or '')}}}"
                        for k, arg, expect in steps)
        words = "; ".join(f"{k}({arg or ''})" + (f" -> {expect}" if expect else "") for k, arg, expect in steps)
        default.add(case["id"], d["source"].for_row(case["id"]), f"{case['text']}: {words}",
                    [str(len(steps)), "{" + cxx + "}"])
    return [parse, eq, default]


# ------------------------------------------------------------------ asarray.toml
def py_text(v) -> str:
    """A Python value as a row's call names it, where the spec does not write it itself."""
    if isinstance(v, list):
        return "[" + ", ".join(py_text(x) for x in v) + "]"
    if isinstance(v, complex):
        return f"({v.real!r}+{v.imag!r}j)" if v.real else f"{v.imag!r}j"
    return repr(v)


def py_nodes(v) -> list[tuple]:
    """A Python value (a number or nested lists of them) as PyNode data (conformance/checks/
    common.h): (is_list, n_items, number or None) for each node, in preorder."""
    if isinstance(v, list):
        return [(True, len(v), None)] + [node for x in v for node in py_nodes(x)]
    return [(False, 0, v)]


class PyValuePool:
    """The rows' Python values as PyNode arrays, each value once, emitted before the table
    that points into them (a pseudo-table: no rows of its own)."""

    name, ids, rows, spec_rows = "PyValuePool", [], [], []

    def __init__(self):
        self.names: dict[tuple[str, ...], str] = {}
        self.lines: list[str] = []

    def ref(self, value) -> tuple[str, int]:
        """The array holding `value`'s nodes, and how many there are."""
        nodes = tuple(f"{{{ec.cbool(is_list)}, {n}, {value_cxx(0, 'integral') if is_list else scalar_value_cxx(x)}}}"
                      for is_list, n, x in py_nodes(value))
        if nodes not in self.names:
            self.names[nodes] = f"kPyValue{len(self.names)}"
            self.lines.append(f"const PyNode {self.names[nodes]}[] = {{{', '.join(nodes)}}};")
        return self.names[nodes], len(nodes)

    def emit(self) -> str:
        return "\n".join(self.lines) + "\n"


def literal(value, text: str | None = None) -> tuple:
    """A row's Python value, and how its call names it: as the spec writes it (`text`), else
    py_text's spelling."""
    return value, py_text(value) if text is None else text


def asarray_tables(spec, Table) -> list:
    m = spec.interop
    t = Table("Asarray", "AsarrayRow")
    pool = PyValuePool()
    default_float = spec.initial_default

    def row(row_id, source, text, kind, src_dtype, sizes, byte_strides, values, nbytes, dtype, device, copy, default,
            err=None, outcome=None, grad=(), result_text=None):
        """One AsarrayRow: `err` ({kind, message}) or `outcome` (dtype, sizes, device, shares).
        values: literal(...), or None (a buffer). grad: the autograd fields (a row of [autograd])."""
        if err:
            res, expect = f"{err['kind']}: {err['message']}", error_cxx(err)
            dt_out, sizes_out, dev_out, shares = src_dtype or default, (), "", False
        else:
            dt_out, sizes_out, dev_out, shares = outcome
            res, expect = f"{dt_out} {list(sizes_out)} on {dev_out}, " + ("shares memory" if shares else "a copy"), no_error()
        res = result_text or res
        nodes, n = pool.ref(values[0]) if values is not None else ("nullptr", 0)
        values_text = values[1] if values is not None else ""
        t.add(row_id, source, f"{text} -> {res}",
              [f"SourceKind::{SOURCE_CXX[kind]}", dt(spec, src_dtype or default), dims(sizes), dims(byte_strides),
               nodes, str(n), ec.cstr(values_text), str(m.dl_dtype_codes[src_dtype][1] if kind == "dlpack" else 0),
               str(nbytes),
               ec.cbool(dtype is not None), dt(spec, dtype or default),
               ec.cstr(device or ""), COPY_CXX[copy], dt(spec, default), expect, dt(spec, dt_out), dims(sizes_out),
               ec.cstr(dev_out), ec.cbool(shares), *grad])

    def add(row_id, kind, src_dtype, sizes, byte_strides, values, nbytes, dtype, device, copy, default, text, source,
            inferred=None):
        """A row whose answer the asarray rules decide."""
        if kind == "buffer":  # the bytes grouped by the dtype read
            sizes = (nbytes // spec.by_name[dtype or default].itemsize,)
        got = m.asarray_outcome(kind, inferred or src_dtype, tuple(sizes), dtype, device, copy, default, "cpu")
        call = (f"asarray({text}" + (f", dtype={dtype}" if dtype else "") + (f", device={device}" if device else "") +
                f", copy={COPY_TEXT[copy]})")
        row(row_id, source, call, kind, src_dtype, sizes, byte_strides, values, nbytes, dtype, device, copy, default,
            err=got[1] if got[0] == "error" else None, outcome=got[1:] if got[0] == "ok" else None)

    def alternating(n: int) -> tuple:
        return literal([k % 2 for k in range(n)])

    def contiguous_bytes(sizes, itemsize):
        strides, run = [], itemsize
        for s in reversed(sizes):
            strides.insert(0, run)
            run *= max(s, 1)
        return strides

    # The cross: every source x dtype (none / own / other) x device (none / cpu / other) x copy.
    for kind in ("tensor", "array", "dlpack", "array_scalar", "buffer", "sequence", "scalar"):
        sw = m.sweep[kind]
        source = m.sources[kind]["source"]
        if kind in ("tensor", "array", "dlpack", "array_scalar"):
            sizes, src_dtype = sw["sizes"], sw["dtype"]
            n = 1
            for s in sizes:
                n *= s
            values, nbytes, inferred = alternating(n), 0, None
            bstr = contiguous_bytes(sizes, spec.by_name[src_dtype].itemsize) if kind == "array" else []
            text = {"tensor": f"tensor({src_dtype}{list(sizes)})", "array": f"array({src_dtype}{list(sizes)})",
                    "dlpack": f"dlpack({src_dtype}{list(sizes)})", "array_scalar": f"numpy.{src_dtype}(0)"}[kind]
            own = src_dtype
        elif kind == "buffer":
            sizes, src_dtype, values, nbytes, bstr, inferred = (), None, None, sw["bytes"], [], None
            text, own = f"bytearray({sw['bytes']})", default_float
        else:
            sizes, src_dtype, values, nbytes, bstr = (), None, literal(sw["value"], sw["literal"]), 0, []
            inferred = m.infer_dtype(sw["value"], default_float)
            text, own = sw["literal"], inferred
            sizes = m.sizes_of(sw["value"])
        for dname, dtype in (("none", None), ("same", own), ("other", sw["other_dtype"])):
            for vname, device in (("none", None), ("cpu", "cpu"), ("other", m.other_device)):
                for copy in (None, True, False):
                    row_id = f"asarray.{kind}.dtype_{dname}.device_{vname}.copy_{COPY_TEXT[copy].lower()}"
                    add(row_id, kind, src_dtype, sizes, bstr, values, nbytes, dtype, device, copy, default_float, text,
                        source, inferred)

    # Every dtype to every dtype, tensor source, copy=None.
    if m.dtype_pairs:
        source = m.sources["tensor"]["source"]
        for a in spec.documented:
            for b in spec.documented:
                add(f"asarray.tensor_dtype.{a.name}.{b.name}", "tensor", a.name, (2, 3), [], alternating(6),
                    0, b.name, None, None, default_float, f"tensor({a.name}[2, 3])", source)
    # Every dtype as an array (shares, strides from bytes).
    source = m.sources["array"]["source"]
    for d in spec.documented:
        add(f"asarray.array_dtype.{d.name}", "array", d.name, (3, 2), contiguous_bytes((3, 2), d.itemsize),
            alternating(6), 0, None, None, None, default_float, f"array({d.name}[3, 2])", source)

    # Type inference.
    inf = m.inference
    for ex in m.inference_examples:
        value = ex["value"]
        kind = "sequence" if isinstance(value, list) else "scalar"
        values = literal(value, ex["literal"])
        sizes = m.sizes_of(value)
        dtype = ex["dtype"]
        call = (f"asarray({ex['literal']}" + (f", dtype={dtype}" if dtype else "") +
                f") with default dtype {ex['default']}")
        if sizes and sizes[0] in ("ragged", "not_sequence"):
            if sizes[0] == "ragged":
                _, expected, dim, got = sizes
                e = m.ragged_error
                msg = fill(e["message"], {"expected": expected, "dim": dim, "got": got})
            else:
                e = m.not_sequence_error
                msg = e["message"]
            row(ex["id"], inf["source"].for_row(ex["id"]), call, kind, None, (), [], values, 0, dtype, None, None,
                ex["default"], err={"kind": e["kind"], "message": msg})
            continue
        if dtype and (e := m.store_error(value, dtype)):
            row(ex["id"], inf["source"].for_row(ex["id"]), call, kind, None, (), [], values, 0, dtype, None, None,
                ex["default"], err={"kind": e["kind"], "message": e["message"]})
            continue
        inferred = m.infer_dtype(value, ex["default"])
        add(ex["id"], kind, None, sizes, [], values, 0, dtype, None, None, ex["default"], ex["literal"],
            inf["source"].for_row(ex["id"]), inferred)

    # The buffer protocol: every dtype against each length.
    b = m.buffer
    for length in b["lengths"]:
        for d in [None] + [x.name for x in spec.documented]:
            dtype = d or default_float
            item = spec.by_name[dtype].itemsize
            row_id = f"asarray.buffer.{length}.{d or 'default'}"
            call = f"asarray(bytearray({length})" + (f", dtype={d})" if d else ")")
            if length == 0 or length % item:
                e = b["empty_error"] if length == 0 else b["length_error"]
                msg = fill(e["message"], {"bytes": length, "itemsize": item})
                row(row_id, b["source"], call, "buffer", dtype, (), [], None, length, d, None, None, default_float,
                    err={"kind": e["kind"], "message": msg})
                continue
            add(row_id, "buffer", None, (length // item,), [], None, length, d, None, None, default_float,
                f"bytearray({length})", b["source"])

    # The array interface: strides in bytes.
    a = m.array
    for ex in m.array_examples:
        item = spec.by_name[ex["dtype"]].itemsize
        n = 1
        for s in ex["sizes"]:
            n *= s
        call = f"asarray(array({ex['dtype']}, sizes {list(ex['sizes'])}, byte strides {list(ex['byte_strides'])}))"
        bad = next((s for s in ex["byte_strides"] if s < 0), None)
        err = a["negative_error"] if bad is not None else (
            a["stride_error"] if any(s % item for s in ex["byte_strides"]) else None)
        if err:
            row(ex["id"], a["source"].for_row(ex["id"]), call, "array", ex["dtype"], ex["sizes"], ex["byte_strides"],
                alternating(n), 0, None, None, None, default_float, err=err)
            continue
        add(ex["id"], "array", ex["dtype"], ex["sizes"], ex["byte_strides"], alternating(n), 0, None, None, None,
            default_float, f"array({ex['dtype']}, byte strides {list(ex['byte_strides'])})",
            a["source"].for_row(ex["id"]))

    # The doc's examples.
    doc_source = m.sources["tensor"]["source"]
    for ex in m.doc_examples:
        item = spec.by_name[ex["dtype"]].itemsize
        bstr = [item] if ex["kind"] == "array" else []
        add(ex["id"], ex["kind"], ex["dtype"], ex["sizes"], bstr, literal(ex["values"]), 0, ex["as_dtype"], None,
            ex["copy"], default_float, ex["text"].split(":")[0], doc_source.for_row(ex["id"]))

    # requires_grad and autograd history: the asarray rules decide the dtype and sharing, the
    # autograd rule (interop_model.autograd_outcome) the flags, the history and the error.
    for ex in m.autograd_examples:
        kind, history, rg, copy, as_dtype = ex["kind"], ex["history"], ex["requires_grad"], ex["copy"], ex["as_dtype"]
        sizes, nbytes, bstr = ex["sizes"], 0, []
        if kind in ("sequence", "scalar"):
            values, natural = literal(ex["value"], ex["literal"]), m.infer_dtype(ex["value"], default_float)
            text = ex["literal"]
        elif kind == "buffer":
            values, natural, nbytes = None, default_float, 8
            sizes = (nbytes // spec.by_name[default_float].itemsize,)
            text = f"bytearray({nbytes})"
        else:
            n = 1
            for s in sizes:
                n *= s
            values, natural = literal(list(range(1, n + 1))), ex["src_dtype"]
            if kind == "array":
                bstr = contiguous_bytes(sizes, spec.by_name[natural].itemsize)
            text = {"tensor": f"tensor({natural}{list(sizes)})", "array": f"array({natural}{list(sizes)})",
                    "dlpack": f"dlpack({natural}{list(sizes)})", "array_scalar": f"numpy.{natural}(1)"}[kind]
            text = {"leaf": f"a = {text}.requires_grad_()", "add": f"b = ({text}.requires_grad_() + 2)"}.get(history, text)
        got = m.asarray_outcome(kind, natural, tuple(sizes), as_dtype, None, copy, default_float, "cpu")
        if got[0] != "ok":
            raise ValueError(f"{ex['id']}: the asarray rules give {got}: an autograd row needs a result")
        ag = m.autograd_outcome(natural, history, as_dtype, got[4], rg)
        call = (f"asarray({text}" + (f", dtype={as_dtype}" if as_dtype else "") +
                (f", copy={COPY_TEXT[copy]}" if copy is not None else "") +
                (f", requires_grad={COPY_TEXT[rg]}" if rg is not None else "") + ")")
        src_grad = {"none": "", "leaf": "", "add": m.autograd["history_grad_fn"]}[history]
        if ag[0] == "error":
            e = ag[1]
            grad = ["true", COPY_CXX[rg], str(("none", "leaf", "add").index(history)), "false", "true", '""',
                    ec.cstr(src_grad), "-1"]
            row(ex["id"], ex["source"], f"{call}: {ex['text']}", kind, ex["src_dtype"], sizes, bstr, values, nbytes,
                as_dtype, None, copy, default_float, err={"kind": e["kind"], "message": e["message"]}, grad=grad)
            continue
        _, want_rg, want_leaf, want_fn, after = ag
        after = after if kind == "tensor" else None
        grad = ["true", COPY_CXX[rg], str(("none", "leaf", "add").index(history)), ec.cbool(want_rg),
                ec.cbool(want_leaf), ec.cstr(want_fn or ""), ec.cstr(src_grad), COPY_CXX[after],
                ec.cbool(ex["source_only"])]
        if ex["source_only"]:
            row(ex["id"], ex["source"], ex["text"], kind, ex["src_dtype"], sizes, bstr, values, nbytes,
                None, None, None, default_float, outcome=got[1:], grad=grad,
                result_text=f"a: requires_grad True, is_leaf True, grad_fn None; b: requires_grad True, is_leaf False, "
                            f"grad_fn {src_grad} (no asarray call)")
            continue
        words = (f"requires_grad {want_rg}, is_leaf {want_leaf}, grad_fn {want_fn}" +
                 ("" if after is None or kind != "tensor" else f"; the source's requires_grad {after}"))
        row(ex["id"], ex["source"], f"{call}: {ex['text']} ({words})", kind, ex["src_dtype"], sizes, bstr, values,
            nbytes, as_dtype, None, copy, default_float, outcome=got[1:], grad=grad)
    return [pool, t]


# ------------------------------------------------------------------ dlpack.toml
def dlpack_tables(spec, Table) -> list:
    m = spec.interop
    exp = Table("DLPackExport", "DLPackExportRow")
    ex_rule = m.dl_export
    cpu = m.dl_devices["cpu"]
    cpu_code = m.dl_device_codes[cpu["device_type"]]
    for d in spec.documented:
        code_name, code, bits = m.dl_dtype_codes[d.name]
        for g in m.dl_export_geometries:
            geo = g["geometry"]
            strides = m.dl_strides(geo.sizes, geo.strides)
            chain = g["chain"]
            call = f"to_dlpack(make_tensor({list(g['base'])}, {d.name})" + "".join("." + step_text(s) for s in chain) + ")"
            exp.add(f"dlpack.export.{g['name']}.{d.name}", ex_rule["source"],
                    f"{call} -> dtype ({code_name}, {bits}, 1), shape {list(geo.sizes)}, strides {list(strides)}, "
                    f"byte_offset 0, device ({cpu['device_type']}, 0)",
                    [dt(spec, d.name), dims(g["base"]), str(len(chain)),
                     "{" + ", ".join(step_cxx(s) for s in chain) + "}" if chain else "{}", '"cpu"', no_error(),
                     str(code), str(bits), dims(geo.sizes), dims(strides), str(cpu_code), "0"])
    dev = m.dl_devices
    for name in dev["unpackable"]:
        e = dev["export_error"]
        msg = fill(e["message"], {"device": name})
        exp.add(f"dlpack.export.device_{name}", dev["source"],
                f"to_dlpack(empty([2, 3], device='{name}')) -> {e['kind']}: {msg}",
                [dt(spec, "float32"), dims([2, 3]), "0", "{}", ec.cstr(name),
                 f"{{true, ErrorKind::k{e['kind']}, {ec.cstr(msg)}}}", "0", "0", dims([]), dims([]), "0", "0"])
    cuda = dev["cuda"]
    exp.add("dlpack.export.device_cuda", dev["source"],
            f"to_dlpack(empty([2, 3], device='cuda:0')) -> device ({cuda['device_type']}, 0)",
            [dt(spec, "float32"), dims([2, 3]), "0", "{}", '"cuda:0"', no_error(), str(m.dl_codes["kDLFloat"]), "32",
             dims([2, 3]), dims([3, 1]), str(m.dl_device_codes[cuda["device_type"]]), "0"])

    imp = Table("DLPackImport", "DLPackImportRow")
    im = m.dl_import
    for d in spec.documented:
        code_name, code, bits = m.dl_dtype_codes[d.name]
        for g in m.dl_import_geometries:
            strides = g["strides"]
            text = (f"from_dlpack(DLTensor dtype ({code_name}, {bits}, 1), shape {list(g['sizes'])}, strides "
                    f"{list(strides) if strides else 'NULL'}, byte_offset {g['byte_offset']}) -> {d.name}, "
                    f"sharing the memory; the deleter runs once, after the last view is gone")
            imp.add(f"dlpack.import.{g['name']}.{d.name}", im["source"], text,
                    [dt(spec, d.name), str(code), str(bits), "1", str(cpu_code), dims(g["sizes"]), dims(strides),
                     ec.cbool(not strides), str(g["byte_offset"]), no_error()])
    for r in m.dl_import_invalid:
        e = r["error"]
        imp.add(r["id"], r["source"],
                f"{r['text']}: from_dlpack(dtype ({r['code']}, {r['bits']}, {r['lanes']}), device_type {r['device']}) -> "
                f"{e['kind']} containing \"{e['message']}\"; the caller keeps ownership (no deleter call)",
                [dt(spec, "float32"), str(r["code"]), str(r["bits"]), str(r["lanes"]), str(r["device"]), dims([2, 3]),
                 dims([3, 1]), "false", "0", error_cxx(e)])

    rt = Table("DLPackRoundTrip", "DLPackRoundTripRow")
    r = m.dl_round_trip
    geos = {g["name"]: g for g in m.dl_export_geometries}
    for d in spec.documented:
        for name in r["geometries"]:
            g = geos[name]
            geo = g["geometry"]
            chain = g["chain"]
            for from_peer in (False, True):
                a, b = ("peer", "candidate") if from_peer else ("candidate", "peer")
                rt.add(f"dlpack.round_trip.{'from' if from_peer else 'to'}_{r['peer']}.{name}.{d.name}",
                       r["source"],
                       f"{a} -> DLPack -> {b} ({r['peer']} is the peer): {d.name} {list(geo.sizes)} strides "
                       f"{list(m.dl_strides(geo.sizes, geo.strides))}, one memory",
                       [dt(spec, d.name), dims(g["base"]), str(len(chain)),
                        "{" + ", ".join(step_cxx(s) for s in chain) + "}" if chain else "{}", ec.cbool(from_peer),
                        ec.cstr(r["peer"]), dims(geo.sizes), dims(m.dl_strides(geo.sizes, geo.strides))])
    return [exp, imp, rt]
