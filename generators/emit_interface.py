"""Emits every end of the candidate seam from the one interface description
(spec/interface.toml, with the features of spec/features.toml; interface_model.py loads both).

  --suite enums      spec/interface.inc: X-macros of the features (TCTS_FORALL_FEATURES, in
                     features.toml's order; TCTS_FEATURE_COUNT) and the error kinds
                     (TCTS_FORALL_ERROR_KINDS)
  --suite records    spec/interface_records.inc: the records' structs (candidate.h)
  --suite virtuals   spec/interface_virtuals.inc: the Candidate virtuals, each answering
                     NotSupported unless an adapter overrides it (inside class Candidate)
  --suite codecs     spec/interface_codecs.inc: ToJson / FromJson for every record (wire.h,
                     namespace tcts::wire), shared by both C++ ends of the pipe
  --suite suite      spec/interface_suite.inc: the suite's end, one ProcessCandidate override per
                     op that is not `custom` (inside class ProcessCandidate)
  --suite kit        spec/interface_kit.inc: the C++ kit's dispatch table entries, one handler
                     per op (inside TesteeServer::State::Ops(); custom ops call On<Name>)
  --suite calls      spec/interface_calls.inc: one call helper per op (namespace tcts::calls, after
                     harness.h's Called<T>): calls the Candidate virtual and carries the op's
                     feature with the answer, so a check never names a feature for a call
  --suite overrides  spec/interface_overrides.inc: IsAnswerFeature() and OverridesOpsOf<A>(feature),
                     which ops a candidate class overrides, by feature (CandidateOf<A>: an adapter's
                     declared features; a feature is all its ops or none, checked at compile time)
  --suite echo       spec/interface_echo.inc: a test candidate's overrides, each answering what
                     the current vector step says (Reply<T>: the C++ kit's session replay)
  --suite json       spec/interface.json: the description as data (sent in `hello`), with the
                     binary ops and their symbols (spec/promotion.toml [[op]], binary_ops.py)
  --suite protocol_table   the operation table of PROTOCOL.md (a test compares them)
  --suite vectors    spec/interface_vectors.json: the protocol's test vectors (see vectors.py)

Usage: emit_interface.py --suite SUITE --out FILE spec/*.toml   (it reads interface.toml, features.toml
and promotion.toml's [[op]] rows)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

import emit_common
import interface_model
from interface_model import Arg, Interface, Op

GEN = "generators/emit_interface.py"
SRC = "spec/interface.toml and spec/features.toml"
# The outputs that carry the description as data (interface.json, TCTS_INTERFACE_JSON) hold the binary ops too.
SRC_WITH_OPS = "spec/interface.toml, spec/features.toml and spec/promotion.toml [[op]]"

# Wire type -> the C++ value type.
CXX_VALUE = {
    "dtype": "DType", "int": "std::int64_t", "int32": "int", "uint8": "std::uint8_t", "uint16": "std::uint16_t",
    "uint64": "std::uint64_t", "uintptr": "std::uintptr_t", "bool": "bool", "string": "std::string",
    "float": "double", "ints": "std::vector<std::int64_t>", "scalar": "Scalar", "scalars": "std::vector<Scalar>",
    "operand": "Operand", "tensor": "TensorHandle", "layout": "Layout", "memory_format": "MemoryFormat",
    "binary_op": "BinaryOp", "device_arg": "DeviceArg", "address": "std::uintptr_t",
    "dlpack_export": "DLManagedTensor*",
}
# Passed by value (the rest by const reference).
BY_VALUE = {"dtype", "int", "int32", "uint8", "uint16", "uint64", "uintptr", "bool", "float", "layout",
            "memory_format", "binary_op"}


def cxx_value(iface: Interface, t: str) -> str:
    base = t.rstrip("?")
    v = CXX_VALUE.get(base) or (base if iface.record(base) else None)
    if v is None:
        raise interface_model.InterfaceError(f"no C++ type for {t!r}")
    return f"std::optional<{v}>" if t.endswith("?") else v


def cxx_param(iface: Interface, a: Arg) -> str:
    if a.cxx:
        return f"{a.cxx} {a.cxx_name or a.name}"
    v = cxx_value(iface, a.type)
    by_value = a.base in BY_VALUE
    return f"{v} {cxx_name(a)}" if by_value else f"const {v}& {cxx_name(a)}"


def cxx_name(a: Arg) -> str:
    return a.cxx_name or a.name


def cxx_result(iface: Interface, op: Op) -> str:
    if op.result == "none":
        return "Status"
    return f"Result<{cxx_value(iface, op.result)}>"


def params(iface: Interface, op: Op) -> str:
    return op.cxx_params if op.cxx_params else ", ".join(cxx_param(iface, a) for a in op.args)


def signature(iface: Interface, op: Op) -> str:
    """`Result name(params)`: the op's Candidate virtual, as declared and as each override repeats it."""
    return f"{cxx_result(iface, op)} {op.name}({params(iface, op)})"


def camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def comment(text: str, indent: str = "") -> list[str]:
    """`text` as // lines of at most about 100 columns."""
    out, line = [], ""
    for word in text.split():
        if line and len(indent) + 3 + len(line) + 1 + len(word) > 100:
            out.append(f"{indent}// {line}")
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        out.append(f"{indent}// {line}")
    return out


# ---------------------------------------------------------------- C++
def emit_enums(iface: Interface) -> str:
    lines = [emit_common.header(SRC_WITH_OPS, GEN, "//"),
             "// TCTS_FORALL_FEATURES(_): _(enumerator, \"name\"), in spec/features.toml's order.",
             "#define TCTS_FORALL_FEATURES(_) \\"]
    lines += [f"  _({f.enumerator}, {emit_common.cstr(f.name)}) \\" for f in iface.features]
    lines += ["", f"#define TCTS_FEATURE_COUNT {len(iface.features)}", "",
              "// TCTS_FORALL_ERROR_KINDS(_): _(enumerator, \"name\"), every error kind of the interface.",
              "#define TCTS_FORALL_ERROR_KINDS(_) \\"]
    lines += [f"  _({e.enumerator}, {emit_common.cstr(e.name)}) /* {e.doc} */ \\" for e in iface.errors]
    pytorch = [e for e in iface.errors if e.raised_by == "pytorch"]
    lines += ["", "// TCTS_FORALL_PYTORCH_ERROR_KINDS(_): the kinds PyTorch raises (raised_by = \"pytorch\"): what an",
              "// expected error may name.", "#define TCTS_FORALL_PYTORCH_ERROR_KINDS(_) \\"]
    lines += [f"  _({e.enumerator}, {emit_common.cstr(e.name)}) \\" for e in pytorch]
    lines += ["", f"#define TCTS_PYTORCH_ERROR_KIND_NAMES {emit_common.cstr(', '.join(e.name for e in pytorch))}"]
    feats = {f.name: f for f in iface.features}
    lines += ["", "// TCTS_FORALL_CHECKS(_): _(enumerator, \"name\", the Feature it needs or std::nullopt), every",
              "// aspect a case's checks judge ([[check]] in spec/interface.toml), in its order.",
              "#define TCTS_FORALL_CHECKS(_) \\"]
    lines += [f"  _({c.enumerator}, {emit_common.cstr(c.name)}, {'Feature::' + feats[c.needs].enumerator if c.needs else 'std::nullopt'}) \\"
              for c in iface.checks]
    lines += ["", "// TCTS_FORALL_OPS(_): _(\"op\", feature enumerator).", "#define TCTS_FORALL_OPS(_) \\"]
    lines += [f"  _({emit_common.cstr(o.name)}, {feats[o.feature].enumerator}) \\" for o in iface.ops]
    lines += ["", "// TCTS_FORALL_RECORDS(_): _(Record), every record of the interface.", "#define TCTS_FORALL_RECORDS(_) \\"]
    lines += [f"  _({r.name}) \\" for r in iface.records]
    lines += ["", "// The protocol versions the suite speaks, lowest first.", "#define TCTS_FORALL_PROTOCOL_VERSIONS(_) \\"]
    lines += [f"  _({v}) \\" for v in iface.protocol_versions]
    lines += ["", f"#define TCTS_PROTOCOL_MAX_VERSION {max(iface.protocol_versions)}"]
    text = json.dumps(iface.as_json(), separators=(",", ":"))
    if ")tcts\"" in text:
        raise interface_model.InterfaceError("the description contains the raw-string delimiter )tcts\"")
    lines += ["", "// The description as data (spec/interface.json), compact: the suite sends it in `hello`.",
              f"#define TCTS_INTERFACE_JSON R\"tcts({text})tcts\"", ""]
    return "\n".join(lines)


