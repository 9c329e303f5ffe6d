#include "conformance/checks/binary.h"

#include <cmath>
#include <variant>
#include <vector>

namespace tcts {

namespace {

bool MessageMatches(const BinaryRow& row, const std::string& message) {
  if (row.match == MessageMatch::kGlob) return GlobMatch(row.error_message, message);
  return message.find(row.error_message) != std::string::npos;
}

std::string ExpectedErrorText(const BinaryRow& row) {
  return std::string(ErrorKindName(row.error_kind)) + (row.match == MessageMatch::kGlob ? " matching \"" : ": ") +
         row.error_message + (row.match == MessageMatch::kGlob ? "\"" : "");
}

std::vector<std::int64_t> ShapeOf(const OperandSpec& o) {
  return o.kind == OperandKind::kTensor ? std::vector<std::int64_t>{2} : std::vector<std::int64_t>{};
}

std::vector<std::int64_t> ResultShape(const OperandSpec& a, const OperandSpec& b) {
  return (a.kind == OperandKind::kTensor || b.kind == OperandKind::kTensor) ? std::vector<std::int64_t>{2}
                                                                             : std::vector<std::int64_t>{};
}


}  // namespace

std::string ToString(const OperandSpec& o) {
  switch (o.kind) {
    case OperandKind::kTensor: return std::string("tensor:") + DTypeName(o.dtype);
    case OperandKind::kZeroDim: return std::string("zerodim:") + DTypeName(o.dtype);
    case OperandKind::kScalar: return std::string("scalar:") + ScalarKindName(o.scalar_kind);
  }
  return "?";
}

Scalar OperandValue(const OperandSpec& o, bool first) {
  const std::int64_t v = first ? 3 : 2;
  const bool is_bool = o.kind == OperandKind::kScalar ? o.scalar_kind == Scalar::Kind::kBool : o.dtype == DType::kBool;
  if (is_bool) return Scalar::Bool(true);
  if (o.kind != OperandKind::kScalar) return Scalar::Int(v);  // converted to the tensor's dtype on creation
  switch (o.scalar_kind) {
    case Scalar::Kind::kInt: return Scalar::Int(v);
    case Scalar::Kind::kFloat: return Scalar::Float(static_cast<double>(v));
    case Scalar::Kind::kComplex: return Scalar::Complex({static_cast<double>(v), 0.0});
    default: return Scalar::Bool(true);
  }
}

std::optional<Operand> MakeOperand(Case& c, const OperandSpec& o, const Scalar& value) {
  if (o.kind == OperandKind::kScalar) return Operand(value);
  const std::vector<std::int64_t> sizes = ShapeOf(o);
  const std::vector<Scalar> values(sizes.empty() ? 1 : static_cast<std::size_t>(sizes[0]), value);
  auto t = calls::make_tensor(c.candidate(), sizes, o.dtype, values);
  const std::string call = "make_tensor(" + Str(sizes) + ", " + DTypeName(o.dtype) + ")";
  if (!c.Usable(t, call, /*setup=*/true)) return std::nullopt;
  if (!t.ok()) {
    c.Mismatch(Check::kSetup, call, "a tensor", Describe(t.error()));
    return std::nullopt;
  }
  return Operand(t.value());
}

Scalar CastTo(DType dtype, std::complex<double> v) {
  switch (DTypeCategory(dtype)) {
    case Category::kBool: return Scalar::Bool(v != 0.0);
    case Category::kIntegral: {
      // Truncate toward zero, then wrap to the dtype's width (two's complement).
      const std::int64_t t = static_cast<std::int64_t>(std::trunc(v.real()));
      switch (dtype) {
        case DType::kUint8: return Scalar::Int(static_cast<std::uint8_t>(t));
        case DType::kInt8: return Scalar::Int(static_cast<std::int8_t>(t));
        case DType::kInt16: return Scalar::Int(static_cast<std::int16_t>(t));
        case DType::kInt32: return Scalar::Int(static_cast<std::int32_t>(t));
        default: return Scalar::Int(t);
      }
    }
    case Category::kFloating: return Scalar::Float(v.real());  // rows only use exactly representable values
    case Category::kComplex: return Scalar::Complex(v);
  }
  return Scalar{};
}

void CheckBinary(Case& c, const BinaryRow& row) {
  Candidate& cand = c.candidate();
  DefaultDTypeScope scope(c, row.default_dtype);
  const Scalar va = OperandValue(row.a, true), vb = OperandValue(row.b, false);
  const auto a = scope.ok() ? MakeOperand(c, row.a, va) : std::nullopt;
  const auto b = a ? MakeOperand(c, row.b, vb) : std::nullopt;
  if (!a || !b) return;

  const std::vector<std::int64_t> shape = ResultShape(row.a, row.b);
  const std::string op = BinaryOpName(row.op);
  std::string call;
  std::optional<Called<void>> outcome;  // the call's, under its form's feature
  TensorHandle dest;                  // where the result lands
  // out= / in-place: the destination's values before the call, read only where values can be
  // (the casting rule itself — accepted or refused, the result's dtype, the error — is judged
  // without them).
  std::optional<std::vector<Scalar>> dest_before;
  switch (row.form) {
    case BinaryForm::kFunctional: {
      call = op + "(" + ToString(row.a) + ", " + ToString(row.b) + ")";
      auto r = calls::binary(cand, row.op, *a, *b, Scalar::Int(1));
      if (r.ok()) dest = r.value();
      outcome = r.status();
      break;
    }
    case BinaryForm::kOut: {
      call = op + "(" + ToString(row.a) + ", " + ToString(row.b) + ", out=tensor:" + DTypeName(row.out_dtype) + ")";
      const Scalar seven = row.out_dtype == DType::kBool ? Scalar::Bool(false) : Scalar::Int(7);
      const std::optional<Operand> out =
          MakeOperand(c, OperandSpec{shape.empty() ? OperandKind::kZeroDim : OperandKind::kTensor, row.out_dtype,
                                     Scalar::Kind::kInt},
                      seven);
      if (!out) return;
      dest = std::get<TensorHandle>(*out);
      if (c.Can(Check::kValues, "values of out before the call")) {
        dest_before = ReadValues(c, dest, "out before the call");
        if (!dest_before) return;
      }
      outcome = calls::binary_out(cand, row.op, *a, *b, Scalar::Int(1), dest);
      break;
    }
    case BinaryForm::kInplace: {
      call = ToString(row.a) + "." + op + "_(" + ToString(row.b) + ")";
      dest = std::get<TensorHandle>(*a);
      if (c.Can(Check::kValues, "values of self before the call")) {
        dest_before = ReadValues(c, dest, "self before the call");
        if (!dest_before) return;
      }
      outcome = calls::binary_inplace(cand, row.op, dest, *b, Scalar::Int(1));
      break;
    }
  }
  const Called<void> status = std::move(*outcome);
  if (!c.Usable(status, call)) return;

  c.Checked(Check::kError);
  if (row.expect_error) {
    if (status.ok()) {
      c.Mismatch(Check::kError, call, ExpectedErrorText(row), "no error");
    } else if (status.error().kind != row.error_kind) {
      c.Mismatch(Check::kError, call, ExpectedErrorText(row), Describe(status.error()));
    } else {
      ExpectMessage(c, call, MessageMatches(row, status.error().message), ExpectedErrorText(row), status.error());
    }
    if (dest_before) {  // a rejected out= or in-place op leaves its destination as it was
      auto after = ReadValues(c, dest, "destination after the error");
      if (after && *after != *dest_before)
        MismatchValues(c, Check::kValues, call + ": destination after the error", *dest_before, *after);
    }
    return;
  }
  if (!status.ok()) {
    c.Mismatch(Check::kError, call, std::string("a result of dtype ") + DTypeName(row.out_dtype), Describe(status.error()));
    return;
  }
  auto m = calls::meta(cand, dest);
  if (c.Usable(m, "meta(result)")) {
    if (!m.ok()) {
      c.Mismatch(Check::kError, "meta(result)", "metadata", Describe(m.error()));
    } else {
      ExpectEq(c, Check::kDType, call + " result dtype", row.out_dtype, m.value().dtype);
      ExpectEq(c, Check::kSizes, call + " result sizes", shape, m.value().sizes);
    }
  }
  const Scalar expected = ToScalar(row.expected);
  const std::vector<Scalar> want(shape.empty() ? 1 : static_cast<std::size_t>(shape[0]), expected);
  if (auto got = ReadValues(c, dest, "result")) {
    if (*got != want) MismatchValues(c, Check::kValues, call + " values", want, *got);
  }
}

}  // namespace tcts
