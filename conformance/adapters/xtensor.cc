// Adapter: xtensor 0.24 (Debian libxtensor-dev, header-only, with xtl) as a candidate.
// Translation only: every answer is what an xtensor expression gives, written as a user of
// xtensor writes it.
//
// How the suite's calls map onto xtensor:
//  * A tensor is an xt::xarray<T> (row-major, owning its storage) or a strided view of one:
//    xt::strided_view(array, shape, strides, offset) with the geometry xtensor's own view
//    functions computed (transpose, strided_view with slices, squeeze, reshape_view, ...).
//    Geometry (shape, strides, data_offset) is always read back from xtensor. xtensor gives a
//    dimension of extent 1 the stride 0 (adapt_strides, xstrides.hpp), for broadcasting.
//  * dtypes: float, double, std::complex<float>, std::complex<double>, xtl::half_float
//    (float16: xtl's half type, whose traits xtl specialises as a floating type for xtensor),
//    uint8_t, int8_t, int16_t, int32_t, int64_t, bool. bfloat16 and complex32 have no type in
//    xtensor or xtl: NotImplementedError.
//  * A Python number is the C++ literal a user writes: true/false (bool), an integer literal
//    (int, or long when it does not fit an int: the C++ literal rule), a floating literal
//    (double), std::complex<double>.
//  * add/sub/mul/div are xtensor's operators on those operands: C++'s usual arithmetic
//    conversions decide the result's value_type (int8 + int8 is int, float + 1.5 is double,
//    int / int is integer division), xtl::promote_type mixes complex and real, broadcasting is
//    NumPy's (xt::broadcast_error otherwise). The result is evaluated into an xt::xarray of
//    that value_type. A strided view operand is copied into an xt::xarray first (the same
//    elements and value_type, so the same answer), except beside a complex number, where the
//    view itself does not compile (AsArray below). out=: out = a op b (an xarray resizes to
//    the result, a view keeps its shape); in-place: self op= other (xsemantic: self = self op other; with a scalar,
//    scalar_computed_assign with std::plus<> etc.). Both convert to the destination's type
//    with static_cast, silently.
//  * add/sub's alpha (when not 1): a + alpha * b, alpha * b evaluated first.
//  * Views: t() is xt::transpose; transpose(d0, d1) and permute are xt::transpose with a
//    permutation; narrow/select/slice/unsqueeze are xt::strided_view with a slice vector
//    (xt::range, an integer, xt::newaxis, xt::all; xt::ellipsis for axes counted from the end);
//    squeeze is xt::squeeze; view and reshape are xt::reshape_view (of an xarray: its storage
//    with the view's strides, which is what the view's flat adaptor addresses); expand is
//    xt::broadcast;
//    as_strided is xt::strided_view(storage, sizes, strides, offset). A result that is not a
//    strided view of the same memory (reshape_view of a view, broadcast: lazy expressions
//    without strides) cannot be held as a tensor: an Internal error says so.
//  * Undefined behaviour is not executed (an Internal error says so): integer division by zero
//    or of the minimum by -1 (xtensor's divides is C++'s /), an xt::range with step 0 (its size
//    is computed as n / step), reading or writing a view that reaches outside its storage
//    (xtensor checks no view bounds), a std::size_t axis past the rank (xtensor does not check
//    it). Integer overflow wraps (-fwrapv, conformance/adapters/BUILD).
//  * Errors: xtensor throws std exceptions; they map as pybind11 (and so xtensor-python)
//    translates them to Python: out_of_range -> IndexError, invalid_argument / domain_error /
//    length_error / range_error -> ValueError, any other std::exception -> RuntimeError. An
//    expression C++ rejects is a TypeError naming the rule.
//  * xtensor has no memory formats, strided allocation or format-aware copies, no default
//    dtype, no devices, no dtype names, no can_cast query, no asarray, no DLPack: declared
//    unsupported.
//
#include "conformance/adapters/xtensor_internal.h"

#include <xtensor/xadapt.hpp>

