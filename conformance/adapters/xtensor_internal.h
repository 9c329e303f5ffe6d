// Internal to the xtensor adapter (conformance/adapters/xtensor.cc): the types, boxes and
// expression templates shared by the adapter and by the translation units that instantiate
// add/sub/mul/div for each left operand type (xtensor_ops_*.cc), so that the bulk of the
// template instantiation is spread over several files. See xtensor.cc for the mapping.
#ifndef TCTS_CONFORMANCE_ADAPTERS_XTENSOR_INTERNAL_H_
#define TCTS_CONFORMANCE_ADAPTERS_XTENSOR_INTERNAL_H_

// xtensor's configuration macros are pinned to its defaults, so answers do not depend on how
// the adapter is compiled.
#undef XTENSOR_ENABLE_ASSERT
#undef XTENSOR_ENABLE_CHECK_DIMENSION
#undef XTENSOR_USE_XSIMD
#undef XTENSOR_USE_TBB
#undef XTENSOR_USE_OPENMP
#undef XTENSOR_DISABLE_EXCEPTIONS
#undef XTENSOR_DEFAULT_LAYOUT
#undef XTENSOR_DEFAULT_TRAVERSAL
#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xbroadcast.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xoperation.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xtensor_config.hpp>
#include <xtl/xhalf_float.hpp>

#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "conformance/adapters/literal.h"
#include "conformance/adapters/typed.h"
#include "conformance/candidate/candidate.h"

namespace tcts {
namespace xtensor_adapter {

using Half = xtl::half_float;
template <class T>
using Array = xt::xarray<T>;
using Shape = xt::dynamic_shape<std::size_t>;
using Strides = xt::dynamic_shape<std::ptrdiff_t>;

using typed::Tag;

// ---------------------------------------------------------------- dtypes <-> C++ types
// The value type of each dtype (xtl has half_float, no bfloat16 and no complex half).
using Types = typed::TypeMap<
    typed::Entry<DType::kFloat32, float>, typed::Entry<DType::kFloat64, double>,
    typed::Entry<DType::kComplex64, std::complex<float>>, typed::Entry<DType::kComplex128, std::complex<double>>,
    typed::Entry<DType::kFloat16, Half>, typed::Entry<DType::kUint8, std::uint8_t>,
    typed::Entry<DType::kInt8, std::int8_t>, typed::Entry<DType::kInt16, std::int16_t>,
    typed::Entry<DType::kInt32, std::int32_t>, typed::Entry<DType::kInt64, std::int64_t>,
    typed::Entry<DType::kBool, bool>>;

inline Error NoSuchType(DType d) {
  return Error{ErrorKind::kNotImplementedError,
               std::string("xtensor has no value type for ") + DTypeName(d) + " (neither xtensor nor xtl defines one)"};
}

template <class R, class F>
R WithDType(DType d, F&& f) {
  return Types::With<R>(d, std::forward<F>(f), NoSuchType);
}
template <class T>
constexpr bool kIsDType = Types::kHas<T>;
template <class T>
constexpr DType DTypeOf() {
  return Types::DTypeOf<T>();
}

template <class T>
std::string TypeName() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, std::complex<float>>) return "std::complex<float>";
  else if constexpr (std::is_same_v<T, std::complex<double>>) return "std::complex<double>";
  else if constexpr (std::is_same_v<T, std::complex<Half>>) return "std::complex<xtl::half_float>";
  else if constexpr (std::is_same_v<T, Half>) return "xtl::half_float";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8_t";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "int8_t";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16_t";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "long";
  else if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, unsigned>) return "unsigned int";
  else if constexpr (std::is_same_v<T, unsigned long>) return "unsigned long";
  else return "(another type)";
}