def emit_records(iface: Interface) -> str:
    lines = [emit_common.header(SRC, GEN, "//")]
    for r in iface.records:
        lines += comment(r.doc)
        lines.append(f"struct {r.name} {{")
        for a in r.fields:
            init = ""
            if a.has_default and a.base == "bool":
                init = " = " + emit_common.cbool(bool(a.default))
            elif a.base in BY_VALUE and not a.nullable:
                init = "{}"
            lines.append(f"  {cxx_value(iface, a.type)} {a.name}{init};")
        lines += ["};", ""]
    return "\n".join(lines)


def emit_virtuals(iface: Interface) -> str:
    lines = [emit_common.header(SRC, GEN, "//"),
             "// Inside class Candidate: one virtual per operation, answering NotSupported unless overridden.", ""]
    feats = {f.name: f for f in iface.features}
    for o in iface.ops:
        lines += comment(f"{o.doc} (feature {o.feature}: Feature::{feats[o.feature].enumerator})", "  ")
        lines.append(f"  virtual {signature(iface, o)} {{ return NotSupported({emit_common.cstr(o.name)}); }}")
    return "\n".join(lines + [""])


def emit_codecs(iface: Interface) -> str:
    lines = [emit_common.header(SRC, GEN, "//"),
             "// Inside namespace tcts::wire, after the codecs of the value types: one ToJson and one FromJson",
             "// per record. A field with a default may be absent; any other is required.", ""]
    for r in iface.records:
        lines.append(f"inline void FromJson(const Json& v, const char* field, {r.name}* out);")
        lines.append(f"inline Json ToJson(const {r.name}& r, int protocol);")
    lines.append("")
    for r in iface.records:
        lines += [f"inline Json ToJson(const {r.name}& r, int protocol) {{", "  Json j = Json::object();"]
        lines += [f"  j[{emit_common.cstr(a.name)}] = ToJson(r.{a.name}, protocol);" for a in r.fields]
        lines += ["  return j;", "}", ""]
        lines += [f"inline void FromJson(const Json& v, const char* field, {r.name}* out) {{",
                  f"  if (!v.is_object()) throw ProtocolError(field, \"an object {{{', '.join(a.name for a in r.fields)}}}\", Shown(v));"]
        for a in r.fields:
            key = emit_common.cstr(a.name)
            if a.has_default:
                lines.append(f"  if (v.contains({key})) FromJson(v[{key}], {key}, &out->{a.name});")
                if a.base == "layout":
                    lines.append(f"  else out->{a.name} = LayoutOf(Json({emit_common.cstr(a.default)}), {key});")
                elif a.base == "string":
                    lines.append(f"  else out->{a.name} = {emit_common.cstr(a.default)};")
                elif a.base == "bool":
                    lines.append(f"  else out->{a.name} = {emit_common.cbool(bool(a.default))};")
            elif a.nullable:
                lines.append(f"  FromJson(v.contains({key}) ? v[{key}] : Json(nullptr), {key}, &out->{a.name});")
            else:
                lines.append(f"  FromJson(Get(v, {key}), {key}, &out->{a.name});")
        lines += ["}", ""]
    return "\n".join(lines)