namespace tcts {
namespace xtensor_adapter {
namespace {

// a op b: the left operand as a user holds it, then the per-left instantiation (xtensor_ops.h).
// A view xtensor computed may address memory outside its array's storage (xtensor checks no
// index or offset: select(0, 7), as_strided past the end). Reading or writing through it is
// undefined behaviour, so the adapter does not: an Internal error says so.
template <class T>
std::optional<Error> OutsideStorage(const TBox<T>& box) {
  if (box.whole) return std::nullopt;
  for (std::size_t extent : box.shape) {
    if (extent == 0) return std::nullopt;  // no elements: nothing is addressed
  }
  // In 128 bits: an extent xtensor took as given (reshape_view's -1) is a huge std::size_t.
  __int128 lo = static_cast<__int128>(box.offset), hi = lo;
  for (std::size_t k = 0; k < box.shape.size(); ++k) {
    const __int128 reach = static_cast<__int128>(box.strides[k]) * static_cast<__int128>(box.shape[k] - 1);
    (reach < 0 ? lo : hi) += reach;
  }
  const __int128 n = static_cast<__int128>(box.array->storage().size());
  if (lo >= 0 && hi < n) return std::nullopt;
  const auto text = [](__int128 v) {
    return v > INT64_MAX || v < INT64_MIN ? std::string("(beyond int64)") : std::to_string(static_cast<std::int64_t>(v));
  };
  return Error{ErrorKind::kInternal, "not executed: the view xtensor computed addresses elements " + text(lo) + ".." +
                                         text(hi) + " of a storage of " + text(n) +
                                         " (xtensor checks no view bounds); accessing them is undefined behaviour"};
}
std::optional<Error> OutsideStorage(const TensorHandle& h) {
  return WithBox<std::optional<Error>>(h, [](auto& box) { return OutsideStorage(box); });
}
std::optional<Error> OutsideStorage(const XOperand& o) {
  return o.tensor ? OutsideStorage(o.tensor) : std::nullopt;
}

// A tensor operand is held as an xt::xarray: a strided view is copied into a new one
// (xt::xarray<T> = view) to evaluate, and stands as its own array's type for the value type
// alone. xtensor computes `a op b` element by element with the functor of the two value types,
// broadcasting by shape alone, whichever kind of expression holds each operand (xfunction.hpp,
// xoperation.hpp), so the answer is the one the view gives. The exception is a view beside a
// std::complex number, which does not compile (IllFormedPair::kViewComplex): there the view is
// kept. What this saves is compiling `a op b` for every pair of expression kinds: more than
// half of the adapter's instantiations, which were half of a cold build (issue 28).
template <bool kCopy>
Result<XOperand> AsArray(const XOperand& o) {
  if (!o.tensor) return o;
  return WithBox<Result<XOperand>>(o.tensor, [&](auto& box) -> Result<XOperand> {
    using T = typename std::decay_t<decltype(box)>::value_type;
    if (box.whole) return o;
    if constexpr (kCopy) {
      return XOperand{Whole<T>(Array<T>(box.View())), 0};
    } else {
      auto storage = std::make_shared<TBox<T>>();  // the view's array: its value type, nothing read
      storage->array = box.array;
      return XOperand{TensorHandle(storage), 0};
    }
  });
}
bool IsComplexNumber(const XOperand& o) { return !o.tensor && std::holds_alternative<std::complex<double>>(o.literal); }
template <bool kCopy, class R, class F>
R AsArrays(const XOperand& a, const XOperand& b, F&& f) {
  if (IsComplexNumber(a) || IsComplexNumber(b)) return f(a, b);
  Result<XOperand> x = AsArray<kCopy>(a), y = AsArray<kCopy>(b);
  if (!x.ok()) return x.error();
  if (!y.ok()) return y.error();
  return f(x.value(), y.value());
}

Result<TensorHandle> EvaluateExpr(BinaryOp op, const XOperand& a, const XOperand& b) {
  if (auto e = OutsideStorage(a)) return *e;
  if (auto e = OutsideStorage(b)) return *e;
  return AsArrays<true, Result<TensorHandle>>(a, b, [&](const XOperand& x, const XOperand& y) {
    return WithOperand<Result<TensorHandle>>(x, [&](const auto& l) { return EvaluateLeft(op, l, y); });
  });
}
Result<DType> ValueTypeExpr(BinaryOp op, const XOperand& a, const XOperand& b) {
  return AsArrays<false, Result<DType>>(a, b, [&](const XOperand& x, const XOperand& y) {
    return WithOperand<Result<DType>>(x, [&](const auto& l) { return ValueTypeLeft(op, l, y); });
  });
}

bool IsOne(const Scalar& alpha) { return alpha.kind == Scalar::Kind::kInt && alpha.i == 1; }

// (a, alpha * b) for add/sub when alpha is not 1; alpha * b evaluated first.
inline Result<std::pair<XOperand, XOperand>> Operands(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) {
  // Whether ApplyTo translates op, asked on an int array (made once) and an int before any
  // operand is looked at.
  static const xt::xarray<int> kProbe{};
  const Status translated = ApplyTo<Status>(op, kProbe, 1, [](const auto&) -> Status { return {}; });
  if (!translated.ok()) return translated.error();
  XOperand x = ToXOperand(a), y = ToXOperand(b);
  if ((op == BinaryOp::kAdd || op == BinaryOp::kSub) && !IsOne(alpha)) {
    XOperand al{nullptr, ToLiteral(alpha)};
    if (y.tensor) {
      Result<TensorHandle> s = EvaluateExpr(BinaryOp::kMul, al, y);
      if (!s.ok()) return s.error();
      y = XOperand{s.value(), 0};
    } else {
      Result<Literal> s = std::visit(
          [&](const auto& p, const auto& q) -> Result<Literal> {
            using P = std::decay_t<decltype(p)>;
            using Q = std::decay_t<decltype(q)>;
            if constexpr (CanMultiply<P, Q>::value) {
              using M = decltype(p * q);
              if constexpr (std::is_constructible_v<Literal, M>) return Literal(p * q);
              else return IllFormed("alpha * b", "a C++ product outside the literal types");
            } else {
              return IllFormed("alpha * b: " + TypeName<P>() + " * " + TypeName<Q>(), "no C++ operator* for these types");
            }
          },
          al.literal, y.literal);
      if (!s.ok()) return s.error();
      y = XOperand{nullptr, s.value()};
    }
  }
  return std::make_pair(x, y);
}

// ---------------------------------------------------------------- the candidate
class XtensorCandidate final : public CandidateOf<XtensorCandidate> {
 public:
  std::string name() const override { return "xtensor"; }
  std::string version() const override {
    return std::to_string(XTENSOR_VERSION_MAJOR) + "." + std::to_string(XTENSOR_VERSION_MINOR) + "." +
           std::to_string(XTENSOR_VERSION_PATCH);
  }
  std::string build() const override {
    return std::string("xtensor (header-only, /usr/include/xtensor) with xtl ") + std::to_string(XTL_VERSION_MAJOR) +
           "." + std::to_string(XTL_VERSION_MINOR) + "." + std::to_string(XTL_VERSION_PATCH) + "; compiled by " +
           __VERSION__ + "; defaults (no xsimd, no XTENSOR_ENABLE_ASSERT), row-major";
  }

