#include "conformance/checks/arithmetic.h"

#include <cmath>
#include <complex>
#include <optional>
#include <string>
#include <vector>

namespace tcts {


namespace {

std::string GeometryText(const ArithOperand& o) {
  return "as_strided(" + Str(o.sizes.vec()) + ", " + Str(o.strides.vec()) + ", " + std::to_string(o.offset) + ")";
}

bool Close(double expected, double observed, double bound) {
  if (std::isnan(expected) || std::isnan(observed)) return std::isnan(expected) && std::isnan(observed);
  if (std::isinf(expected) || std::isinf(observed)) return expected == observed;
  return std::abs(observed - expected) <= bound;
}

std::vector<Scalar> ToScalars(int n, const Value* values) {
  std::vector<Scalar> out;
  for (int k = 0; k < n; ++k) out.push_back(ToScalar(values[k]));
  return out;
}

// Builds the row's storages and operands on the case's candidate.
class Operands {
 public:
  Operands(Case& c, const ArithRow& row) : c_(c), row_(row) {}

  std::optional<TensorHandle> Storage(int k) {
    if (storages_[k]) return storages_[k];
    const StorageDef& s = row_.storages[k];
    auto t = Get(c_, calls::make_tensor(c_.candidate(), s.base.vec(), s.dtype, ToScalars(s.n, s.values)),
                 "make_tensor(" + Str(s.base.vec()) + ", " + DTypeName(s.dtype) + ")", Check::kSetup);
    if (t) storages_[k] = *t;
    return t;
  }

  std::optional<Operand> Make(const ArithOperand& o) {
    if (o.kind == ArithOperandKind::kScalar) return Operand(ToScalar(o.scalar));
    auto base = Storage(o.storage);
    if (!base) return std::nullopt;
    if (!o.view) return Operand(*base);
    auto t = Get(c_, calls::as_strided(c_.candidate(), *base, o.sizes.vec(), o.strides.vec(), o.offset),
                 GeometryText(o), Check::kSetup);
    if (!t) return std::nullopt;
    return Operand(*t);
  }

