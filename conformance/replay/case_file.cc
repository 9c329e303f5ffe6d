#include "conformance/replay/case_file.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <new>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "conformance/checks/common.h"

namespace tcts {
namespace {

// ---------------------------------------------------------------- reading the file
// Errors carry the path of the field: "cases[3] (id 'x'): inputs.a.tensor.dtype: ...".
struct Bad {
  std::string what;
};

using Json = nlohmann::json;

// What a field must be, and its name in messages.
enum class Kind { kInt, kNumber, kString, kArray, kObject };
const char* KindName(Kind k) {
  switch (k) {
    case Kind::kInt: return "an integer";
    case Kind::kNumber: return "a number";
    case Kind::kString: return "a string";
    case Kind::kArray: return "an array";
    case Kind::kObject: return "an object";
  }
  return "?";
}
const char* TypeName(const Json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_boolean()) return "a bool";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}
bool IsInt(const Json& v) {  // an integer that fits int64
  return v.is_number_integer() &&
         (!v.is_number_unsigned() || v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX));
}
bool Is(const Json& v, Kind k) {
  switch (k) {
    case Kind::kInt: return IsInt(v);
    case Kind::kNumber: return v.is_number();
    case Kind::kString: return v.is_string();
    case Kind::kArray: return v.is_array();
    case Kind::kObject: return v.is_object();
  }
  return false;
}
// The member `key` of an object, or nullptr.
const Json* Find(const Json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}
const std::string& Text(const Json& v) { return v.get_ref<const std::string&>(); }

const Json& Need(const Json& obj, const std::string& key, Kind kind, const std::string& where) {
  const Json* v = Find(obj, key);
  if (!v) throw Bad{where + ": missing \"" + key + "\""};
  if (!Is(*v, kind)) {
    throw Bad{where + "." + key + ": expected " + KindName(kind) + ", got " +
              (kind == Kind::kInt && v->is_number_integer() ? "an integer out of the int64 range" : TypeName(*v))};
  }
  return *v;
}

std::int64_t Int(const Json& obj, const std::string& key, const std::string& where) {
  return Need(obj, key, Kind::kInt, where).get<std::int64_t>();
}

std::vector<std::int64_t> Ints(const Json& obj, const std::string& key, const std::string& where) {
  std::vector<std::int64_t> out;
  for (const Json& v : Need(obj, key, Kind::kArray, where)) {
    if (!IsInt(v)) throw Bad{where + "." + key + ": expected integers (int64)"};
    out.push_back(v.get<std::int64_t>());
  }
  return out;
}

void CheckKeys(const Json& obj, const std::set<std::string>& allowed, const std::string& where) {
  for (const auto& item : obj.items()) {
    if (!allowed.count(item.key())) throw Bad{where + ": unknown field \"" + item.key() + "\""};
  }
}

double Real(const Json& v, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    if (Text(v) == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (Text(v) == "inf") return std::numeric_limits<double>::infinity();
    if (Text(v) == "-inf") return -std::numeric_limits<double>::infinity();
  }
  throw Bad{where + ": expected a number, \"nan\", \"inf\" or \"-inf\""};
}

// A number as written: true/false -> bool, integer -> int, real -> float, [re, im] -> complex.
Scalar Number(const Json& v, const std::string& where) {
  if (v.is_boolean()) return Scalar::Bool(v.get<bool>());
  if (v.is_number_integer()) {
    if (!IsInt(v)) throw Bad{where + ": an integer out of the int64 range"};
    return Scalar::Int(v.get<std::int64_t>());
  }
  if (v.is_array()) {
    if (v.size() != 2) throw Bad{where + ": a complex number is [re, im]"};
    return Scalar::Complex({Real(v[0], where), Real(v[1], where)});
  }
  return Scalar::Float(Real(v, where));
}