// ---------------------------------------------------------------- tensors
struct XBox : TensorBox {
  virtual DType dtype() const = 0;
};
// An xt::xarray<T> (whole) or a strided view of one, sharing its storage.
template <class T>
struct TBox final : XBox {
  using value_type = T;
  std::shared_ptr<Array<T>> array;
  bool whole = true;
  Shape shape;  // a view's geometry, as xtensor computed it
  Strides strides;
  std::size_t offset = 0;
  DType dtype() const override { return DTypeOf<T>(); }

  Shape GetShape() const { return whole ? Shape(array->shape().begin(), array->shape().end()) : shape; }
  Strides GetStrides() const { return whole ? Strides(array->strides().begin(), array->strides().end()) : strides; }
  std::size_t GetOffset() const { return whole ? array->data_offset() : offset; }
  // The tensor as an xtensor expression with a data interface.
  auto View() const { return xt::strided_view(*array, GetShape(), GetStrides(), GetOffset(), xt::layout_type::dynamic); }
};

inline XBox& Unbox(const TensorHandle& h) {
  auto* box = dynamic_cast<XBox*>(h.get());
  if (!box) throw std::logic_error("tensor handle does not belong to the xtensor candidate");
  return *box;
}

template <class R, class F>
R WithBox(const TensorHandle& h, F&& f) {
  XBox& box = Unbox(h);
  return WithDType<R>(box.dtype(), [&](auto tag) -> R { return f(static_cast<TBox<typename decltype(tag)::type>&>(box)); });
}

template <class T>
TensorHandle Whole(Array<T> a) {
  auto box = std::make_shared<TBox<T>>();
  box->array = std::make_shared<Array<T>>(std::move(a));
  return box;
}

// ---------------------------------------------------------------- errors
// std exceptions as pybind11 translates them to Python (xtensor-python's bindings).
template <class F>
auto Guard(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::out_of_range& e) {
    return Error{ErrorKind::kIndexError, e.what()};
  } catch (const std::invalid_argument& e) {
    return Error{ErrorKind::kValueError, e.what()};
  } catch (const std::domain_error& e) {
    return Error{ErrorKind::kValueError, e.what()};
  } catch (const std::length_error& e) {
    return Error{ErrorKind::kValueError, e.what()};
  } catch (const std::range_error& e) {
    return Error{ErrorKind::kValueError, e.what()};
  } catch (const std::exception& e) {
    return Error{ErrorKind::kRuntimeError, e.what()};
  }
}

inline Error IllFormed(const std::string& expression, const std::string& rule) {
  return Error{ErrorKind::kTypeError, "ill-formed C++/xtensor expression " + expression + ": " + rule};
}

// ---------------------------------------------------------------- values in and out
using typed::ToScalar;
using typed::Wide;

// The elements of e in row-major order, widened exactly with xt::cast (a static_cast).
template <class T, class E>
std::vector<Scalar> Read(const E& e) {
  using W = Wide<T>;
  const Array<W> w = xt::cast<W>(e);
  std::vector<Scalar> out;
  out.reserve(w.size());
  for (const W& v : w.storage()) out.push_back(ToScalar(v));
  return out;
}

// `count` values (all of kind W) from values[first], converted to T with xt::cast (static_cast).
// static_cast<To>(From) exists. xtl::half_float's converting constructor template<class T>
// half(T) is unconstrained, but its body (static_cast<float>(rhs)) does not compile for a
// std::complex, so neither does any conversion from complex to half_float.
template <class To, class From>
constexpr bool kCastable =
    std::is_constructible_v<To, From> && !(std::is_same_v<To, Half> && xtl::is_complex<From>::value);

