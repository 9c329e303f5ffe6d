// What every property suite shares: how a property takes its row from the spec, and the
// RapidCheck helpers for random operands and values.
//
// The property bodies are checked-in C++ (conformance/properties/<suite>_properties.cc); only
// their tables are generated, from the spec, by generators/emit_rapidcheck.py into
// <suite>_properties.inc: X-macros of the properties' rows and of the spec's values the bodies
// use. Properties compare a candidate with itself (e.g. across operand values) or with the
// spec's rules, so they hold for any candidate that is consistent, whatever its
// deterministic deviations.
#ifndef TCTS_CONFORMANCE_PROPERTIES_H_
#define TCTS_CONFORMANCE_PROPERTIES_H_

#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "conformance/candidate/candidate.h"
#include "conformance/checks/binary.h"
#include "conformance/checks/common.h"
#include "conformance/harness/harness.h"
#include "conformance/properties/dtype_values.inc"

// ---------------------------------------------------------------- a property test
// A RapidCheck property test with its row (a RowMeta: id, clause, statement, spec row; basis
// "property"). Each draw runs the body; how the draws end decides the outcome with
// RapidCheck's verdict (harness.h, FinishProperty): a body that returns has checked its draw;
// one that ends early — a precondition (RC_PRE, RC_DISCARD), or a feature the candidate
// declares unsupported (prop::Usable) — has not; a failed draw fails the property.
// The body is a draw: `cand`, the candidate it judges, is its parameter (bound to the run's
// candidate here, the one place a property meets it), and every helper below that calls the
// candidate takes it first.
#define TCTS_PROP(Suite, Name, row)                                                                    \
  static const bool tcts_property_##Suite##_##Name = ::tcts::RegisterProperty(#Suite "." #Name, row);  \
  void tcts_property_draw_##Suite##_##Name(::tcts::Candidate& cand);                                   \
  TEST(Suite, Name) {                                                                                  \
    ::tcts::StartProperty();                                                                           \
    ::tcts::Candidate& candidate = ::tcts::CurrentCandidate();                                         \
    ::rc::detail::checkGTest(                                                                          \
        [&candidate] { ::tcts::prop::RunDraw(&tcts_property_draw_##Suite##_##Name, candidate); });     \
    ::tcts::FinishProperty();                                                                          \
  }                                                                                                    \
  void tcts_property_draw_##Suite##_##Name(::tcts::Candidate& cand)

// ---------------------------------------------------------------- property rows
// A suite's generated table lists its properties as _(Name, "case id", "clause", "statement",
// "spec row"), e.g. TCTS_PROMOTION_PROPERTIES(_) in promotion_properties.inc. Its .cc file expands
//   TCTS_PROMOTION_PROPERTIES(TCTS_PROPERTY_ROW)      before the bodies: the rows, as constants
//   TCTS_PROPERTY(PromotionProperties, Name) { ... }  each body, with the row named Name
//   TCTS_PROMOTION_PROPERTIES(TCTS_PROPERTY_DEFINED)  after the bodies
// so that a body without a row, or a row without a body, does not compile.
#define TCTS_PROPERTY_ROW(Name, id, clause, text, spec_row) \
  constexpr ::tcts::RowMeta kPropertyRow_##Name{id, clause, "property", text, "", spec_row};
#define TCTS_PROPERTY(Suite, Name)               \
  constexpr bool kPropertyDefined_##Name = true; \
  TCTS_PROP(Suite, Name, kPropertyRow_##Name)
#define TCTS_PROPERTY_DEFINED(Name, id, clause, text, spec_row) \
  static_assert(kPropertyDefined_##Name, "property " id " has no body");

namespace tcts {
// How RapidCheck prints counterexamples of these types (found by ADL).
inline void showValue(const Scalar& s, std::ostream& os) { os << s.ToString(); }
inline void showValue(DType d, std::ostream& os) { os << DTypeName(d); }
inline void showValue(BinaryOp op, std::ostream& os) { os << BinaryOpName(op); }
inline void showValue(const OperandSpec& o, std::ostream& os) { os << ToString(o); }
}  // namespace tcts

namespace tcts::prop {

// ---------------------------------------------------------------- draws and declared features
// Thrown to end a draw that cannot check anything; RunDraw does not count it.
struct EndDraw {};

// Runs one draw of a property body and reports how it ended (harness.h).
inline void RunDraw(void (*body)(Candidate&), Candidate& cand) {
  if (!PropertyNotSupportedCall().empty()) return;  // decided: NOT_SUPPORTED; no draw can check more
  try {
    body(cand);
  } catch (const EndDraw&) {
    return;
  } catch (const rc::detail::CaseResult& r) {
    if (r.type == rc::detail::CaseResult::Type::Failure) PropertyDrawFailed();
    throw;
  } catch (...) {
    PropertyDrawFailed();  // RapidCheck reports any other exception as the draw's failure
    throw;
  }
  PropertyDrawChecked();
}

// Checks a call's answer against the candidate's declaration, as Case::Usable checks a table
// case's, and returns when the draw can look at the answer (an error included). A feature
// declared unsupported that answered NotSupported makes the property NOT_SUPPORTED and ends
// the draw; NotSupported from a feature declared supported, or any other answer from one
// declared unsupported, fails the draw.
inline void Usable(Candidate& cand, Feature feature, const char* op, const Error* error, const std::string& call) {
  Case c(RowMeta{"", "", "property", "", "", ""}, cand);
  if (c.Usable(feature, op, error, call)) return;
  if (c.not_supported()) {
    PropertyNotSupported(call, feature);
    throw EndDraw{};
  }
  RC_FAIL(c.MismatchText());
}
template <class T>
void Usable(Candidate& cand, const Called<T>& r, const std::string& call) {
  Usable(cand, r.feature(), r.op(), r.ok() ? nullptr : &r.error(), call);
}

// What a property is about, said at the top of its body before anything is drawn: when the
// candidate does not declare one of `ops` (Candidate::supports_op), the property is
// NOT_SUPPORTED naming it, whatever the seed, and the draw ends. A call the property makes
// only sometimes (a sub-check) asks OpDeclared instead and skips it.
inline bool OpDeclared(Candidate& cand, const char* op) { return cand.supports_op(op); }
inline void Needs(Candidate& cand, std::initializer_list<const char*> ops) {
  for (const char* op : ops) {
    if (OpDeclared(cand, op)) continue;
    PropertyNotSupported(std::string(op) + " (not declared)", FeatureOfOp(op).value_or(Feature::kTensors));
    throw EndDraw{};
  }
}
// The same for an answer feature the property is about (strides: the layouts an op gives).
inline void Needs(Candidate& cand, Feature feature) {
  if (cand.supports(feature)) return;
  PropertyNotSupported(std::string(FeatureName(feature)) + " (declared unsupported)", feature);
  throw EndDraw{};
}

// The value of a call that must succeed: Usable, then any error fails the draw.
template <class T>
T Get(Candidate& cand, Called<T> r, const std::string& call) {
  Usable(cand, r, call);
  if (!r.ok()) RC_FAIL(call + ": expected an answer, observed " + Describe(r.error()));
  return std::move(r.value());
}
inline void Get(Candidate& cand, const Called<void>& s, const std::string& call) {
  Usable(cand, s, call);
  if (!s.ok()) RC_FAIL(call + ": expected success, observed " + Describe(s.error()));
}

// ---------------------------------------------------------------- a failed draw's cause
// Fails the draw saying its cause as a table case's mismatch does — the call, what the spec
// expects and what the candidate gave ("add(base.t(), b): expected sizes [2, 3], observed [3,
// 2]") — where RC_ASSERT would show only the expression and its operands.
inline void Expect(bool holds, const std::string& call, const std::string& expected, const std::string& observed) {
  if (!holds) RC_FAIL(call + ": expected " + expected + ", observed " + observed);
}
template <class T>
void ExpectEqual(const std::string& call, const std::string& what, const T& expected, const T& observed) {
  if (!(observed == expected)) RC_FAIL(call + ": expected " + what + " " + Str(expected) + ", observed " + Str(observed));
}

// A Case's verdict on a draw (checks that record mismatches into a Case: ReadValues,
// CheckAddressFormula, ...): its mismatches fail the draw; its NOT_SUPPORTED ends it, and the
// property is NOT_SUPPORTED.
inline void Settle(const Case& c) {
  PropertyChecks(c.Verdicts());
  if (c.failed()) RC_FAIL(c.MismatchText());
  if (c.not_supported()) {
    PropertyNotSupported(c.not_supported_call(), c.not_supported_feature());
    throw EndDraw{};
  }
}

// ---------------------------------------------------------------- declared dtypes
// A property draws its dtypes only from those the candidate declares (Candidate::supports_dtype),
// as a table case runs only when its row's dtypes are declared (harness.h, RowMeta::dtypes); a
// property about two dtypes draws both from them. A candidate that declares every dtype draws
// from the whole list, so its draws for a seed are exactly what they were without the filter.

// The dtypes of `from` the candidate declares, in their order.
inline std::vector<DType> DeclaredOf(Candidate& cand, const std::vector<DType>& from) {
  std::vector<DType> declared;
  for (DType d : from)
    if (cand.supports_dtype(d)) declared.push_back(d);
  return declared;
}

// The dtypes of `from` the candidate does not declare, once each, in their order.
inline std::vector<DType> UndeclaredOf(Candidate& cand, const std::vector<DType>& from) {
  std::vector<DType> missing;
  for (DType d : from)
    if (!cand.supports_dtype(d) && std::find(missing.begin(), missing.end(), d) == missing.end())
      missing.push_back(d);
  return missing;
}

// The property has no declared dtype to draw: every one it could use, `missing`, is undeclared.
// It is NOT_SUPPORTED naming them (PropertyUndeclaredDTypes), and the draw ends.
[[noreturn]] inline void NoDeclaredDType(const std::vector<DType>& missing) {
  PropertyUndeclaredDTypes(missing);
  throw EndDraw{};
}

// The declared dtypes of `from`, to draw from (never empty: when none is declared, the property
// is NOT_SUPPORTED naming them all and the draw ends).
inline std::vector<DType> Drawable(Candidate& cand, const std::vector<DType>& from) {
  std::vector<DType> declared = DeclaredOf(cand, from);
  if (declared.empty()) NoDeclaredDType(UndeclaredOf(cand, from));
  return declared;
}

// The calls nearly every property makes, each as Get.
// A candidate with strides answers one per dimension (PROTOCOL.md "Strides"); one without them
// answers [], which only a property that declares it needs no strides reads past (Needs).
inline TensorMeta MetaOf(Candidate& cand, const TensorHandle& t) {
  TensorMeta m = Get(cand, calls::meta(cand, t), "meta()");
  if (m.layout == Layout::kStrided && m.strides.size() != m.sizes.size() && cand.supports(Feature::kStrides)) {
    RC_FAIL("meta(): expected one stride per dimension (" + std::to_string(m.sizes.size()) + "), observed " + Str(m.strides));
  }
  return m;
}
inline std::vector<Scalar> ValuesOf(Candidate& cand, const TensorHandle& t) { return Get(cand, calls::values(cand, t), "values()"); }
// Whether the candidate's values can be read (Feature::kValues). When they cannot, the
// property's values check is NOT_SUPPORTED by itself, `what` named among its skipped checks,
// and the draw goes on to judge the rest (dtype, sizes, strides, storage): call it before each
// comparison of values.
inline bool Checkable(Candidate& cand, Check kind, const std::string& what) {
  Case c(RowMeta{"", "", "property", "", "", ""}, cand);
  const bool can = c.Can(kind, what);
  PropertyChecks(c.Verdicts());
  return can;
}
inline bool ValuesReadable(Candidate& cand, const std::string& what) { return Checkable(cand, Check::kValues, what); }
// Whether the candidate's strides and storage offsets mean something (Feature::kStrides): the
// same, for a comparison of strides or offsets in a property that judges more than them.
inline bool StridesReadable(Candidate& cand, const std::string& what) { return Checkable(cand, Check::kStrides, what); }
inline StorageInfo StorageOf(Candidate& cand, const TensorHandle& t) {
  return Get(cand, calls::storage(cand, t), "storage()");
}
inline TensorHandle MakeTensor(Candidate& cand, const std::vector<std::int64_t>& sizes, DType dtype, const std::vector<Scalar>& values) {
  return Get(cand, calls::make_tensor(cand, sizes, dtype, values),
             "make_tensor(" + Str(sizes) + ", " + DTypeName(dtype) + ")");
}

// ---------------------------------------------------------------- random values
// The values each dtype holds, from the spec (dtype_values.inc).
struct IntegralRange {
  DType dtype;
  std::int64_t lowest, highest;
};
struct FloatingFormat {
  DType dtype;
  int precision, lowest, highest;  // it holds m * 2^e for |m| < 2^precision, lowest <= e <= highest
  double Max() const { return std::ldexp(std::ldexp(1.0, precision) - 1, highest); }
  double Tiny() const { return std::ldexp(1.0, lowest); }
  // Whether the format holds v exactly (an infinity or NaN too).
  bool Holds(double v) const {
    if (v == 0 || !std::isfinite(v)) return true;
    int e = 0;
    auto m = static_cast<std::int64_t>(std::ldexp(std::frexp(std::fabs(v), &e), 53));  // |v| = m * 2^(e - 53)
    e -= 53;
    while (m % 2 == 0) m /= 2, ++e;
    return e >= lowest && m < (std::int64_t{1} << precision) && std::fabs(v) <= Max();
  }
};
struct ComplexComponent {
  DType dtype, part;
};
#define TCTS_ROW(...) {__VA_ARGS__},
inline const std::vector<IntegralRange> kIntegralRanges = {TCTS_INTEGRAL_RANGES(TCTS_ROW)};
inline const std::vector<FloatingFormat> kFloatingFormats = {TCTS_FLOATING_FORMATS(TCTS_ROW)};
inline const std::vector<ComplexComponent> kComplexComponents = {TCTS_COMPLEX_COMPONENTS(TCTS_ROW)};
#undef TCTS_ROW

template <class Row>
const Row* RowOf(const std::vector<Row>& rows, DType dtype) {
  for (const Row& r : rows)
    if (r.dtype == dtype) return &r;
  return nullptr;
}

// Integers at the edges of every integral dtype (lowest - 1, lowest, highest, highest + 1),
// and 0 and +-1, that [lo, hi] holds: 300 for int16, 2^31 for int64, ...
inline std::vector<std::int64_t> IntegralEdges(std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> edges = {0, 1, -1};
  for (const IntegralRange& r : kIntegralRanges) {
    edges.insert(edges.end(), {r.lowest, r.highest});
    if (r.lowest > std::numeric_limits<std::int64_t>::min()) edges.push_back(r.lowest - 1);
    if (r.highest < std::numeric_limits<std::int64_t>::max()) edges.push_back(r.highest + 1);
  }
  std::vector<std::int64_t> held;
  for (std::int64_t v : edges)
    if (v >= lo && v <= hi) held.push_back(v);
  return held;
}

// Values at the edges of every floating dtype (its largest finite value and twice that, its
// smallest subnormal and half that, each negated too), and +-0 and +-1, that `f` holds exactly.
inline std::vector<double> FloatingEdges(const FloatingFormat& f) {
  std::vector<double> edges = {0.0, -0.0, 1.0, -1.0};
  for (const FloatingFormat& g : kFloatingFormats) {
    for (double v : {g.Max(), 2 * g.Max(), g.Tiny(), g.Tiny() / 2})
      if (v != 0 && std::isfinite(v) && f.Holds(v)) edges.insert(edges.end(), {v, -v});
  }
  return edges;
}

// A random value a tensor of `dtype` holds exactly, over the dtype's whole range: small
// values, values at the edges of every dtype's range, values anywhere in the range (mostly
// far outside the range of narrower dtypes), and for floating and complex dtypes infinities
// and NaN. So values a value-based promotion would look at (uint8 + 300, float16 + 1e5,
// int8 + 2^40, ...) are drawn as well as ordinary ones.
inline rc::Gen<Scalar> ValueFor(DType dtype) {
  if (DTypeCategory(dtype) == Category::kBool) {
    return rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return Scalar::Bool(b); });
  }
  if (const IntegralRange* range = RowOf(kIntegralRanges, dtype)) {
    const std::int64_t lo = range->lowest, hi = range->highest;
    const auto as_int = [](std::int64_t v) { return Scalar::Int(v); };
    const rc::Gen<std::int64_t> anywhere =
        hi == std::numeric_limits<std::int64_t>::max() ? rc::gen::arbitrary<std::int64_t>()
                                                       : rc::gen::inRange<std::int64_t>(lo, hi + 1);
    return rc::gen::map(rc::gen::weightedOneOf<std::int64_t>(
                            {{2, rc::gen::inRange<std::int64_t>(std::max<std::int64_t>(lo, -100),
                                                                std::min<std::int64_t>(hi, 100) + 1)},
                             {1, rc::gen::elementOf(IntegralEdges(lo, hi))},
                             {2, anywhere}}),
                        as_int);
  }
  if (const FloatingFormat* f = RowOf(kFloatingFormats, dtype)) {
    const FloatingFormat fmt = *f;
    const auto exact = [](std::int64_t m, int e) { return std::ldexp(static_cast<double>(m), e); };
    const std::int64_t m_max = (std::int64_t{1} << fmt.precision) - 1, m_small = std::min<std::int64_t>(m_max, 1024);
    const rc::Gen<double> small = rc::gen::apply(exact, rc::gen::inRange<std::int64_t>(-m_small, m_small + 1),
                                                 rc::gen::inRange(std::max(fmt.lowest, -6), std::min(fmt.highest, 0) + 1));
    const rc::Gen<double> anywhere = rc::gen::apply(exact, rc::gen::inRange<std::int64_t>(-m_max, m_max + 1),
                                                    rc::gen::inRange(fmt.lowest, fmt.highest + 1));
    const rc::Gen<double> special =
        rc::gen::element(std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::quiet_NaN());
    return rc::gen::map(rc::gen::weightedOneOf<double>({{2, small},
                                                        {1, rc::gen::elementOf(FloatingEdges(fmt))},
                                                        {2, anywhere},
                                                        {1, special}}),
                        [](double v) { return Scalar::Float(v); });
  }
  if (const ComplexComponent* c = RowOf(kComplexComponents, dtype)) {
    return rc::gen::apply([](const Scalar& re, const Scalar& im) { return Scalar::Complex({re.f, im.f}); },
                          ValueFor(c->part), ValueFor(c->part));
  }
  return rc::gen::just(Scalar::Int(0));
}

// A random Python scalar of the given kind: a Python int is an int64, a float a float64, a
// complex a complex128, and any of their values may be drawn.
inline rc::Gen<Scalar> ScalarOf(Scalar::Kind kind) {
  switch (kind) {
    case Scalar::Kind::kBool: return ValueFor(DType::kBool);
    case Scalar::Kind::kInt: return ValueFor(DType::kInt64);
    case Scalar::Kind::kFloat: return ValueFor(DType::kFloat64);
    case Scalar::Kind::kComplex: return ValueFor(DType::kComplex128);
  }
  return rc::gen::just(Scalar::Int(0));
}

// A random shape of rank 1..3 with sizes 1..3.
inline rc::Gen<std::vector<std::int64_t>> Shape() {
  return rc::gen::container<std::vector<std::int64_t>>(*rc::gen::inRange(1, 4), rc::gen::inRange<std::int64_t>(1, 4));
}

// Builds the operand on `cand` with random values. Dimensioned tensors
// take `shape`; zero-dim tensors and scalars have none. A tensor that cannot be made fails
// the draw (MakeTensor), unless the candidate declares no tensors.
inline Operand RandomOperand(Candidate& cand, const OperandSpec& o, const std::vector<std::int64_t>& shape) {
  if (o.kind == OperandKind::kScalar) return Operand(*ScalarOf(o.scalar_kind));
  const std::vector<std::int64_t> sizes = o.kind == OperandKind::kTensor ? shape : std::vector<std::int64_t>{};
  const auto values =
      *rc::gen::container<std::vector<Scalar>>(static_cast<std::size_t>(Numel(sizes)), ValueFor(o.dtype));
  return Operand(MakeTensor(cand, sizes, o.dtype, values));
}

// "ok dtype" or "ErrorKind": what an answer says about dtypes, values aside.
inline std::string DTypeOutcome(const Result<DType>& r) {
  return r.ok() ? std::string("ok ") + DTypeName(r.value()) : ErrorKindName(r.error().kind);
}

}  // namespace tcts::prop

#endif  // TCTS_CONFORMANCE_PROPERTIES_H_
