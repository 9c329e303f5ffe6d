#include "conformance/replay/replay.h"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "conformance/checks/arithmetic.h"
#include "conformance/checks/binary.h"
#include "conformance/checks/common.h"
#include "conformance/harness/harness.h"
#include "conformance/checks/strided.h"

namespace tcts {
namespace {

// ---------------------------------------------------------------- a parsed case
struct Input {
  bool scalar = false;
  Scalar value;  // scalar inputs
  std::vector<std::int64_t> shape;
  DType dtype = DType::kFloat32;
  std::vector<Scalar> values;  // row-major, numel(shape) of them
  std::vector<ViewStep> views;
};

struct ReplayCase {
  std::string id, clause, basis, statement;
  std::map<std::string, Input> inputs;
  bool binary = true;
  BinaryOp op = BinaryOp::kAdd;
  BinaryForm form = BinaryForm::kFunctional;
  std::string a, b, out;  // input names (binary: a op b; out=: out; view op: a)
  Scalar alpha = Scalar::Int(1);
  ViewStep view{};
  // What is expected.
  bool error = false;
  ErrorKind error_kind = ErrorKind::kRuntimeError;
  std::string message;
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> sizes, strides;
  std::optional<std::int64_t> offset;
  std::optional<std::vector<Scalar>> values;
  double rtol = 0;
};

// Cases live as long as the process: their strings back the RowMeta the harness keeps.
std::deque<ReplayCase>& Cases() {
  static std::deque<ReplayCase> cases;
  return cases;
}

// ---------------------------------------------------------------- reading the file
// Errors carry the path of the field: "cases[3] (id 'x'): inputs.a.tensor.dtype: ...".
struct Bad {
  std::string what;
};

// Bounds on what one file may ask for, so that a hostile or corrupt file gets an error
// instead of exhausting memory: the file's size, its case count, one input's elements.
constexpr std::streamoff kMaxFileBytes = std::streamoff{64} << 20;
constexpr std::size_t kMaxCases = 100000;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 24;

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

// The fields each view op takes in a case file (REPLAY.md), in argument order.
const std::vector<std::string>& ArgFields(ViewKind kind) {
  static const std::vector<std::string> kNone, kDims{"dims"}, kNarrow{"dim", "start", "length"},
      kSelect{"dim", "index"}, kSlice{"dim", "start", "end", "step"}, kSizes{"sizes"}, kDim{"dim"},
      kAsStrided{"sizes", "strides", "offset"}, kFormat{"memory_format"};
  switch (kind) {
    case ViewKind::kT:
    case ViewKind::kSqueeze: return kNone;
    case ViewKind::kTranspose:
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

// {"op": "narrow", "dim": 0, "start": 1, "length": 2} and the like (REPLAY.md).
ViewStep ParseView(const Json& v, const std::string& where) {
  if (!v.is_object()) throw Bad{where + ": expected an object"};
  const std::string& op = Text(Need(v, "op", Kind::kString, where));
  const std::optional<ViewKind> kind = ViewKindFromName(op);
  if (!kind) throw Bad{where + ".op: unknown view op '" + op + "'"};
  const std::vector<std::string>& fields = ArgFields(*kind);
  std::set<std::string> allowed(fields.begin(), fields.end());
  allowed.insert("op");
  if (op == "squeeze") allowed.insert("dim");
  CheckKeys(v, allowed, where);
  std::vector<std::int64_t> args;
  MemoryFormat format = MemoryFormat::kContiguous;
  for (const std::string& field : fields) {
    if (field == "memory_format") {
      format = FormatField(v, where);
    } else if (field == "dims" || field == "sizes" || field == "strides") {
      const std::vector<std::int64_t> list = Ints(v, field, where);
      if (op == "transpose" && list.size() != 2) throw Bad{where + ".dims: transpose takes two dims"};
      args.insert(args.end(), list.begin(), list.end());
    } else {
      args.push_back(Int(v, field, where));
    }
  }
  if (op == "as_strided" && Ints(v, "sizes", where).size() != Ints(v, "strides", where).size()) {
    throw Bad{where + ": as_strided needs as many strides as sizes"};
  }
  if (op == "squeeze" && Find(v, "dim")) args.push_back(Int(v, "dim", where));
  return ViewStep{*kind, ToDims(args, where), format};
}

Input ParseInput(const Json& v, const std::string& where) {
  if (!v.is_object()) throw Bad{where + ": expected an object"};
  Input in;
  if (const Json* s = Find(v, "scalar")) {
    CheckKeys(v, {"scalar"}, where);
    in.scalar = true;
    in.value = Number(*s, where + ".scalar");
    return in;
  }
  CheckKeys(v, {"tensor"}, where);
  const Json& t = Need(v, "tensor", Kind::kObject, where);
  const std::string tw = where + ".tensor";
  CheckKeys(t, {"shape", "dtype", "values", "views"}, tw);
  in.shape = Ints(t, "shape", tw);
  for (std::int64_t s : in.shape) {
    if (s < 0) throw Bad{tw + ".shape: sizes are non-negative"};
  }
  in.dtype = DTypeField(t, "dtype", tw);
  const std::optional<std::int64_t> numel = CheckedNumel(in.shape);
  if (!numel || *numel > kMaxElements) {
    throw Bad{tw + ".shape: " + Str(in.shape) + " has " + (numel ? std::to_string(*numel) : "more than 2^63") +
              " elements; a replay input holds at most " + std::to_string(kMaxElements)};
  }
  const std::int64_t n = *numel;
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

void ParseOp(const Json& op, ReplayCase* c, const std::string& where) {
  const std::string& name = Text(Need(op, "name", Kind::kString, where));
  const std::optional<BinaryOp> binary = BinaryOpFromName(name);
  if (!binary) {  // a view or copy op on input "a"
    c->binary = false;
    Json view = op;
    view.erase("name");
    view.erase("input");
    view["op"] = name;
    c->view = ParseView(view, where);
    c->a = InputName(op, "input", *c, true, where);
    return;
  }
  CheckKeys(op, {"name", "args", "alpha", "form", "out"}, where);
  c->op = *binary;
  const Json& args = Need(op, "args", Kind::kArray, where);
  if (args.size() != 2 || !args[0].is_string() || !args[1].is_string()) {
    throw Bad{where + ".args: expected two input names"};
  }
  for (int k = 0; k < 2; ++k) {
    if (!c->inputs.count(Text(args[k]))) throw Bad{where + ".args: no input named '" + Text(args[k]) + "'"};
  }
  c->a = Text(args[0]);
  c->b = Text(args[1]);
  if (const Json* alpha = Find(op, "alpha")) c->alpha = Number(*alpha, where + ".alpha");
  const std::string form = Find(op, "form") ? Text(Need(op, "form", Kind::kString, where)) : "functional";
  if (form == "functional") {
    c->form = BinaryForm::kFunctional;
  } else if (form == "out") {
    c->form = BinaryForm::kOut;
    c->out = InputName(op, "out", *c, true, where);
  } else if (form == "inplace") {
    c->form = BinaryForm::kInplace;
    if (c->inputs.at(c->a).scalar) throw Bad{where + ".args: in-place needs a tensor self"};
  } else {
    throw Bad{where + ".form: expected \"functional\", \"out\" or \"inplace\", got '" + form + "'"};
  }
}

void ParseExpect(const Json& e, ReplayCase* c, const std::string& where) {
  if (const Json* err = Find(e, "error")) {
    CheckKeys(e, {"error", "message"}, where);
    if (!err->is_string() || !ParseErrorKind(Text(*err), &c->error_kind)) {
      throw Bad{where + ".error: expected an error kind (RuntimeError, TypeError, ValueError, IndexError, "
                        "NotImplementedError)"};
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
    if (!numel || *numel > kMaxElements) {
      throw Bad{where + ".sizes: " + Str(c->sizes) + " is not a shape of at most " + std::to_string(kMaxElements) +
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

ReplayCase ParseCase(const Json& v, const std::string& where, const std::string& basis) {
  if (!v.is_object()) throw Bad{where + ": expected an object"};
  CheckKeys(v, {"id", "clause", "note", "inputs", "op", "expect"}, where);
  ReplayCase c;
  c.id = Text(Need(v, "id", Kind::kString, where));
  const std::string w = where + " (id '" + c.id + "')";
  c.clause = Find(v, "clause") ? Text(Need(v, "clause", Kind::kString, w)) : "replay";
  c.basis = basis;
  for (const auto& item : Need(v, "inputs", Kind::kObject, w).items()) {
    c.inputs[item.key()] = ParseInput(item.value(), w + ".inputs." + item.key());
  }
  ParseOp(Need(v, "op", Kind::kObject, w), &c, w + ".op");
  ParseExpect(Need(v, "expect", Kind::kObject, w), &c, w + ".expect");
  c.statement = Describe(c);
  if (Find(v, "note")) c.statement += " (" + Text(Need(v, "note", Kind::kString, w)) + ")";
  return c;
}

// ---------------------------------------------------------------- running a case
std::optional<Operand> Build(Case& k, const ReplayCase& rc, const std::string& name) {
  const Input& in = rc.inputs.at(name);
  if (in.scalar) return Operand(in.value);
  std::string call = "make_tensor(" + Str(in.shape) + ", " + DTypeName(in.dtype) + ")";
  std::optional<TensorHandle> t =
      Get(k, Feature::kTensors, CurrentCandidate().make_tensor(in.shape, in.dtype, in.values), "input " + name + ": " + call);
  for (const ViewStep& step : in.views) {
    if (!t) return std::nullopt;
    call += "." + ToString(step);
    t = Get(k, FeatureOf(step.kind), Apply(step, *t), "input " + name + ": " + call);
  }
  if (!t) return std::nullopt;
  return Operand(*t);
}

void RunCase(const ReplayCase& rc) {
  Case k(RowMeta{rc.id.c_str(), rc.clause.c_str(), rc.basis.c_str(), rc.statement.c_str(), "", ""});
  Candidate& cand = CurrentCandidate();
  std::map<std::string, Operand> ops;
  for (const auto& [name, input] : rc.inputs) {
    std::optional<Operand> o = Build(k, rc, name);
    if (!o) return k.Finish();
    ops.emplace(name, *o);
  }
  const std::string call = rc.statement.substr(0, rc.statement.find(" -> "));
  Result<TensorHandle> result = Error{ErrorKind::kInternal, "not run"};
  Feature feature = Feature::kBinaryOps;
  const auto tensor = [&](const std::string& name) { return std::get<TensorHandle>(ops.at(name)); };
  if (!rc.binary) {
    feature = FeatureOf(rc.view.kind);
    result = Apply(rc.view, tensor(rc.a));
  } else if (rc.form == BinaryForm::kFunctional) {
    result = cand.binary(rc.op, ops.at(rc.a), ops.at(rc.b), rc.alpha);
  } else if (rc.form == BinaryForm::kOut) {
    feature = Feature::kBinaryOut;
    const Status s = cand.binary_out(rc.op, ops.at(rc.a), ops.at(rc.b), rc.alpha, tensor(rc.out));
    result = s.ok() ? Result<TensorHandle>(tensor(rc.out)) : Result<TensorHandle>(s.error());
  } else {
    feature = Feature::kBinaryInplace;
    const Status s = cand.binary_inplace(rc.op, tensor(rc.a), ops.at(rc.b), rc.alpha);
    result = s.ok() ? Result<TensorHandle>(tensor(rc.a)) : Result<TensorHandle>(s.error());
  }
  if (!k.Usable(feature, result, call)) return k.Finish();
  const ExpectedError expected{rc.error, rc.error_kind, rc.message.c_str()};
  const std::string want = std::string(DTypeName(rc.dtype)) + " " + Str(rc.sizes);
  if (!CheckOutcome(k, expected, result, call, want)) return k.Finish();
  const std::optional<TensorMeta> m = Meta(k, result.value(), call);
  if (m) {
    if (m->dtype != rc.dtype) k.Mismatch(call + " dtype", DTypeName(rc.dtype), DTypeName(m->dtype));
    ExpectGeometry(k, call, *m, rc.sizes, rc.strides, rc.offset.value_or(m->storage_offset));
  }
  if (rc.values && m && m->sizes == rc.sizes) {
    const std::optional<std::vector<Scalar>> got = Get(k, Feature::kTensors, cand.values(result.value()), call + " values");
    if (got) {
      bool same = got->size() == rc.values->size();
      for (std::size_t i = 0; same && i < got->size(); ++i) {
        same = rc.rtol > 0 ? WithinTolerance((*rc.values)[i], (*got)[i], 0, rc.rtol) : (*rc.values)[i] == (*got)[i];
      }
      if (!same) k.Mismatch(call + " values", Str(*rc.values), Str(*got));
    }
  }
  k.Finish();
}

class ReplayTest : public ::testing::Test {
 public:
  explicit ReplayTest(const ReplayCase* c) : c_(c) {}
  void TestBody() override { RunCase(*c_); }

 private:
  const ReplayCase* c_;
};

bool Loader(const std::string& path, std::string* error) { return LoadReplayFile(path, error); }
const bool kRegistered = RegisterCaseFileLoader(&Loader);

}  // namespace

bool LoadReplayFile(const std::string& path, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot read replay file '" + path + "'";
    return false;
  }
  f.seekg(0, std::ios::end);
  const std::streamoff size = f.tellg();
  f.seekg(0, std::ios::beg);
  if (size > kMaxFileBytes) {
    *error = path + ": " + std::to_string(size) + " bytes; a replay file is at most " + std::to_string(kMaxFileBytes) +
             " bytes (split it)";
    return false;
  }
  Json doc;
  try {
    doc = Json::parse(f);
  } catch (const Json::parse_error& e) {
    *error = path + ": not JSON: " + e.what();
    return false;
  } catch (const std::bad_alloc&) {
    *error = path + ": out of memory reading the file";
    return false;
  }
  std::deque<ReplayCase> parsed;
  try {
    if (!doc.is_object()) throw Bad{"the file is not a JSON object"};
    const Json* format = Find(doc, "format");
    if (!format || !format->is_string() || Text(*format) != "tensor-cts/cases") {
      throw Bad{"\"format\" must be \"tensor-cts/cases\""};
    }
    if (Int(doc, "version", "file") != 1) throw Bad{"version: this runner reads version 1"};
    CheckKeys(doc, {"format", "version", "source", "cases"}, "file");
    const std::string source = Text(Need(doc, "source", Kind::kString, "file"));
    const Json& cases = Need(doc, "cases", Kind::kArray, "file");
    std::set<std::string> names;  // test names: ids with punctuation as '_' must stay distinct
    if (cases.size() > kMaxCases) {
      throw Bad{"\"cases\" holds " + std::to_string(cases.size()) + " cases; a file holds at most " +
                std::to_string(kMaxCases) + " (split it)"};
    }
    for (std::size_t k = 0; k < cases.size(); ++k) {
      parsed.push_back(ParseCase(cases[k], "cases[" + std::to_string(k) + "]", "recorded: " + source));
      if (!names.insert(RowIdentifier(parsed.back().id.c_str())).second) {
        throw Bad{"cases[" + std::to_string(k) + "]: id '" + parsed.back().id +
                  "' repeats an earlier id (ids compare with punctuation as '_')"};
      }
    }
    if (parsed.empty()) throw Bad{"\"cases\" is empty"};
  } catch (const Bad& bad) {
    *error = path + ": " + bad.what;
    return false;
  } catch (const std::bad_alloc&) {
    *error = path + ": out of memory building the cases";
    return false;
  }
  for (ReplayCase& c : parsed) {
    Cases().push_back(std::move(c));
    const ReplayCase* rc = &Cases().back();
    RegisterRow(RowMeta{rc->id.c_str(), rc->clause.c_str(), rc->basis.c_str(), rc->statement.c_str(), "", ""});
    ::testing::RegisterTest("Replay", RowIdentifier(rc->id.c_str()).c_str(), nullptr, rc->id.c_str(), __FILE__,
                            __LINE__, [rc]() -> ::testing::Test* { return new ReplayTest(rc); });
  }
  (void)kRegistered;
  return true;
}

}  // namespace tcts