# How each end passes an argument: the two kinds that need the session's handles, and the rest
# through the wire codecs. (suite end: encodes into `args`; kit: decodes from the request `q`.)
ARG_CODE = {
    "tensor": ("    if (!Tensor({n}, {key}, &args)) return Foreign();", "s.Tensor(q, {key})"),
    "operand": ("    if (!OperandJson({n}, {key}, &args)) return Foreign();", "s.OperandOf(q, {key})"),
    None: ("    args[{key}] = wire::ToJson({n}, protocol());", "wire::Arg<{cxx}>(q, {key})"),
}


def _arg_code(iface: Interface, a: Arg, end: int) -> str:
    template = ARG_CODE.get(a.base, ARG_CODE[None])[end]
    return template.format(n=cxx_name(a), key=emit_common.cstr(a.name), cxx=cxx_value(iface, a.type))


def emit_suite(iface: Interface) -> str:
    lines = [emit_common.header(SRC, GEN, "//"),
             "// Inside class ProcessCandidate: each op not `custom` encodes its arguments, asks the testee",
             "// and decodes the answer (Ask, AskStatus, AskTensor, AskScalars, ...: process_candidate.cc).", ""]
    for o in iface.ops:
        if o.custom:
            continue
        lines.append(f"  {signature(iface, o)} override {{")
        lines.append("    Json args = Json::object();")
        lines += [_arg_code(iface, a, 0) for a in o.args]
        name = emit_common.cstr(o.name)
        if o.result == "none":
            lines.append(f"    return AskStatus({name}, std::move(args));")
        elif o.result == "tensor":
            lines.append(f"    return AskTensor({name}, std::move(args), /*may_alias=*/{emit_common.cbool(o.aliases)});")
        elif o.result == "scalars":
            lines.append(f"    return AskScalars({name}, std::move(args));")
        else:
            v = cxx_value(iface, o.result)
            # A fact (version 3) is answered from the answer that made t when it came with one.
            ask = f"AskFact<{v}>({name}, t, " if o.fact else f"Ask<{v}>({name}, "
            lines.append(f"    return {ask}std::move(args), [](const Json& v) {{")
            lines.append(f"      {v} out{{}};")
            lines.append("      wire::FromJson(v, \"ok\", &out);")
            lines.append("      return out;")
            lines.append("    });")
        lines += ["  }", ""]
    # Version 3: a fact that came with a tensor answer is decoded as its op's answer would be
    # (a ProtocolError when it is not one), before it is kept.
    lines += ["  // Version 3's facts (PROTOCOL.md): true when `op` is a fact, after decoding `v` as its",
              "  // answer (a wire::ProtocolError naming `field` when it is not one); false for any other op.",
              "  static bool DecodeFact(const std::string& op, const Json& v, const char* field) {"]
    for o in iface.ops:
        if o.fact:
            v = cxx_value(iface, o.result)
            lines += [f"    if (op == {emit_common.cstr(o.name)}) {{",
                      f"      {v} out{{}};",
                      "      wire::FromJson(v, field, &out);",
                      "      return true;",
                      "    }"]
    lines += ["    return false;", "  }", ""]
    return "\n".join(lines)


def emit_kit(iface: Interface) -> str:
    lines = [emit_common.header(SRC, GEN, "//"),
             "// Inside TesteeServer::State::Ops(): one entry per op, by request name. Each decodes its arguments",
             "// (wire::Arg; Tensor and OperandOf for handles), calls the candidate.h operation and encodes its",
             "// answer (NewTensor, Done, Encode); a custom op's handler is On<Name> (tcts_testee_ops.cc)."]
    for o in iface.ops:
        name = emit_common.cstr(o.name)
        if o.custom:
            lines.append(f"      {{{name}, +[](State& s, const Json& q) -> Result<Json> {{ return s.On{camel(o.name)}(q); }}}},")
            continue
        call = f"s.c_.{o.name}({', '.join(_arg_code(iface, a, 1) for a in o.args)})"
        if o.result == "none":
            body = f"return Done({call});"
        elif o.result == "tensor":
            body = f"return s.NewTensor({call});"
        else:
            body = f"return s.Encode({call});"
        q = "const Json& q" if o.args else "const Json&"
        lines.append(f"      {{{name}, +[](State& s, {q}) -> Result<Json> {{ {body} }}}},")
    return "\n".join(lines + [""])