 private:
  Case& c_;
  const ArithRow& row_;
  std::optional<TensorHandle> storages_[3];
};

// A destination's state: what must not change when the op fails. Its values are read only
// where the candidate's values can be (nullopt otherwise: that sub-check is NOT_SUPPORTED, and
// the geometry is still compared).
struct Snapshot {
  TensorMeta meta;
  std::optional<std::vector<Scalar>> values;
};
std::optional<Snapshot> Take(Case& c, const TensorHandle& t, const std::string& what) {
  auto m = Meta(c, t, what);
  if (!m) return std::nullopt;
  if (!c.Can(Check::kValues, "values of " + what)) return Snapshot{*m, std::nullopt};
  auto v = ReadValues(c, t, what);
  if (!v) return std::nullopt;
  return Snapshot{*m, std::move(*v)};
}

const char* FormSuffix(BinaryForm form) {
  switch (form) {
    case BinaryForm::kFunctional: return "";
    case BinaryForm::kOut: return "_out";
    case BinaryForm::kInplace: return "_";
  }
  return "";
}

}  // namespace

std::string ToString(const ArithOperand& o, const StorageDef* storages) {
  if (o.kind == ArithOperandKind::kScalar) return "scalar " + ToScalar(o.scalar).ToString();
  const StorageDef& s = storages[o.storage];
  std::string text = std::string(DTypeName(s.dtype)) + " storage#" + std::to_string(o.storage);
  return o.view ? text + "." + GeometryText(o) : text + " " + Str(s.base.vec());
}

bool WithinTolerance(const Scalar& expected, const Scalar& observed, double atol, double rtol) {
  if (expected == observed) return true;
  if (expected.kind != observed.kind || (atol == 0 && rtol == 0)) return false;
  if (expected.kind == Scalar::Kind::kFloat) return Close(expected.f, observed.f, atol + rtol * std::abs(expected.f));
  if (expected.kind == Scalar::Kind::kComplex) {
    const double bound = atol + rtol * std::abs(expected.c);
    return Close(expected.c.real(), observed.c.real(), bound) && Close(expected.c.imag(), observed.c.imag(), bound);
  }
  return false;
}

void CheckArith(Case& c, const ArithRow& row) {
  Candidate& cand = c.candidate();
  Operands build(c, row);
  const auto a = build.Make(row.a);
  const auto b = a ? build.Make(row.b) : std::nullopt;
  if (!a || !b) return;
  const Scalar alpha = row.has_alpha ? ToScalar(row.alpha) : Scalar::Int(1);
  std::string call = std::string(BinaryOpName(row.op)) + FormSuffix(row.form) + "(" + ToString(row.a, row.storages) +
                     ", " + ToString(row.b, row.storages) + (row.has_alpha ? ", alpha=" + alpha.ToString() : "");

  TensorHandle dest;
  std::optional<Snapshot> before;
  std::optional<StorageInfo> dest_storage;
  std::optional<Called<void>> outcome;  // the call's, under its form's feature
  switch (row.form) {
    case BinaryForm::kFunctional: {
      call += ")";
      auto r = calls::binary(cand, row.op, *a, *b, alpha);
      if (r.ok()) dest = r.value();
      outcome = r.status();
      break;
    }
    case BinaryForm::kOut: {
      call += ", out=" + ToString(row.out, row.storages) + ")";
      const auto out = build.Make(row.out);
      if (!out) return;
      dest = std::get<TensorHandle>(*out);
      before = Take(c, dest, "out before the call");
      if (!before) return;
      if (row.keeps_storage && c.SupportsOp("storage", Check::kAliasing, "out= keeps its storage")) dest_storage = Storage(c, dest, "out before the call");
      outcome = calls::binary_out(cand, row.op, *a, *b, alpha, dest);
      break;
    }
    case BinaryForm::kInplace: {
      call += ")";
      dest = std::get<TensorHandle>(*a);
      before = Take(c, dest, "self before the call");
      if (!before) return;
      if (row.keeps_storage && c.SupportsOp("storage", Check::kAliasing, "in-place keeps its storage")) dest_storage = Storage(c, dest, "self before the call");
      outcome = calls::binary_inplace(cand, row.op, dest, *b, alpha);
      break;
    }
  }
  const Called<void> status = std::move(*outcome);
  if (!c.Usable(status, call)) return;
  if (row.error.expected || !status.ok()) {
    const bool went_on = CheckOutcome(c, row.error, status.ok() ? Result<bool>(true) : Result<bool>(status.error()), call,
                                      std::string("a result of dtype ") + DTypeName(row.dtype));
    if (!went_on && row.error.expected && before) {  // the destination is as it was
      if (auto after = Take(c, dest, "destination after the error")) {
        ExpectGeometry(c, call + ": destination after the error", after->meta, before->meta.sizes,
                       before->meta.strides, before->meta.storage_offset);
        if (after->values && before->values && *after->values != *before->values)
          MismatchValues(c, Check::kValues, call + ": destination values after the error", *before->values, *after->values);
      }
    }
    return;
  }

  auto m = Meta(c, dest, "result");
  if (!m) return;
  ExpectEq(c, Check::kDType, call + " dtype", row.dtype, m->dtype);
  ExpectEq(c, Check::kSizes, call + " sizes", row.sizes.vec(), m->sizes);
  if (TensorsOnCpu()) {
    ExpectEq(c, Check::kStrides, call + " strides", row.strides.vec(), m->strides);
  } else {  // output_layout's step 1 (inputs cast to copies first) is the cpu's alone
    ExpectEq(c, Check::kStrides, call + " strides (on " + Config().resolved_device + ")", row.device_strides.vec(),
             m->strides);
  }
  ExpectEq(c, Check::kDevice, call + " device", Config().resolved_device, m->device);
  if (before && row.keeps_storage) {
    ExpectEq(c, Check::kOffset, call + " storage_offset (kept)", before->meta.storage_offset, m->storage_offset);
    if (dest_storage) {
      if (auto now = Storage(c, dest, "destination after the call")) {
        c.Expect(Check::kAliasing, now->id == dest_storage->id, call + " storage", "the destination's own storage",
                 "a new storage");
      }
    }
  }
  if (auto got = ReadValues(c, dest, "result")) {
    const std::vector<Scalar> want = ToScalars(row.n, row.values);
    bool ok = got->size() == want.size();
    for (std::size_t k = 0; ok && k < want.size(); ++k) ok = WithinTolerance(want[k], (*got)[k], row.atol, row.rtol);
    if (!ok) {
      const std::string how = row.atol || row.rtol ? " (atol " + Str(row.atol) + ", rtol " + Str(row.rtol) + ")" : " (exact)";
      MismatchValues(c, Check::kValues, call + " values" + how, want, *got);
    }
  }
}

}  // namespace tcts