template <class T, class W>
Result<Array<T>> CastRun(const std::vector<Scalar>& values, std::size_t first, std::size_t count) {
  if constexpr (!kCastable<T, W>) {
    return IllFormed("xt::cast<" + TypeName<T>() + ">(" + TypeName<W>() + ")",
                     "static_cast<" + TypeName<T>() + ">(" + TypeName<W>() + ") does not exist");
  } else {
    Array<W> w = Array<W>::from_shape({count});
    for (std::size_t k = 0; k < count; ++k) {
      const Scalar& s = values[first + k];
      if constexpr (std::is_same_v<W, bool>) w(k) = s.b;
      else if constexpr (std::is_same_v<W, std::int64_t>) w(k) = s.i;
      else if constexpr (std::is_same_v<W, double>) w(k) = s.f;
      else w(k) = s.c;
    }
    Array<T> t = xt::cast<T>(w);
    return t;
  }
}

// The values as a flat xt::xarray<T>, runs of one kind cast together.
template <class T>
Result<Array<T>> Cast(const std::vector<Scalar>& values) {
  Array<T> out = Array<T>::from_shape({values.size()});
  for (std::size_t k = 0; k < values.size();) {
    std::size_t end = k;
    while (end < values.size() && values[end].kind == values[k].kind) ++end;
    Result<Array<T>> run = Error{ErrorKind::kInternal, ""};
    switch (values[k].kind) {
      case Scalar::Kind::kBool: run = CastRun<T, bool>(values, k, end - k); break;
      case Scalar::Kind::kInt: run = CastRun<T, std::int64_t>(values, k, end - k); break;
      case Scalar::Kind::kFloat: run = CastRun<T, double>(values, k, end - k); break;
      case Scalar::Kind::kComplex: run = CastRun<T, std::complex<double>>(values, k, end - k); break;
    }
    if (!run.ok()) return run.error();
    std::copy(run.value().storage().begin(), run.value().storage().end(), out.storage().begin() + k);
    k = end;
  }
  return out;
}

// ---------------------------------------------------------------- Python numbers as C++ literals
using adapters::Literal;  // conformance/adapters/literal.h
using adapters::ToLiteral;

struct XOperand {
  TensorHandle tensor;  // or null: a literal
  Literal literal;
};
inline XOperand ToXOperand(const Operand& o) {
  if (const Scalar* s = std::get_if<Scalar>(&o)) return XOperand{nullptr, ToLiteral(*s)};
  return XOperand{std::get<TensorHandle>(o), 0};
}

template <class E>
struct IsStridedView : std::false_type {};
template <class CT, class S, xt::layout_type L, class FST>
struct IsStridedView<xt::xstrided_view<CT, S, L, FST>> : std::true_type {};

// Calls f with the operand as a user holds it: the xt::xarray itself, a strided view of one,
// or a C++ number.
template <class R, class F>
R WithOperand(const XOperand& o, F&& f) {
  if (o.tensor) {
    return WithBox<R>(o.tensor, [&](auto& box) -> R {
      if (box.whole) return f(static_cast<const std::decay_t<decltype(*box.array)>&>(*box.array));
      return f(box.View());
    });
  }
  return std::visit([&](const auto& s) -> R { return f(s); }, o.literal);
}


template <class E>
constexpr bool kIsExpr = xt::is_xexpression<std::decay_t<E>>::value;

// Calls f with the right operand of `a op b` whose left operand has type L. A tensor is a
// strided view here only beside a std::complex number, the one operand with which the kind of
// expression matters (IllFormedPair::kViewComplex); everywhere else EvaluateExpr /
// ValueTypeExpr (xtensor.cc, AsArrays) have made it a whole xt::xarray. So: after a complex
// number, the right operand as a user holds it; after another number or an xt::xarray, an
// xt::xarray or a number; after a strided view, a complex number.
template <class L, class R, class F>
R WithRight(const XOperand& b, F&& f) {
  constexpr bool kComplexNumber = !kIsExpr<L> && xtl::is_complex<L>::value;
  const auto not_applied = [] { return Error{ErrorKind::kInternal, "a strided view where AsArrays makes an xt::xarray"}; };
  if (b.tensor) {
    if constexpr (IsStridedView<L>::value) {
      return not_applied();
    } else {
      return WithBox<R>(b.tensor, [&](auto& box) -> R {
        if (box.whole) return f(static_cast<const std::decay_t<decltype(*box.array)>&>(*box.array));
        if constexpr (kComplexNumber) return f(box.View());
        else return not_applied();
      });
    }
  }
  return std::visit(
      [&](const auto& s) -> R {
        if constexpr (IsStridedView<L>::value && !xtl::is_complex<std::decay_t<decltype(s)>>::value) return not_applied();
        else return f(s);
      },
      b.literal);
}