def arg_names(iface: Interface, op: Op) -> list[str]:
    """The op's C++ parameter names, in order (the last word of each of `cxx_params`' parameters)."""
    if not op.cxx_params:
        return [cxx_name(a) for a in op.args]
    names = [re.findall(r"[A-Za-z_][A-Za-z0-9_]*", p)[-1:] for p in op.cxx_params.split(",")]
    if any(not n for n in names):
        raise interface_model.InterfaceError(f"op {op.name!r}: cxx_params {op.cxx_params!r} has a parameter with no name")
    return [n[0] for n in names]


def emit_calls(iface: Interface) -> str:
    lines = [emit_common.header(SRC, GEN, "//"),
             "// Inside namespace tcts::calls (harness.h): one helper per op, calling the Candidate virtual and",
             "// carrying the op's feature and name with its answer (Called<T>), for Get and Case::Usable.", ""]
    feats = {f.name: f for f in iface.features}
    for o in iface.ops:
        value = "void" if o.result == "none" else cxx_value(iface, o.result)
        lines += comment(f"{o.name}: feature {o.feature}.")
        lines.append(f"inline Called<{value}> {o.name}({', '.join(['Candidate& cand'] + ([params(iface, o)] if params(iface, o) else []))}) {{")
        lines.append(f"  return {{Feature::{feats[o.feature].enumerator}, cand.{o.name}({', '.join(arg_names(iface, o))}), {emit_common.cstr(o.name)}}};")
        lines += ["}", ""]
    return "\n".join(lines)


def emit_overrides(iface: Interface) -> str:
    lines = [emit_common.header(SRC, GEN, "//"),
             "// Inside namespace tcts, after class Candidate (candidate.h).", "",
             "// Whether `f` is a feature of an answer, with no op of its own (interface.toml answer_features).",
             "inline bool IsAnswerFeature(Feature f) {", "  switch (f) {"]
    feats = {f.name: f for f in iface.features}
    lines += [f"    case Feature::{feats[n].enumerator}:" for n in iface.answer_features]
    lines += ["      return true;", "    default:", "      return false;", "  }", "}", "",
              "// Whether a candidate has answer feature `f` unless it says otherwise (interface.toml",
              "// declared_by_default).",
              "inline bool IsDeclaredByDefault(Feature f) {"]
    if iface.declared_by_default:
        lines += ["  switch (f) {"]
        lines += [f"    case Feature::{feats[n].enumerator}:" for n in iface.declared_by_default]
        lines += ["      return true;", "    default:", "      return false;", "  }"]
    else:
        lines += ["  return false;"]
    lines += ["}", "",
              "// Whether class A overrides the ops of feature `f` (false for an answer feature). A class that",
              "// overrides some of a feature's ops and not the others does not compile.",
              "template <class A>", "bool OverridesOpsOf(Feature f) {"]
    for o in iface.ops:
        lines.append(f"  constexpr bool {o.name}_ = !std::is_same<decltype(&A::{o.name}), decltype(&Candidate::{o.name})>::value;")
    for f in iface.features:
        ops = [o for o in iface.ops if o.feature == f.name]
        for o in ops[1:]:
            lines.append(f"  static_assert({ops[0].name}_ == {o.name}_, \"feature {f.name} is declared by overriding all its ops "
                         f"({', '.join(x.name for x in ops)}) or none: this class overrides {ops[0].name} and not {o.name}, or {o.name} and not {ops[0].name}\");")
    lines += ["  switch (f) {"]
    for f in iface.features:
        ops = [o for o in iface.ops if o.feature == f.name]
        if ops:
            lines += [f"    case Feature::{f.enumerator}:", f"      return {ops[0].name}_;"]
    lines += ["    default:", "      return false;", "  }", "}", ""]
    return "\n".join(lines)


