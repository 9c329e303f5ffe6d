#include "conformance/checks/common.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <utility>

namespace tcts {

std::string Str(DType d) { return DTypeName(d); }
std::string Str(const std::string& s) { return "'" + s + "'"; }
std::string Str(bool b) { return b ? "true" : "false"; }
std::string Str(int v) { return std::to_string(v); }
std::string Str(std::int64_t v) { return std::to_string(v); }
std::string Str(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}
namespace {
// A list prints its first kShownValues values, then how many it has in all: an answer of 10^7
// values is a mismatch, not a 30 MB line of the report.
constexpr std::size_t kShownValues = 1024;
template <class V, class F>
std::string ListText(const V& v, F text) {
  std::string s = "[";
  const std::size_t n = std::min(v.size(), kShownValues);
  for (std::size_t k = 0; k < n; ++k) s += (k ? ", " : "") + text(v[k]);
  if (v.size() > n) s += ", ... (" + std::to_string(v.size()) + " values in all)";
  return s + "]";
}
std::string Kinded(const Scalar& s) { return std::string(ScalarKindName(s.kind)) + " " + s.ToString(); }
std::string Kinded(const std::vector<Scalar>& v) { return ListText(v, [](const Scalar& x) { return Kinded(x); }); }
}  // namespace

std::string Str(const std::vector<std::int64_t>& v) {
  return ListText(v, [](std::int64_t x) { return std::to_string(x); });
}
std::string Str(const std::vector<Scalar>& v) {
  return ListText(v, [](const Scalar& x) { return x.ToString(); });
}

std::pair<std::string, std::string> Shown(const Scalar& expected, const Scalar& observed) {
  std::string e = expected.ToString(), o = observed.ToString();
  if (e == o) return {Kinded(expected), Kinded(observed)};
  return {e, o};
}
std::pair<std::string, std::string> Shown(const std::vector<Scalar>& expected, const std::vector<Scalar>& observed) {
  std::string e = Str(expected), o = Str(observed);
  if (e != o) return {e, o};
  e = Kinded(expected), o = Kinded(observed);
  if (e != o) return {e, o};
  // Alike as far as printed: the first element that differs, past the values shown.
  for (std::size_t k = 0; k < expected.size() && k < observed.size(); ++k) {
    if (!(expected[k] == observed[k])) {
      const std::string at = "; element " + std::to_string(k) + ": ";
      return {e + at + Kinded(expected[k]), o + at + Kinded(observed[k])};
    }
  }
  return {e, o};
}
void MismatchValues(Case& c, Check kind, const std::string& check, const Scalar& expected, const Scalar& observed) {
  const auto [e, o] = Shown(expected, observed);
  c.Mismatch(kind, check, e, o);
}
void MismatchValues(Case& c, Check kind, const std::string& check, const std::vector<Scalar>& expected,
                    const std::vector<Scalar>& observed) {
  const auto [e, o] = Shown(expected, observed);
  c.Mismatch(kind, check, e, o);
}

Scalar ToScalar(const Value& v) {
  switch (v.kind) {
    case Scalar::Kind::kBool: return Scalar::Bool(v.i != 0);
    case Scalar::Kind::kInt: return Scalar::Int(v.i);
    case Scalar::Kind::kFloat: return Scalar::Float(v.re);
    case Scalar::Kind::kComplex: return Scalar::Complex({v.re, v.im});
  }
  return Scalar{};
}

namespace {
// Builds the value whose subtree starts at nodes[*at], moving *at past it. Every item of a
// list is at least one node, so a list promising more items than nodes remain is refused
// before anything is allocated, and the recursion is no deeper than the table is long.
bool BuildPyValue(const PyNode* nodes, int n, int* at, PyValue* out) {
  if (*at >= n) return false;
  const PyNode& node = nodes[(*at)++];
  out->is_list = node.is_list;
  if (!node.is_list) {
    out->scalar = ToScalar(node.leaf);
    return true;
  }
  if (node.n_items < 0 || node.n_items > n - *at) return false;
  out->items.resize(static_cast<std::size_t>(node.n_items));
  for (PyValue& item : out->items) {
    if (!BuildPyValue(nodes, n, at, &item)) return false;
  }
  return true;
}
}  // namespace

std::optional<PyValue> ToPyValue(const PyNode* nodes, int n) {
  PyValue v;
  int at = 0;
  if (nodes == nullptr || !BuildPyValue(nodes, n, &at, &v) || at != n) return std::nullopt;
  return v;
}

std::optional<std::int64_t> CheckedNumel(const std::vector<std::int64_t>& sizes) {
  for (std::int64_t s : sizes) {
    if (s < 0) return std::nullopt;
  }
  // A zero anywhere makes the product 0, even where a partial product of the others overflows.
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return 0;
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    if (__builtin_mul_overflow(n, s, &n)) return std::nullopt;
  }
  return n;
}

std::int64_t Numel(const std::vector<std::int64_t>& sizes) {
  for (std::int64_t s : sizes) {
    if (s == 0) return 0;
  }
  return CheckedNumel(sizes).value_or(0);
}

std::optional<std::vector<Scalar>> ReadValues(Case& c, const TensorHandle& t, const std::string& what) {
  if (!c.Can(Check::kValues, "values of " + what)) return std::nullopt;
  auto v = calls::values(c.candidate(), t);
  if (!c.Usable(v, "values(" + what + ")")) return std::nullopt;
  if (!v.ok()) {
    c.Mismatch(Check::kValues, "values(" + what + ")", "the tensor's values", Describe(v.error()));
    return std::nullopt;
  }
  c.Checked(Check::kValues);
  return std::move(v.value());  // a move: an answer of 10^7 scalars is 400 MB
}

std::string RowIdentifier(const char* row_id) {
  std::string s = row_id;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

std::string ExpectedText(const ExpectedError& e) {
  return std::string(ErrorKindName(e.kind)) + (*e.fragment ? std::string(" containing \"") + e.fragment + "\"" : "");
}

void ExpectMessage(Case& c, const std::string& call, bool matches, const std::string& wants, const Error& error) {
  c.Checked(Check::kMessage);
  if (!matches) c.Mismatch(Check::kMessage, call + " error message", wants, Describe(error));
}

std::optional<TensorMeta> Meta(Case& c, const TensorHandle& t, const std::string& what) {
  std::optional<TensorMeta> m = Get(c, calls::meta(c.candidate(), t), "meta(" + what + ")");
  // A candidate with strides answers one per dimension of a strided tensor (PROTOCOL.md
  // "Strides"); one without them answers [], read by no check; a sparse tensor has none.
  if (m && m->layout == Layout::kStrided && m->strides.size() != m->sizes.size() &&
      !c.Expect(Check::kStrides, false, "meta(" + what + ").strides",
                "one stride per dimension (" + std::to_string(m->sizes.size()) + ")", Str(m->strides))) {
    return std::nullopt;
  }
  return m;
}
std::optional<StorageInfo> Storage(Case& c, const TensorHandle& t, const std::string& what) {
  return Get(c, calls::storage(c.candidate(), t), "storage(" + what + ")");
}

void ExpectGeometry(Case& c, const std::string& call, const TensorMeta& m, const std::vector<std::int64_t>& sizes,
                    const std::vector<std::int64_t>& strides, std::int64_t offset) {
  ExpectEq(c, Check::kSizes, call + " sizes", sizes, m.sizes);
  ExpectEq(c, Check::kStrides, call + " strides", strides, m.strides);
  ExpectEq(c, Check::kOffset, call + " storage_offset", offset, m.storage_offset);
}

}  // namespace tcts