// The element type of an operand: an expression's value_type, or the number's own type.
template <class E, class = void>
struct ValueOfImpl {
  using type = std::decay_t<E>;
};
template <class E>
struct ValueOfImpl<E, std::enable_if_t<xt::is_xexpression<std::decay_t<E>>::value>> {
  using type = typename std::decay_t<E>::value_type;
};
template <class E>
using ValueOf = typename ValueOfImpl<E>::type;

template <class E>
std::string OperandText(const E&) {
  if constexpr (kIsExpr<E>) return "xexpression<" + TypeName<typename std::decay_t<E>::value_type>() + ">";
  else return TypeName<std::decay_t<E>>();
}

// Operand pairs for which `a op b` does not compile (each reason below).
template <class A, class B>
struct IllFormedPair {
  static constexpr bool kTwoNumbers = !kIsExpr<A> && !kIsExpr<B>;
  static constexpr bool kHalfComplex = (xtl::is_complex<ValueOf<A>>::value && std::is_same_v<ValueOf<B>, Half>) ||
                                       (std::is_same_v<ValueOf<A>, Half> && xtl::is_complex<ValueOf<B>>::value);
  static constexpr bool kViewComplex = (IsStridedView<A>::value && xtl::is_complex<B>::value) ||
                                       (xtl::is_complex<A>::value && IsStridedView<B>::value);
  static constexpr bool value = kTwoNumbers || kHalfComplex || kViewComplex;
};

// What a binary op of the spec that ApplyTo does not translate answers.
inline Error NotTranslated(BinaryOp op) {
  return Error{ErrorKind::kNotSupported, std::string("binary op '") + BinaryOpName(op) + "' is not translated to xtensor"};
}

// Calls sink(a op b) with xtensor's expression: the translation of each binary op (another
// answers NotTranslated); two C++ numbers make no xtensor expression.
template <class R, class A, class B, class Sink>
R ApplyTo(BinaryOp op, const A& a, const B& b, Sink&& sink) {
  if constexpr (IllFormedPair<A, B>::kTwoNumbers) {
    return IllFormed(TypeName<A>() + " " + BinaryOpSymbol(op) + " " + TypeName<B>(),
                     "no xtensor expression takes part (two C++ numbers)");
  } else if constexpr (IllFormedPair<A, B>::kHalfComplex) {
    // xtensor's functor (xoperation.hpp) computes `x op y` on the elements: for a complex and an
    // xtl::half_float both xt::detail's mixed-complex operator and half's operator template
    // (xhalf_float_impl.hpp: template<class T> half operator+(T, half)) match: ambiguous.
    return IllFormed(OperandText(a) + " " + BinaryOpSymbol(op) + " " + OperandText(b),
                     "on the elements, xt::detail::operator" + std::string(BinaryOpSymbol(op)) +
                         " for mixed complex types and half_float's operator template are ambiguous");
  } else if constexpr (IllFormedPair<A, B>::kViewComplex) {
    // An xstrided_view's type names xt::detail::inner_storage_getter, so argument-dependent
    // lookup finds xt::detail's mixed-complex operators (xoperation.hpp DEFINE_COMPLEX_OVERLOAD:
    // operator+(const T1&, const std::complex<T2>&)) for the view itself; their return type
    // instantiates std::complex<xfunction<...>>, a hard compile error.
    return IllFormed(OperandText(a) + " (a strided view) " + BinaryOpSymbol(op) + " " + OperandText(b),
                     "argument-dependent lookup picks xt::detail::operator" + std::string(BinaryOpSymbol(op)) +
                         "(const T1&, const std::complex<T2>&) with T1 the view, whose result type does not compile");
  } else {
    switch (op) {
      case BinaryOp::kAdd: return sink(a + b);
      case BinaryOp::kSub: return sink(a - b);
      case BinaryOp::kMul: return sink(a * b);
      case BinaryOp::kDiv: return sink(a / b);
      default: break;
    }
    return NotTranslated(op);
  }
}