def emit_echo(iface: Interface) -> str:
    lines = [emit_common.header(SRC, GEN, "//"),
             "// Inside a test candidate with Reply<T>(op) and ReplyStatus(op): every op answers what the",
             "// current step of the protocol's vectors says (wire_vectors_test's C++ kit session replay).", ""]
    for o in iface.ops:
        name = emit_common.cstr(o.name)
        if o.result == "none":
            body = f"return ReplyStatus({name});"
        else:
            body = f"return Reply<{cxx_value(iface, o.result)}>({name});"
        lines.append(f"  {signature(iface, o)} override {{ {body} }}")
    return "\n".join(lines + [""])


# ---------------------------------------------------------------- JSON and docs
def emit_json(iface: Interface) -> str:
    # JSON has no comments: the file names its sources in a field (the suite's hello does not
    # carry it: TCTS_INTERFACE_JSON is as_json() alone).
    return json.dumps({"generated_from": f"{SRC_WITH_OPS} by {GEN}", **iface.as_json()}, indent=1, sort_keys=False) + "\n"


TYPE_WORDS = {"operand": "operand", "tensor": "tensor", "scalars": "list of scalars", "ints": "list of ints",
              "none": "null", "dlpack_export": "an export (Regions)", "dlpack_import": "a DLPack source (Regions)",
              "asarray_source": "source (below)"}


def type_text(t: str) -> str:
    base = t.rstrip("?")
    word = TYPE_WORDS.get(base, base)
    return f"{word} or null" if t.endswith("?") else word


def emit_protocol_table(iface: Interface) -> str:
    # The header line is not pasted into PROTOCOL.md (its markers say the same); the rest is.
    lines = [emit_common.header(SRC, GEN, "<!--").rstrip("\n") + " -->",
             "| op | feature | arguments | `ok` |", "|---|---|---|---|"]
    for o in iface.ops:
        args = ", ".join(f"`{a.name}` ({type_text(a.type)}" + (", its fields in the request itself" if a.inline else "") + ")"
                         for a in o.args) or "—"
        lines.append(f"| `{o.name}` | {o.feature} | {args} | {type_text(o.result)} |")
    lines += ["", "Records (JSON objects; a field with a default may be absent):", "",
              "| record | fields |", "|---|---|"]
    for r in iface.records:
        fields = ", ".join(f"`{a.name}` ({type_text(a.type)}" + (f", default {json.dumps(a.default)}" if a.has_default else "") + ")"
                           for a in r.fields)
        lines.append(f"| {r.name} | {fields} |")
    return "\n".join(lines) + "\n"


def emit_vectors(iface: Interface) -> str:
    import vectors
    return vectors.emit(iface)


SUITES = {
    "enums": emit_enums, "records": emit_records, "virtuals": emit_virtuals, "codecs": emit_codecs,
    "suite": emit_suite, "kit": emit_kit, "calls": emit_calls, "overrides": emit_overrides, "echo": emit_echo, "json": emit_json, "protocol_table": emit_protocol_table,
    "vectors": emit_vectors,
}


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", required=True, choices=sorted(SUITES))
    p.add_argument("--out", required=True)
    p.add_argument("tables", nargs="+", help="spec/*.toml: interface.toml, features.toml and promotion.toml are read")
    a = p.parse_args(argv)
    by_name = {os.path.basename(t): t for t in a.tables}
    try:
        for needed in ("interface.toml", "features.toml", "promotion.toml"):
            if needed not in by_name:
                raise interface_model.InterfaceError(f"{needed}: missing from the inputs ({' '.join(a.tables)})")
        iface = interface_model.load(by_name["interface.toml"], by_name["features.toml"], by_name["promotion.toml"])
        text = SUITES[a.suite](iface)
    except interface_model.InterfaceError as e:
        print(f"emit_interface.py: {e}", file=sys.stderr)
        return 1
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