// A value of a tensor of `dtype`, as values() reports it (bool, int, float or complex).
Scalar ValueOf(DType dtype, const Json& v, const std::string& where) {
  const Scalar s = Number(v, where);
  switch (DTypeCategory(dtype)) {
    case Category::kBool:
      if (s.kind != Scalar::Kind::kBool) throw Bad{where + ": a bool tensor's values are true/false"};
      return s;
    case Category::kIntegral:
      if (s.kind != Scalar::Kind::kInt) throw Bad{where + ": an integral tensor's values are integers"};
      return s;
    case Category::kFloating:
      if (s.kind == Scalar::Kind::kComplex || s.kind == Scalar::Kind::kBool) throw Bad{where + ": expected a real number"};
      return Scalar::Float(s.kind == Scalar::Kind::kInt ? static_cast<double>(s.i) : s.f);
    case Category::kComplex: return Scalar::Complex(s.AsComplex());
  }
  return s;
}

DType DTypeField(const Json& obj, const std::string& key, const std::string& where) {
  const std::string& name = Text(Need(obj, key, Kind::kString, where));
  const std::optional<DType> d = DTypeFromName(name);
  if (!d) throw Bad{where + "." + key + ": unknown dtype '" + name + "'"};
  return *d;
}

MemoryFormat FormatField(const Json& obj, const std::string& where) {
  const std::string& name = Text(Need(obj, "memory_format", Kind::kString, where));
  for (MemoryFormat f : AllMemoryFormats()) {
    if (name == MemoryFormatName(f)) return f;
  }
  throw Bad{where + ".memory_format: unknown memory format '" + name + "'"};
}

Dims ToDims(const std::vector<std::int64_t>& v, const std::string& where) {
  if (v.size() > 16) throw Bad{where + ": more than 16 integers"};
  Dims d{static_cast<int>(v.size()), {}};
  for (std::size_t k = 0; k < v.size(); ++k) d.v[k] = v[k];
  return d;
}

// The arguments each view or copy op takes, in the order of its Candidate method and by
// the names of spec/interface.toml, which the protocol sends (replay_test checks that they
// agree): a case file's fields. squeeze's optional `dim` is read on its own.
const std::vector<std::string>& ArgFields(ViewKind kind) {
  static const std::vector<std::string> kNone, kTranspose{"dim0", "dim1"}, kDims{"dims"},
      kNarrow{"dim", "start", "length"}, kSelect{"dim", "index"}, kSlice{"dim", "start", "end", "step"},
      kSizes{"sizes"}, kDim{"dim"}, kAsStrided{"sizes", "strides", "storage_offset"}, kFormat{"memory_format"};
  switch (kind) {
    case ViewKind::kT:
    case ViewKind::kSqueeze: return kNone;
    case ViewKind::kTranspose: return kTranspose;
    case ViewKind::kPermute: return kDims;
    case ViewKind::kNarrow: return kNarrow;
    case ViewKind::kSelect: return kSelect;
    case ViewKind::kSlice: return kSlice;
    case ViewKind::kExpand:
    case ViewKind::kView:
    case ViewKind::kReshape: return kSizes;
    case ViewKind::kUnsqueeze: return kDim;
    case ViewKind::kAsStrided: return kAsStrided;
    case ViewKind::kContiguous:
    case ViewKind::kClone:
    case ViewKind::kEmptyLike: return kFormat;
  }
  return kNone;
}