  // bfloat16 and complex32 have no type in xtensor or xtl (above): declared missing, so their
  // cases are NOT_SUPPORTED naming the dtype rather than each answering NotImplementedError.
  // uint16/32/64, outside the documents' twelve, are not translated yet (WithDType has no case
  // for them; xtensor itself takes std::uint16_t etc.): declared missing too.
  bool supports_dtype(DType d) const override { return DTypeDocumented(d) && d != DType::kBfloat16; }

  // Its features are the ops it overrides (CandidateOf), and no feature of an answer.

  // -- dtypes: xtl's type traits (std's, specialised by xtl for half_float) and numeric_limits.
  Result<DTypeInfo> dtype_info(DType d) override {
    return WithDType<Result<DTypeInfo>>(d, [](auto tag) -> Result<DTypeInfo> {
      using T = typename decltype(tag)::type;
      DTypeInfo info;
      info.itemsize = static_cast<int>(sizeof(T));
      info.is_floating_point = xtl::is_floating_point<T>::value;
      info.is_complex = xtl::is_complex<T>::value;
      info.is_signed = xtl::is_signed<T>::value;
      return info;
    });
  }

  Result<FloatInfo> finfo(DType d) override {
    return WithDType<Result<FloatInfo>>(d, [&](auto tag) -> Result<FloatInfo> {
      using T = typename decltype(tag)::type;
      using L = std::numeric_limits<T>;
      if constexpr (!L::is_specialized || L::is_integer || xtl::is_complex<T>::value) {
        return Error{ErrorKind::kTypeError, "std::numeric_limits<" + TypeName<T>() + "> is not a floating type's"};
      } else {
        FloatInfo fi;
        fi.bits = static_cast<int>(sizeof(T) * 8);
        fi.eps = static_cast<double>(L::epsilon());
        fi.max = static_cast<double>(L::max());
        fi.min = static_cast<double>(L::lowest());
        fi.tiny = static_cast<double>(L::min());
        return fi;
      }
    });
  }