// A C++ number as an xtensor expression (xt::xscalar), for the checks below.
template <class E>
auto AsExpr(const E& e) {
  if constexpr (kIsExpr<E>) return xt::xclosure_t<const E&>(e);
  else return xt::xscalar<E>(e);
}

// Integer division happens in C (the usual arithmetic conversions of the operands): a zero
// divisor, or the minimum of int/long divided by -1, is undefined behaviour ([expr.mul];
// SIGFPE on x86-64). The adapter does not execute it: it answers an Internal error instead of
// taking the process down (at random points of a property's shrinking). Checked with
// xtensor's own broadcasting; only when the broadcast result has elements.
template <class C, class A, class B>
std::optional<Error> DivisionUB(const A& a, const B& b) {
  if constexpr (!xtl::is_integral<C>::value) {
    return std::nullopt;
  } else {
    const auto ea = AsExpr(a);
    const auto eb = AsExpr(b);
    if ((ea / eb).size() == 0) return std::nullopt;
    bool ub = xt::any(xt::equal(xt::cast<C>(eb), C(0)));
    if constexpr (std::is_signed_v<C>) {
      ub = ub || xt::any(xt::equal(xt::cast<C>(ea), std::numeric_limits<C>::min()) && xt::equal(xt::cast<C>(eb), C(-1)));
    }
    if (!ub) return std::nullopt;
    return Error{ErrorKind::kInternal, "not executed: an integer division by zero (or of the minimum by -1) in " +
                                           TypeName<C>() + " is undefined behaviour in C++ (xtensor's divides functor "
                                           "divides with /)"};
  }
}

// Evaluates an expression into a new xt::xarray of its value_type.
struct Evaluate {
  template <class E>
  Result<TensorHandle> operator()(const E& e) const {
    using V = typename E::value_type;
    if constexpr (kIsDType<V>) {
      Array<V> r = e;
      return Whole<V>(std::move(r));
    } else {
      return Error{ErrorKind::kTypeError, "xtensor's result value_type " + TypeName<V>() +
                                              " is none of the suite's dtypes (not evaluated)"};
    }
  }
};

struct ValueTypeOf {
  template <class E>
  Result<DType> operator()(const E&) const {
    using V = typename E::value_type;
    if constexpr (kIsDType<V>) return DTypeOf<V>();
    else return Error{ErrorKind::kTypeError, "xtensor's result value_type " + TypeName<V>() + " is none of the suite's dtypes"};
  }
};

template <class A, class S, class = void>
struct CanMultiply : std::false_type {};
template <class A, class S>
struct CanMultiply<A, S, std::void_t<decltype(std::declval<A>() * std::declval<S>())>> : std::true_type {};

// *dst = f(*dst, e): what xtensor's scalar_computed_assign does per element (xassign.hpp).
template <class F, class T, class S, class = void>
struct ComputedAssignable : std::false_type {};
template <class F, class T, class S>
struct ComputedAssignable<F, T, S, std::void_t<decltype(std::declval<T&>() = std::declval<F>()(std::declval<T&>(), std::declval<const S&>()))>>
    : std::bool_constant<!(std::is_same_v<T, Half> && xtl::is_complex<S>::value)> {};
// (half_float's operator templates, template<class T> half operator+(half, T), are
// unconstrained; with a std::complex their bodies do not compile.)