// {"op": "narrow", "dim": 0, "start": 1, "length": 2} and the like (REPLAY.md): a protocol
// request less its tensor. In a case's "call" the tensor is named too ("t": an input's
// name, the extra key). Read in place: copying an object of the file would recurse as deep
// as it nests.
ViewStep ParseView(const Json& v, const std::string& where, const char* extra_key = nullptr) {
  if (!v.is_object()) throw Bad{where + ": expected an object"};
  const std::string& op = Text(Need(v, "op", Kind::kString, where));
  const std::optional<ViewKind> kind = ViewKindFromName(op);
  if (!kind) throw Bad{where + ".op: unknown view op '" + op + "'"};
  const std::vector<std::string>& fields = ArgFields(*kind);
  std::set<std::string> allowed(fields.begin(), fields.end());
  allowed.insert("op");
  if (extra_key != nullptr) allowed.insert(extra_key);
  if (*kind == ViewKind::kSqueeze) allowed.insert("dim");
  CheckKeys(v, allowed, where);
  std::vector<std::int64_t> args;
  MemoryFormat format = MemoryFormat::kContiguous;
  for (const std::string& field : fields) {
    if (field == "memory_format") {
      format = FormatField(v, where);
    } else if (field == "dims" || field == "sizes" || field == "strides") {
      const std::vector<std::int64_t> list = Ints(v, field, where);
      args.insert(args.end(), list.begin(), list.end());
    } else {
      args.push_back(Int(v, field, where));
    }
  }
  if (*kind == ViewKind::kAsStrided && Ints(v, "sizes", where).size() != Ints(v, "strides", where).size()) {
    throw Bad{where + ": as_strided needs as many strides as sizes"};
  }
  // squeeze's dim: an integer, or null or absent for squeeze() (PROTOCOL.md: "may be null").
  if (*kind == ViewKind::kSqueeze && Find(v, "dim") && !Find(v, "dim")->is_null()) args.push_back(Int(v, "dim", where));
  return ViewStep{*kind, ToDims(args, where), format};
}

// *elements counts the input elements the file has asked for so far (all its cases): checked
// before each input's values are made.
ReplayInput ParseInput(const Json& v, const std::string& where, std::int64_t* elements) {
  if (!v.is_object()) throw Bad{where + ": expected an object"};
  ReplayInput in;
  if (const Json* s = Find(v, "scalar")) {
    CheckKeys(v, {"scalar"}, where);
    in.scalar = true;
    in.value = Number(*s, where + ".scalar");
    return in;
  }
  CheckKeys(v, {"tensor"}, where);
  const Json& t = Need(v, "tensor", Kind::kObject, where);
  const std::string tw = where + ".tensor";
  CheckKeys(t, {"sizes", "dtype", "values", "views"}, tw);  // make_tensor's arguments, and the views
  in.sizes = Ints(t, "sizes", tw);
  for (std::int64_t s : in.sizes) {
    if (s < 0) throw Bad{tw + ".sizes: sizes are non-negative"};
  }
  in.dtype = DTypeField(t, "dtype", tw);
  const std::optional<std::int64_t> numel = CheckedNumel(in.sizes);
  if (!numel || *numel > kMaxInputElements - *elements) {
    throw Bad{tw + ".sizes: " + Str(in.sizes) + " has " + (numel ? std::to_string(*numel) : "more than 2^63") +
              " elements; a file's inputs hold at most " + std::to_string(kMaxInputElements) + " in all (" +
              std::to_string(*elements) + " before this one)"};
  }
  const std::int64_t n = *numel;
  *elements += n;
  const Json* values = Find(t, "values");
  if (!values) throw Bad{tw + ": missing \"values\""};
  if (values->is_string() && Text(*values) == "arange") {
    in.values = IotaValues(n);
  } else if (values->is_object() && Find(*values, "fill")) {
    CheckKeys(*values, {"fill"}, tw + ".values");
    in.values.assign(static_cast<std::size_t>(n), Number(*Find(*values, "fill"), tw + ".values.fill"));
  } else if (values->is_array()) {
    if (static_cast<std::int64_t>(values->size()) != n) {
      throw Bad{tw + ".values: " + std::to_string(values->size()) + " values for " + std::to_string(n) +
                " elements"};
    }
    for (std::size_t k = 0; k < values->size(); ++k) {
      in.values.push_back(Number((*values)[k], tw + ".values[" + std::to_string(k) + "]"));
    }
  } else {
    throw Bad{tw + ".values: expected \"arange\", {\"fill\": x} or a list"};
  }
  if (const Json* views = Find(t, "views")) {
    if (!views->is_array()) throw Bad{tw + ".views: expected an array"};
    for (std::size_t k = 0; k < views->size(); ++k) {
      in.views.push_back(ParseView((*views)[k], tw + ".views[" + std::to_string(k) + "]"));
    }
  }
  return in;
}