  // -- promotion: xtl::promote_type_t<A, B> ("Traits class for the result type of mixed
  // arithmetic expressions", xtl/xtype_traits.hpp).
  Result<DType> promote_types(DType a, DType b) override {
    return WithDType<Result<DType>>(a, [&](auto ta) -> Result<DType> {
      return WithDType<Result<DType>>(b, [&](auto tb) -> Result<DType> {
        using P = xtl::promote_type_t<typename decltype(ta)::type, typename decltype(tb)::type>;
        if constexpr (kIsDType<P>) return DTypeOf<P>();
        else return Error{ErrorKind::kTypeError, "xtl::promote_type_t is " + TypeName<P>() + ", none of the suite's dtypes"};
      });
    });
  }

  // The value_type of the xtensor expression a + b.
  Result<DType> result_type(const Operand& a, const Operand& b) override {
    return Guard([&]() -> Result<DType> {
      return ValueTypeExpr(BinaryOp::kAdd, ToXOperand(a), ToXOperand(b));
    });
  }

  // -- tensors
  Result<TensorHandle> make_tensor(const std::vector<std::int64_t>& sizes, DType dtype,
                                   const std::vector<Scalar>& values) override {
    return Guard([&]() -> Result<TensorHandle> {
      if (std::optional<Error> e = typed::ValueCountError(sizes, values)) return *e;
      return WithDType<Result<TensorHandle>>(dtype, [&](auto tag) -> Result<TensorHandle> {
        using T = typename decltype(tag)::type;
        Result<Array<T>> flat = Cast<T>(values);
        if (!flat.ok()) return flat.error();
        Array<T> t = std::move(flat.value());
        t.reshape(Shape(sizes.begin(), sizes.end()));  // row-major: the values in order
        return Whole<T>(std::move(t));
      });
    });
  }

  Result<TensorMeta> meta(const TensorHandle& h) override {
    return Guard([&]() -> Result<TensorMeta> {
      return WithBox<Result<TensorMeta>>(h, [&](auto& box) -> Result<TensorMeta> {
        using T = typename std::decay_t<decltype(box)>::value_type;
        TensorMeta m;
        m.dtype = DTypeOf<T>();
        m.device = "cpu";  // xtensor's containers live in host memory
        m.layout = Layout::kStrided;
        for (std::size_t s : box.GetShape()) m.sizes.push_back(static_cast<std::int64_t>(s));
        for (std::ptrdiff_t s : box.GetStrides()) m.strides.push_back(static_cast<std::int64_t>(s));
        m.storage_offset = static_cast<std::int64_t>(box.GetOffset());
        return m;
      });
    });
  }

  Result<std::vector<Scalar>> values(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::vector<Scalar>> {
      return WithBox<Result<std::vector<Scalar>>>(h, [&](auto& box) -> Result<std::vector<Scalar>> {
        using T = typename std::decay_t<decltype(box)>::value_type;
        if (auto e = OutsideStorage(box)) return *e;
        return Read<T>(box.View());
      });
    });
  }

  // -- add/sub/mul/div
  Result<TensorHandle> binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) override {
    return Guard([&]() -> Result<TensorHandle> {
      auto ops = Operands(op, a, b, alpha);
      if (!ops.ok()) return ops.error();
      return EvaluateExpr(op, ops.value().first, ops.value().second);
    });
  }

  // out = a op b, evaluated first (the same values and resizing as assigning the expression).
  Status binary_out(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha,
                    const TensorHandle& out) override {
    return Guard([&]() -> Status {
      auto ops = Operands(op, a, b, alpha);
      if (!ops.ok()) return ops.error();
      Result<TensorHandle> r = EvaluateExpr(op, ops.value().first, ops.value().second);
      if (!r.ok()) return r.error();
      return AssignResult(out, r.value());
    });
  }

