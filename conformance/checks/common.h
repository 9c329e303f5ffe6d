// What every suite's checks share: naming a generated case, printing values in mismatch
// reports, comparing an answer with the row's expected value or error, and the calls
// nearly every check makes (meta, storage, values).
//
// Each suite's row types and checks live in conformance/checks/<suite>.h; the generated
// tables (generators/emit_gtest.py) are arrays of those rows, one value-parameterized
// test per table calling Check<Row>(row).
#ifndef TCTS_CONFORMANCE_CHECKS_COMMON_H_
#define TCTS_CONFORMANCE_CHECKS_COMMON_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "conformance/candidate/candidate.h"
#include "conformance/harness/harness.h"

namespace tcts {

// GoogleTest prints parameters in failure headers; keep them short.
#define TCTS_ROW_PRINTER(Row) \
  inline void PrintTo(const Row& r, std::ostream* os) { *os << r.meta.id; }

// GoogleTest parameter names: the row id with every non-alphanumeric character as '_'.
std::string RowIdentifier(const char* row_id);
template <class Row>
std::string RowName(const ::testing::TestParamInfo<Row>& info) {
  RegisterRow(info.param.meta);  // GoogleTest names each case once, at registration
  return RowIdentifier(info.param.meta.id);
}

// How add/sub/mul/div is called: op(a, b), op(a, b, out=...), a.op_(b).
enum class BinaryForm { kFunctional, kOut, kInplace };

// A literal value (an aggregate, so tables compile fast): kind, int/bool in i, real in re.
struct Value {
  Scalar::Kind kind;
  std::int64_t i;
  double re, im;
};
Scalar ToScalar(const Value& v);

// A Python value — a number, or a nested list of them — as a generated table holds it: its
// nodes in preorder, each list followed by its items (n_items of them, each a whole subtree),
// each number a Value. [[1, 2.5], []] is {list 2} {list 2} {1} {2.5} {list 0}.
struct PyNode {
  bool is_list;
  int n_items;  // a list's items
  Value leaf;   // a number's value (unused in a list)
};
// The value `n` nodes spell, or nullopt when they spell no single value (a list promising more
// items than follow, nodes left over): a table the generator got wrong, never the candidate.
std::optional<PyValue> ToPyValue(const PyNode* nodes, int n);

// How checks print values in mismatch reports.
std::string Str(DType d);
std::string Str(bool b);
std::string Str(const std::string& s);  // quoted: 'cuda:0'
std::string Str(int v);
std::string Str(std::int64_t v);
std::string Str(double v);
std::string Str(const std::vector<std::int64_t>& v);
std::string Str(const std::vector<Scalar>& v);
// The texts of two scalars (lists of scalars) that differ, for a mismatch: as Str prints them,
// or, where they print alike, with each value's kind ("int 16777216" vs "float 16777216").
std::pair<std::string, std::string> Shown(const Scalar& expected, const Scalar& observed);
std::pair<std::string, std::string> Shown(const std::vector<Scalar>& expected, const std::vector<Scalar>& observed);
// Records a mismatch of two scalars (lists of scalars), as Shown prints them, found by a check
// of kind `kind` (Check::kValues for element values, Check::kAnswer for a scalar answer).
void MismatchValues(Case& c, Check kind, const std::string& check, const Scalar& expected, const Scalar& observed);
void MismatchValues(Case& c, Check kind, const std::string& check, const std::vector<Scalar>& expected,
                    const std::vector<Scalar>& observed);
// Compares one field, a check of kind `kind`: records that it ran, and a mismatch when it differs.
template <class T>
void ExpectEq(Case& c, Check kind, const std::string& check, const T& expected, const T& observed) {
  if (!c.Can(kind, check)) return;  // a check of a feature declared unsupported (strides): skipped
  c.Checked(kind);
  if (!(expected == observed)) c.Mismatch(kind, check, Str(expected), Str(observed));
}
inline void ExpectEq(Case& c, Check kind, const std::string& check, const std::vector<Scalar>& expected,
                     const std::vector<Scalar>& observed) {
  if (!c.Can(kind, check)) return;
  c.Checked(kind);
  if (expected != observed) MismatchValues(c, kind, check, expected, observed);
}
// The number of elements of a tensor of `sizes` (1 for a zero-dim tensor), or nullopt when a
// size is negative or the product does not fit int64.
std::optional<std::int64_t> CheckedNumel(const std::vector<std::int64_t>& sizes);
// The same for sizes a row or a candidate gave, known to be valid: a size that is not
// (negative, or an overflowing product) counts as 0 elements, never as a wrapped number.
std::int64_t Numel(const std::vector<std::int64_t>& sizes);
// Reads a tensor's values for a values check; returns nullopt after recording a mismatch when
// that fails, or the check as NOT_SUPPORTED (by itself: the rest of the case goes on) when the
// candidate declares values unreadable (Feature::kValues: the meta device, FakeTensor).
std::optional<std::vector<Scalar>> ReadValues(Case& c, const TensorHandle& t, const std::string& what);


// A short list of integers (sizes, strides, op arguments).
struct Dims {
  int n;
  std::int64_t v[16];
  std::vector<std::int64_t> vec() const { return std::vector<std::int64_t>(v, v + n); }
};

// An error a row expects: kind, and a fragment the message must contain ("" = any).
struct ExpectedError {
  bool expected;
  ErrorKind kind;
  const char* fragment;
};

// "RuntimeError containing \"fragment\"".
std::string ExpectedText(const ExpectedError& e);

// Compares an error's message with the fragment a row quotes, once its kind is right: the
// message check, apart from the error check (issue 48: a library's own words for the right
// error are not the semantics the documents state). `wants` says what the row expects.
void ExpectMessage(Case& c, const std::string& call, bool matches, const std::string& wants, const Error& error);

// Compares an answer with the row's expected error: its kind (the error check), then its
// message (the message check). Returns true when the check should go on to look at a value
// (no error expected and none came).
template <class T>
bool CheckOutcome(Case& c, const ExpectedError& e, const Result<T>& r, const std::string& call, const std::string& want) {
  c.Checked(Check::kError);
  if (e.expected) {
    if (r.ok()) c.Mismatch(Check::kError, call, ExpectedText(e), "no error");
    else if (r.error().kind != e.kind) c.Mismatch(Check::kError, call, ExpectedText(e), Describe(r.error()));
    else if (*e.fragment)
      ExpectMessage(c, call, r.error().message.find(e.fragment) != std::string::npos, ExpectedText(e), r.error());
    return false;
  }
  if (!r.ok()) {
    c.Mismatch(Check::kError, call, want, Describe(r.error()));
    return false;
  }
  return true;
}

// The answer of a call, or nullopt after recording NOT_SUPPORTED or a mismatch (an error from
// a call that must answer fails the check `kind`: the error check for the operation under test,
// the setup check for a call made before it).
// A setup call is held to the declaration, never judging it (Case::Usable's `setup`).
template <class T>
std::optional<T> Get(Case& c, Called<T> r, const std::string& call, Check kind = Check::kError) {
  if (!c.Usable(r, call, kind == Check::kSetup)) return std::nullopt;
  if (!r.ok()) {
    c.Mismatch(kind, call, "an answer", Describe(r.error()));
    return std::nullopt;
  }
  return std::move(r.value());
}

std::optional<TensorMeta> Meta(Case& c, const TensorHandle& t, const std::string& what);
std::optional<StorageInfo> Storage(Case& c, const TensorHandle& t, const std::string& what);
// Compares sizes, strides and storage_offset.
void ExpectGeometry(Case& c, const std::string& call, const TensorMeta& m, const std::vector<std::int64_t>& sizes,
                    const std::vector<std::int64_t>& strides, std::int64_t offset);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_COMMON_H_