const std::string& InputName(const Json& op, const std::string& key, const ReplayCase& c, bool tensor,
                             const std::string& where) {
  const std::string& name = Text(Need(op, key, Kind::kString, where));
  auto it = c.inputs.find(name);
  if (it == c.inputs.end()) throw Bad{where + "." + key + ": no input named '" + name + "'"};
  if (tensor && it->second.scalar) throw Bad{where + "." + key + ": '" + name + "' must be a tensor"};
  return name;
}

// "add, sub, mul, div" (the generated list), for messages.
std::string BinaryOpNames() {
  std::string names;
#define TCTS_REPLAY_BINARY_OP_NAME(e, name, ...) names += (names.empty() ? "" : ", ") + std::string(name);
  TCTS_FORALL_BINARY_OPS(TCTS_REPLAY_BINARY_OP_NAME)
#undef TCTS_REPLAY_BINARY_OP_NAME
  return names;
}

// The call, as the protocol's request (PROTOCOL.md) with input names where the request has
// handles or operands: {"op": "binary", "binary_op", "a", "b", "alpha"}, "binary_out" (and
// "out"), "binary_inplace" ("self", "other", "alpha"), or a view or copy op on "t".
void ParseCall(const Json& call, ReplayCase* c, const std::string& where) {
  const std::string& op = Text(Need(call, "op", Kind::kString, where));
  BinaryForm form;
  if (op == "binary") {
    form = BinaryForm::kFunctional;
  } else if (op == "binary_out") {
    form = BinaryForm::kOut;
  } else if (op == "binary_inplace") {
    form = BinaryForm::kInplace;
  } else if (ViewKindFromName(op)) {
    c->binary = false;
    c->view = ParseView(call, where, "t");
    c->a = InputName(call, "t", *c, true, where);
    return;
  } else {
    throw Bad{where + ".op: unknown op '" + op + "' (binary, binary_out, binary_inplace, or a view or copy op)"};
  }
  const bool inplace = form == BinaryForm::kInplace;
  const char* first = inplace ? "self" : "a";
  const char* second = inplace ? "other" : "b";
  std::set<std::string> allowed{"op", "binary_op", first, second, "alpha"};
  if (form == BinaryForm::kOut) allowed.insert("out");
  CheckKeys(call, allowed, where);
  c->form = form;
  const std::string& name = Text(Need(call, "binary_op", Kind::kString, where));
  const std::optional<BinaryOp> binary = BinaryOpFromName(name);
  if (!binary) throw Bad{where + ".binary_op: unknown binary op '" + name + "' (" + BinaryOpNames() + ")"};
  c->op = *binary;
  c->a = InputName(call, first, *c, inplace, where);
  c->b = InputName(call, second, *c, false, where);
  if (const Json* alpha = Find(call, "alpha")) c->alpha = Number(*alpha, where + ".alpha");
  if (form == BinaryForm::kOut) c->out = InputName(call, "out", *c, true, where);
}