  // self op= other: with a tensor, xsemantic's self = self op other (evaluated, then assigned);
  // with a number, scalar_computed_assign (std::plus<> etc. and a static_cast per element).
  Status binary_inplace(BinaryOp op, const TensorHandle& self, const Operand& other, const Scalar& alpha) override {
    return Guard([&]() -> Status {
      auto ops = Operands(op, self, other, alpha);
      if (!ops.ok()) return ops.error();
      const XOperand& y = ops.value().second;
      if (y.tensor) {
        Result<TensorHandle> r = EvaluateExpr(op, ops.value().first, y);
        if (!r.ok()) return r.error();
        return AssignResult(self, r.value());
      }
      return WithBox<Status>(self, [&](auto& box) -> Status {
        return std::visit([&](const auto& s) -> Status { return ScalarInplace(box, op, s); }, y.literal);
      });
    });
  }

  // -- views
  Result<TensorHandle> t(const TensorHandle& h) override {
    return ViewOp(h, "xt::transpose(t)", [&](auto& box, auto v) { return xt::transpose(v); });
  }
  Result<TensorHandle> transpose(const TensorHandle& h, std::int64_t d0, std::int64_t d1) override {
    return Guard([&]() -> Result<TensorHandle> {
      return WithBox<Result<TensorHandle>>(h, [&](auto& box) -> Result<TensorHandle> {
        const std::string call = "xt::transpose(t, permutation swapping " + std::to_string(d0) + " and " + std::to_string(d1) + ")";
        const std::size_t rank = box.GetShape().size();
        Result<std::size_t> a0 = SizeAxis(rank, d0, call, rank), a1 = SizeAxis(rank, d1, call, rank);
        if (!a0.ok()) return a0.error();
        if (!a1.ok()) return a1.error();
        std::vector<std::size_t> perm(rank);
        for (std::size_t k = 0; k < rank; ++k) perm[k] = k;
        std::swap(perm[a0.value()], perm[a1.value()]);
        return Keep(box, xt::transpose(box.View(), perm), call);
      });
    });
  }
  Result<TensorHandle> permute(const TensorHandle& h, const std::vector<std::int64_t>& dims) override {
    return ViewOp(h, "xt::transpose(t, " + Dims(dims) + ")", [&](auto& box, auto v) {
      return xt::transpose(v, std::vector<std::ptrdiff_t>(dims.begin(), dims.end()));
    });
  }
  Result<TensorHandle> narrow(const TensorHandle& h, std::int64_t dim, std::int64_t start, std::int64_t length) override {
    return ViewOp(h, "xt::strided_view(t, {..., xt::range(start, start + length)})", [&](auto& box, auto v) {
      return xt::strided_view(v, AxisSlices(dim, xt::range(static_cast<std::ptrdiff_t>(start),
                                                           static_cast<std::ptrdiff_t>(start + length))));
    });
  }
  Result<TensorHandle> select(const TensorHandle& h, std::int64_t dim, std::int64_t index) override {
    return ViewOp(h, "xt::strided_view(t, {..., index})", [&](auto& box, auto v) {
      return xt::strided_view(v, AxisSlices(dim, static_cast<std::ptrdiff_t>(index)));
    });
  }
  Result<TensorHandle> slice(const TensorHandle& h, std::int64_t dim, std::int64_t start, std::int64_t end,
                             std::int64_t step) override {
    if (step == 0) {
      return Error{ErrorKind::kInternal, "not executed: xt::range(start, end, 0) divides by its step (xstepped_range's "
                                         "constructor computes n / step, xslice.hpp): integer division by zero"};
    }
    return ViewOp(h, "xt::strided_view(t, {..., xt::range(start, end, step)})", [&](auto& box, auto v) {
      return xt::strided_view(v, AxisSlices(dim, xt::range(static_cast<std::ptrdiff_t>(start),
                                                           static_cast<std::ptrdiff_t>(end),
                                                           static_cast<std::ptrdiff_t>(step))));
    });
  }
  Result<TensorHandle> expand(const TensorHandle& h, const std::vector<std::int64_t>& sizes) override {
    return ViewOp(h, "xt::broadcast(t, " + Dims(sizes) + ")", [&](auto& box, auto v) {
      return xt::broadcast(v, std::vector<std::size_t>(sizes.begin(), sizes.end()));
    });
  }
  Result<TensorHandle> unsqueeze(const TensorHandle& h, std::int64_t dim) override {
    return ViewOp(h, "xt::strided_view(t, {..., xt::newaxis()})", [&](auto& box, auto v) {
      return xt::strided_view(v, AxisSlices(dim, xt::newaxis()));
    });
  }
  Result<TensorHandle> squeeze(const TensorHandle& h, std::optional<std::int64_t> dim) override {
    if (!dim) return ViewOp(h, "xt::squeeze(t)", [&](auto& box, auto v) { return xt::squeeze(v); });
    return Guard([&]() -> Result<TensorHandle> {
      return WithBox<Result<TensorHandle>>(h, [&](auto& box) -> Result<TensorHandle> {
        const std::string call = "xt::squeeze(t, " + std::to_string(*dim) + ")";
        const std::size_t rank = box.GetShape().size();
        Result<std::size_t> axis = SizeAxis(rank, *dim, call, rank);
        if (!axis.ok()) return axis.error();
        return Keep(box, xt::squeeze(box.View(), axis.value()), call);
      });
    });
  }
  Result<TensorHandle> view(const TensorHandle& h, const std::vector<std::int64_t>& sizes) override {
    return Reshape(h, sizes);
  }
  Result<TensorHandle> reshape(const TensorHandle& h, const std::vector<std::int64_t>& sizes) override {
    return Reshape(h, sizes);
  }
  Result<TensorHandle> as_strided(const TensorHandle& h, const std::vector<std::int64_t>& sizes,
                                  const std::vector<std::int64_t>& strides, std::int64_t offset) override {
    return Guard([&]() -> Result<TensorHandle> {
      return WithBox<Result<TensorHandle>>(h, [&](auto& box) -> Result<TensorHandle> {
        const std::string call = "xt::strided_view(storage, " + Dims(sizes) + ", " + Dims(strides) + ", " +
                                 std::to_string(offset) + ")";
        return Keep(box,
                    xt::strided_view(*box.array, Shape(sizes.begin(), sizes.end()), Strides(strides.begin(), strides.end()),
                                     static_cast<std::size_t>(offset), xt::layout_type::dynamic),
                    call);
      });
    });
  }