// Assigns a result to a destination: the xarray itself (which resizes) or its view.
template <class T, class V>
Status AssignTo(TBox<T>& dest, const Array<V>& r) {
  if constexpr (!kCastable<T, V>) {
    return IllFormed("xarray<" + TypeName<T>() + "> = xarray<" + TypeName<V>() + ">",
                     "xtensor's assignment converts with static_cast<" + TypeName<T>() + ">(" + TypeName<V>() +
                         "), which does not exist");
  } else {
    if (dest.whole) {
      *dest.array = r;
    } else {
      auto v = dest.View();
      v = r;
    }
    return {};
  }
}

// ---------------------------------------------------------------- views
// A view's result: kept when it is a strided view of the input's memory, else not representable.
template <class T, class W>
Result<TensorHandle> Keep(const TBox<T>& in, W&& w, const std::string& call) {
  using WT = std::decay_t<W>;
  if constexpr (!xt::has_data_interface<WT>::value) {
    return Error{ErrorKind::kInternal, call + ": xtensor answered " +
                                           "a lazy expression without strides or data (no data interface); a "
                                           "tensor handle needs strides over memory"};
  } else {
    if (w.storage().data() != in.array->storage().data()) {
      return Error{ErrorKind::kInternal, call + ": xtensor answered a view of other memory"};
    }
    auto box = std::make_shared<TBox<T>>();
    box->array = in.array;
    box->whole = false;
    box->shape = Shape(w.shape().begin(), w.shape().end());
    box->strides = Strides(w.strides().begin(), w.strides().end());
    box->offset = w.data_offset();
    return TensorHandle(box);
  }
}

// The slice vector addressing axis `dim`: dim all()s then the slice, or for a negative dim
// ellipsis(), the slice, then -dim-1 all()s (axes counted from the end, as NumPy writes a[..., s]).
inline xt::xstrided_slice_vector AxisSlices(std::int64_t dim, xt::xstrided_slice<std::ptrdiff_t> slice) {
  xt::xstrided_slice_vector sv;
  if (dim >= 0) {
    for (std::int64_t k = 0; k < dim; ++k) sv.push_back(xt::all());
    sv.push_back(slice);
  } else {
    sv.push_back(xt::ellipsis());
    sv.push_back(slice);
    for (std::int64_t k = 0; k < -dim - 1; ++k) sv.push_back(xt::all());
  }
  return sv;
}

// The same for functions that take a std::size_t axis: xt::normalize_axis turns a negative
// axis into one from the end. xtensor does not check the axis against the rank there, and an
// axis past it indexes past the shape (undefined behaviour): not executed.
inline Result<std::size_t> SizeAxis(std::size_t rank, std::int64_t dim, const std::string& call, std::size_t limit) {
  if (dim < -static_cast<std::int64_t>(limit) || dim >= static_cast<std::int64_t>(limit)) {
    return Error{ErrorKind::kInternal, call + ": not executed: xtensor does not check this axis against the rank (" +
                                           std::to_string(rank) + ") and would index past the shape"};
  }
  return xt::normalize_axis(limit, static_cast<std::ptrdiff_t>(dim));
}


// ---------------------------------------------------------------- per left operand
// `a op b` with the left operand as a user holds it (an xt::xarray, a strided view of one, or
// a C++ number), evaluated into a new tensor / its value_type. Defined in xtensor_ops.h and
// instantiated for every left operand type in the xtensor_ops_*.cc files.
template <class L>
Result<TensorHandle> EvaluateLeft(BinaryOp op, const L& a, const XOperand& b);
template <class L>
Result<DType> ValueTypeLeft(BinaryOp op, const L& a, const XOperand& b);

template <class T>
using ViewOf = decltype(std::declval<const TBox<T>&>().View());

}  // namespace xtensor_adapter
}  // namespace tcts

#endif  // TCTS_CONFORMANCE_ADAPTERS_XTENSOR_INTERNAL_H_