void ParseExpect(const Json& e, ReplayCase* c, const std::string& where) {
  if (const Json* err = Find(e, "error")) {
    CheckKeys(e, {"error", "message"}, where);
    if (!err->is_string() || !ParseErrorKind(Text(*err), &c->error_kind) || !RaisedByPyTorch(c->error_kind)) {
      throw Bad{where + ".error: expected an error kind PyTorch raises (" TCTS_PYTORCH_ERROR_KIND_NAMES ")"};
    }
    c->error = true;
    if (Find(e, "message")) c->message = Text(Need(e, "message", Kind::kString, where));
    return;
  }
  CheckKeys(e, {"dtype", "sizes", "strides", "storage_offset", "values", "rtol"}, where);
  c->dtype = DTypeField(e, "dtype", where);
  c->sizes = Ints(e, "sizes", where);
  c->strides = Ints(e, "strides", where);
  if (c->strides.size() != c->sizes.size()) throw Bad{where + ".strides: one stride per size"};
  if (Find(e, "storage_offset")) c->offset = Int(e, "storage_offset", where);
  if (const Json* values = Find(e, "values")) {
    if (!values->is_array()) throw Bad{where + ".values: expected an array"};
    const std::optional<std::int64_t> numel = CheckedNumel(c->sizes);
    if (!numel || *numel > kMaxInputElements) {
      throw Bad{where + ".sizes: " + Str(c->sizes) + " is not a shape of at most " + std::to_string(kMaxInputElements) +
                " elements"};
    }
    if (static_cast<std::int64_t>(values->size()) != *numel) {
      throw Bad{where + ".values: " + std::to_string(values->size()) + " values for sizes " + Str(c->sizes)};
    }
    c->values.emplace();
    for (std::size_t k = 0; k < values->size(); ++k) {
      c->values->push_back(ValueOf(c->dtype, (*values)[k], where + ".values[" + std::to_string(k) + "]"));
    }
  }
  if (Find(e, "rtol")) c->rtol = Need(e, "rtol", Kind::kNumber, where).get<double>();
}

// Version 1 named some arguments otherwise than the protocol; its files are refused, saying
// what to rename (REPLAY.md "Version 1"), one rename a line.
const char* const kVersion1Renames =
    "version 1 is no longer read: version 2 names every argument as the testee protocol does "
    "(conformance/replay/REPLAY.md, \"Version 1\"). Rename, then write \"version\": 2:\n"
    "  a case's \"op\" -> \"call\", and in it \"name\" -> \"op\"\n"
    "  a binary call {\"name\": N, \"args\": [x, y], \"form\": F} -> {\"op\": \"binary\" (F functional), "
    "\"binary_out\" (F out) or \"binary_inplace\" (F inplace), \"binary_op\": N, \"a\": x, \"b\": y}; "
    "in-place: \"self\": x, \"other\": y\n"
    "  a view or copy call's \"input\" -> \"t\"\n"
    "  transpose's \"dims\": [d0, d1] -> \"dim0\": d0, \"dim1\": d1\n"
    "  as_strided's \"offset\" -> \"storage_offset\"\n"
    "  an input tensor's \"shape\" -> \"sizes\"";

std::string Describe(const ReplayCase& c) {
  std::string call;
  if (c.binary) {
    call = std::string(BinaryOpName(c.op)) + (c.form == BinaryForm::kInplace ? "_" : "") + "(" + c.a + ", " + c.b +
           (c.form == BinaryForm::kOut ? ", out=" + c.out : "") + ")";
  } else {
    call = ToString(c.view) + " of " + c.a;
  }
  if (c.error) return call + " -> " + ErrorKindName(c.error_kind) + (c.message.empty() ? "" : ": " + c.message);
  return call + " -> " + DTypeName(c.dtype) + " sizes " + Str(c.sizes) + " strides " + Str(c.strides);
}

// A name that reaches test names, messages and C strings (a case id, an input name): short,
// so that the field paths built from it stay short, and free of control bytes (a NUL would
// cut it short wherever it is used as a C string).
const std::string& Name(const std::string& name, const std::string& where) {
  if (name.empty() || name.size() > kMaxNameBytes) {
    throw Bad{where + ": " + std::to_string(name.size()) + " bytes; a name has 1 to " + std::to_string(kMaxNameBytes)};
  }
  for (unsigned char ch : name) {
    if (ch < 0x20 || ch == 0x7f) throw Bad{where + ": a control byte (" + std::to_string(ch) + ") in a name"};
  }
  return name;
}