  // -- storage: the xarray's storage (an xt::uvector), shared by its views.
  Result<StorageInfo> storage(const TensorHandle& h) override {
    return Guard([&]() -> Result<StorageInfo> {
      return WithBox<Result<StorageInfo>>(h, [&](auto& box) -> Result<StorageInfo> {
        return StorageInfo{reinterpret_cast<std::uintptr_t>(box.array->storage().data()),
                           static_cast<std::int64_t>(box.array->storage().size())};
      });
    });
  }
  Result<std::vector<Scalar>> storage_values(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::vector<Scalar>> {
      return WithBox<Result<std::vector<Scalar>>>(h, [&](auto& box) -> Result<std::vector<Scalar>> {
        using T = typename std::decay_t<decltype(box)>::value_type;
        return Read<T>(xt::adapt(box.array->storage()));
      });
    });
  }
  // storage()[index] = value (xt::uvector::operator[], unchecked).
  Status write_storage(const TensorHandle& h, std::int64_t index, const Scalar& value) override {
    return Guard([&]() -> Status {
      return WithBox<Status>(h, [&](auto& box) -> Status {
        using T = typename std::decay_t<decltype(box)>::value_type;
        Result<Array<T>> v = Cast<T>({value});
        if (!v.ok()) return v.error();
        box.array->storage()[static_cast<std::size_t>(index)] = v.value()(0);
        return {};
      });
    });
  }
  // t[{i, j, ...}] = value (xstrided_view::operator[] with an index sequence, unchecked).
  Status write_element(const TensorHandle& h, const std::vector<std::int64_t>& index, const Scalar& value) override {
    return Guard([&]() -> Status {
      return WithBox<Status>(h, [&](auto& box) -> Status {
        using T = typename std::decay_t<decltype(box)>::value_type;
        Result<Array<T>> v = Cast<T>({value});
        if (!v.ok()) return v.error();
        if (auto e = OutsideStorage(box)) return *e;
        auto view = box.View();
        view.element(index.begin(), index.end()) = v.value()(0);
        return {};
      });
    });
  }
  // The first element's address: data() + data_offset().
  Result<std::uintptr_t> data_ptr(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::uintptr_t> {
      return WithBox<Result<std::uintptr_t>>(h, [&](auto& box) -> Result<std::uintptr_t> {
        auto v = box.View();
        return reinterpret_cast<std::uintptr_t>(v.data() + v.data_offset());
      });
    });
  }

 private:
  static std::string Dims(const std::vector<std::int64_t>& v) {
    std::string s = "{";
    for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
    return s + "}";
  }

  template <class F>
  Result<TensorHandle> ViewOp(const TensorHandle& h, const std::string& call, F&& f) {
    return Guard([&]() -> Result<TensorHandle> {
      return WithBox<Result<TensorHandle>>(h, [&](auto& box) -> Result<TensorHandle> { return Keep(box, f(box, box.View()), call); });
    });
  }

  Result<TensorHandle> Reshape(const TensorHandle& h, const std::vector<std::int64_t>& sizes) {
    const std::string call = "xt::reshape_view(t, " + Dims(sizes) + ")";
    return Guard([&]() -> Result<TensorHandle> {
      return WithBox<Result<TensorHandle>>(h, [&](auto& box) -> Result<TensorHandle> {
        using T = typename std::decay_t<decltype(box)>::value_type;
        const std::vector<std::ptrdiff_t> shape(sizes.begin(), sizes.end());
        if (box.whole) {
          // reshape_view reads its input through a flat_expression_adaptor (xstrided_view_base.hpp):
          // element j is the input's element at the row-major flat index data_offset() +
          // sum(strides()[k] * j[k]), which for an xarray (row-major, contiguous) is its storage
          // index. So the view is the xarray's storage with those strides and offset. (reshape_view
          // takes the shape as given: no -1 inference, no element count check.)
          auto w = xt::reshape_view(*box.array, shape);
          auto out = std::make_shared<TBox<T>>();
          out->array = box.array;
          out->whole = false;
          out->shape = Shape(w.shape().begin(), w.shape().end());
          out->strides = Strides(w.strides().begin(), w.strides().end());
          out->offset = w.data_offset();
          return TensorHandle(out);
        }
        // Of a view: the flat adaptor unravels each index in the view's shape, which is no
        // strided map of memory in general.
        return Keep(box, xt::reshape_view(box.View(), shape), call);
      });
    });
  }

  static Status AssignResult(const TensorHandle& dest, const TensorHandle& result) {
    if (auto e = OutsideStorage(dest)) return *e;
    return WithBox<Status>(dest, [&](auto& d) -> Status {
      return WithBox<Status>(result, [&](auto& r) -> Status { return AssignTo(d, *r.array); });
    });
  }

  template <class T, class S>
  static Status ScalarInplace(TBox<T>& box, BinaryOp op, const S& s) {
    const std::string text = "xarray<" + TypeName<T>() + "> " + BinaryOpSymbol(op) + "= " + TypeName<S>();
    auto apply = [&](auto& target) -> Status {
      switch (op) {
        case BinaryOp::kAdd:
          if constexpr (ComputedAssignable<std::plus<>, T, S>::value) {
            target += s;
            return {};
          } else {
            return IllFormed(text, "scalar_computed_assign applies std::plus<>, which has no " + TypeName<T>() + " + " + TypeName<S>());
          }
        case BinaryOp::kSub:
          if constexpr (ComputedAssignable<std::minus<>, T, S>::value) {
            target -= s;
            return {};
          } else {
            return IllFormed(text, "scalar_computed_assign applies std::minus<>, which has no " + TypeName<T>() + " - " + TypeName<S>());
          }
        case BinaryOp::kMul:
          if constexpr (ComputedAssignable<std::multiplies<>, T, S>::value) {
            target *= s;
            return {};
          } else {
            return IllFormed(text, "scalar_computed_assign applies std::multiplies<>, which has no " + TypeName<T>() + " * " + TypeName<S>());
          }
        case BinaryOp::kDiv:
          if constexpr (ComputedAssignable<std::divides<>, T, S>::value) {
            using C = decltype(std::declval<T>() / std::declval<S>());
            if (auto ub = DivisionUB<C>(target, s)) return *ub;
            target /= s;
            return {};
          } else {
            return IllFormed(text, "scalar_computed_assign applies std::divides<>, which has no " + TypeName<T>() + " / " + TypeName<S>());
          }
        default: break;
      }
      return NotTranslated(op);
    };
    if (box.whole) return apply(*box.array);
    if (auto e = OutsideStorage(box)) return *e;
    auto v = box.View();
    return apply(v);
  }
};

}  // namespace
}  // namespace xtensor_adapter

namespace {
TCTS_REGISTER_CANDIDATE("xtensor", [](const CandidateConfig&) { return std::unique_ptr<Candidate>(new xtensor_adapter::XtensorCandidate()); });

}  // namespace
}  // namespace tcts