ReplayCase ParseCase(const Json& v, const std::string& where, const std::string& basis, std::int64_t* elements) {
  if (!v.is_object()) throw Bad{where + ": expected an object"};
  CheckKeys(v, {"id", "clause", "note", "inputs", "call", "expect"}, where);
  ReplayCase c;
  c.id = Name(Text(Need(v, "id", Kind::kString, where)), where + ".id");
  const std::string w = where + " (id '" + c.id + "')";
  c.clause = Find(v, "clause") ? Text(Need(v, "clause", Kind::kString, w)) : "replay";
  c.basis = basis;
  for (const auto& item : Need(v, "inputs", Kind::kObject, w).items()) {
    const std::string& input = Name(item.key(), w + ".inputs");
    c.inputs[input] = ParseInput(item.value(), w + ".inputs." + input, elements);
  }
  ParseCall(Need(v, "call", Kind::kObject, w), &c, w + ".call");
  ParseExpect(Need(v, "expect", Kind::kObject, w), &c, w + ".expect");
  c.statement = Describe(c);
  if (Find(v, "note")) c.statement += " (" + Text(Need(v, "note", Kind::kString, w)) + ")";
  return c;
}

}  // namespace

bool ParseCaseFile(const std::string& text, const std::string& name, std::vector<ReplayCase>* cases,
                   std::string* error) {
  cases->clear();
  try {
    const Json doc = Json::parse(text);
    if (!doc.is_object()) throw Bad{"the file is not a JSON object"};
    const Json* format = Find(doc, "format");
    if (!format || !format->is_string() || Text(*format) != "tensor-cts/cases") {
      throw Bad{"\"format\" must be \"tensor-cts/cases\""};
    }
    const std::int64_t version = Int(doc, "version", "file");
    if (version == 1) throw Bad{kVersion1Renames};
    if (version != kCaseFileVersion) {
      throw Bad{"version: this runner reads version " + std::to_string(kCaseFileVersion) + ", got " +
                std::to_string(version)};
    }
    CheckKeys(doc, {"format", "version", "source", "cases"}, "file");
    const std::string source = Text(Need(doc, "source", Kind::kString, "file"));
    if (source.size() > kMaxSourceBytes) {  // every case's basis holds it
      throw Bad{"source: " + std::to_string(source.size()) + " bytes; a source is at most " +
                std::to_string(kMaxSourceBytes)};
    }
    const Json& list = Need(doc, "cases", Kind::kArray, "file");
    if (list.size() > kMaxCases) {
      throw Bad{"\"cases\" holds " + std::to_string(list.size()) + " cases; a file holds at most " +
                std::to_string(kMaxCases) + " (split it)"};
    }
    std::set<std::string> names;  // test names: ids with punctuation as '_' must stay distinct
    std::int64_t elements = 0;    // input elements asked for so far
    for (std::size_t k = 0; k < list.size(); ++k) {
      cases->push_back(ParseCase(list[k], "cases[" + std::to_string(k) + "]", "recorded: " + source, &elements));
      if (!names.insert(RowIdentifier(cases->back().id.c_str())).second) {
        throw Bad{"cases[" + std::to_string(k) + "]: id '" + cases->back().id +
                  "' repeats an earlier id (ids compare with punctuation as '_')"};
      }
    }
    if (cases->empty()) throw Bad{"\"cases\" is empty"};
    return true;
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for a number past double ('1e400')
    *error = name + ": not JSON: " + e.what();
  } catch (const Bad& bad) {
    *error = name + ": " + bad.what;
  } catch (const std::bad_alloc&) {
    *error = name + ": out of memory reading the cases";
  }
  cases->clear();
  return false;
}

bool ReadCaseFile(const std::string& path, std::vector<ReplayCase>* cases, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot read replay file '" + path + "'";
    return false;
  }
  // Read in chunks up to the bound (a pipe or /dev/stdin has no size to ask for first).
  std::string text;
  char chunk[1 << 16];
  while (f.read(chunk, sizeof chunk) || f.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(f.gcount()));
    if (static_cast<std::int64_t>(text.size()) > kMaxCaseFileBytes) {
      *error = path + ": more than " + std::to_string(kMaxCaseFileBytes) + " bytes; a replay file is at most " +
               std::to_string(kMaxCaseFileBytes) + " bytes (split it)";
      return false;
    }
  }
  if (f.bad()) {
    *error = "cannot read replay file '" + path + "'";
    return false;
  }
  return ParseCaseFile(text, path, cases, error);
}

}  // namespace tcts
