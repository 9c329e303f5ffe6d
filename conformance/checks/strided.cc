#include "conformance/checks/strided.h"

#include <set>

namespace tcts {

const char* ViewKindName(ViewKind kind) {
  switch (kind) {
#define TCTS_VIEW_KIND_NAME(e, name, ...) \
  case ViewKind::e:                      \
    return name;
    TCTS_FORALL_VIEW_OPS(TCTS_VIEW_KIND_NAME)
#undef TCTS_VIEW_KIND_NAME
  }
  return "?";
}

std::optional<ViewKind> ViewKindFromName(const std::string& name) {
#define TCTS_VIEW_KIND_FROM_NAME(e, spelling, ...) \
  if (name == spelling) return ViewKind::e;
  TCTS_FORALL_VIEW_OPS(TCTS_VIEW_KIND_FROM_NAME)
#undef TCTS_VIEW_KIND_FROM_NAME
  return std::nullopt;
}

std::string ToString(const ViewStep& step) {
  std::string args;
  const std::vector<std::int64_t> a = step.args.vec();
  if (step.kind == ViewKind::kAsStrided) {
    const std::size_t k = a.size() / 2;
    args = Str(std::vector<std::int64_t>(a.begin(), a.begin() + k)) + ", " +
           Str(std::vector<std::int64_t>(a.begin() + k, a.begin() + 2 * k)) + ", " + std::to_string(a.back());
  } else if (step.kind == ViewKind::kContiguous || step.kind == ViewKind::kClone || step.kind == ViewKind::kEmptyLike) {
    args = MemoryFormatName(step.format);
  } else if (step.kind == ViewKind::kPermute || step.kind == ViewKind::kExpand || step.kind == ViewKind::kView ||
             step.kind == ViewKind::kReshape) {
    args = Str(a);
  } else {
    for (std::size_t k = 0; k < a.size(); ++k) args += (k ? ", " : "") + std::to_string(a[k]);
  }
  return std::string(ViewKindName(step.kind)) + "(" + args + ")";
}

Called<TensorHandle> Apply(Candidate& cand, const ViewStep& step, const TensorHandle& t) {
  const std::vector<std::int64_t> a = step.args.vec();
  const auto arg = [&](std::size_t k) { return k < a.size() ? a[k] : 0; };
  switch (step.kind) {
    case ViewKind::kT: return calls::t(cand, t);
    case ViewKind::kTranspose: return calls::transpose(cand, t, arg(0), arg(1));
    case ViewKind::kPermute: return calls::permute(cand, t, a);
    case ViewKind::kNarrow: return calls::narrow(cand, t, arg(0), arg(1), arg(2));
    case ViewKind::kSelect: return calls::select(cand, t, arg(0), arg(1));
    case ViewKind::kSlice: return calls::slice(cand, t, arg(0), arg(1), arg(2), arg(3));
    case ViewKind::kExpand: return calls::expand(cand, t, a);
    case ViewKind::kUnsqueeze: return calls::unsqueeze(cand, t, arg(0));
    case ViewKind::kSqueeze: return calls::squeeze(cand, t, a.empty() ? std::nullopt : std::optional<std::int64_t>(a[0]));
    case ViewKind::kView: return calls::view(cand, t, a);
    case ViewKind::kReshape: return calls::reshape(cand, t, a);
    case ViewKind::kAsStrided: {
      const std::size_t k = a.size() / 2;
      return calls::as_strided(cand, t, std::vector<std::int64_t>(a.begin(), a.begin() + k),
                              std::vector<std::int64_t>(a.begin() + k, a.begin() + 2 * k), a.back());
    }
    case ViewKind::kContiguous: return calls::contiguous(cand, t, step.format);
    case ViewKind::kClone: return calls::clone(cand, t, step.format);
    case ViewKind::kEmptyLike: return calls::empty_like(cand, t, step.format);
  }
  return Called<TensorHandle>(Feature::kViews, Error{ErrorKind::kInternal, "unknown view kind"});  // not reached
}

std::int64_t Address(const TensorMeta& m, const std::vector<std::int64_t>& index) {
  std::int64_t a = m.storage_offset;
  for (std::size_t k = 0; k < index.size(); ++k) a += m.strides[k] * index[k];
  return a;
}

std::vector<std::vector<std::int64_t>> Indices(const std::vector<std::int64_t>& sizes) {
  std::vector<std::vector<std::int64_t>> out;
  std::vector<std::int64_t> index(sizes.size(), 0);
  for (std::int64_t linear = 0, n = Numel(sizes); linear < n; ++linear) {
    out.push_back(index);
    for (std::size_t k = index.size(); k-- > 0;) {
      if (++index[k] < sizes[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

// The dtype of the fixtures here: these clauses (views, memory formats, storage, the address
// formula) do not depend on the dtype, so a candidate is judged on them in a dtype it has.
// int64 where the candidate declares it (what these rows always used: such a candidate makes
// exactly the calls it made before), else float32 (a dtype every tensor library has), else the
// first of int32, float64, int16 it declares. The calls' text names it ("make_tensor([2, 3],
// float32, 0..n-1)"), so a mismatch says which dtype the case used.
const std::vector<DType>& FixtureDTypes() {
  static const std::vector<DType> order = {DType::kInt64, DType::kFloat32, DType::kInt32, DType::kFloat64,
                                           DType::kInt16};
  return order;
}

DType FixtureDType(const Candidate& cand) {
  for (DType d : FixtureDTypes()) {
    if (cand.supports_dtype(d)) return d;
  }
  return DType::kInt64;
}

Scalar FixtureValue(DType dtype, std::int64_t v) {
  switch (DTypeCategory(dtype)) {
    case Category::kFloating: return Scalar::Float(static_cast<double>(v));
    case Category::kComplex: return Scalar::Complex({static_cast<double>(v), 0.0});
    case Category::kBool: return Scalar::Bool(v != 0);
    default: return Scalar::Int(v);
  }
}

std::vector<Scalar> IotaValues(std::int64_t n) {
  std::vector<Scalar> values;
  for (std::int64_t k = 0; k < n; ++k) values.push_back(Scalar::Int(k));
  return values;
}

std::optional<TensorHandle> MakeIota(Case& c, const std::vector<std::int64_t>& sizes) {
  const DType d = FixtureDType(c.candidate());
  return Get(c, calls::make_tensor(c.candidate(), sizes, d, IotaValues(Numel(sizes))),
             "make_tensor(" + Str(sizes) + ", " + DTypeName(d) + ", 0..n-1)", Check::kSetup);
}

void CheckAddressFormula(Case& c, const TensorHandle& t, const std::string& what) {
  // The formula is observed by reading elements and the storage: a values check.
  const std::string formula = "the address formula of " + what + " (004)";
  if (!c.Can(Check::kValues, formula) || !c.Can(Check::kStrides, formula) ||
      !c.SupportsOp("storage_values", Check::kValues, formula)) {
    return;
  }
  const auto m = Meta(c, t, what);
  const auto values = ReadValues(c, t, what);
  const auto storage = Get(c, calls::storage_values(c.candidate(), t), "storage_values(" + what + ")",
                           Check::kValues);
  if (!m || !values || !storage) return;
  const auto indices = Indices(m->sizes);
  if (!c.Expect(Check::kValues, indices.size() == values->size(), "values(" + what + ")",
                std::to_string(indices.size()) + " elements", std::to_string(values->size()))) {
    return;
  }
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::int64_t a = Address(*m, indices[k]);
    const std::string where = what + Str(indices[k]);
    if (a < 0 || a >= static_cast<std::int64_t>(storage->size())) {
      c.Mismatch(Check::kValues, where + " address", "inside a storage of " + std::to_string(storage->size()) + " elements",
                 std::to_string(a));
      return;
    }
    if ((*values)[k] != (*storage)[static_cast<std::size_t>(a)]) {
      MismatchValues(c, Check::kValues, where + " == storage[offset + sum(stride*index)] (004)",
                     (*storage)[static_cast<std::size_t>(a)], (*values)[k]);
      return;
    }
  }
}

// ---------------------------------------------------------------- rows
void CheckLayout(Case& c, const LayoutRow& row) {
  Candidate& cand = c.candidate();
  const std::vector<std::int64_t> sizes = {2, 3};
  const std::string call = std::string("empty([2, 3], layout=") + LayoutName(row.layout) + ")";
  auto t = calls::empty(cand, sizes, DType::kFloat32, row.layout, MemoryFormat::kContiguous);
  // sparse_coo is beta (002): a candidate may declare it unsupported (the answer feature
  // sparse_layout); strided it may not.
  if (!row.required) t = std::move(t).As(Feature::kSparseLayout);
  if (c.Usable(t, call)) {
    if (!t.ok()) {
      c.Mismatch(Check::kError, call, "a tensor", Describe(t.error()));
    } else if (auto m = Meta(c, t.value(), "empty")) {
      c.Expect(Check::kLayout, m->layout == row.layout, call + " layout", LayoutName(row.layout), LayoutName(m->layout));
      ExpectEq(c, Check::kSizes, call + " sizes", sizes, m->sizes);
    }
  }
  // Every tensor made without a layout is strided.
  if (row.layout == Layout::kStrided) {
    if (auto base = MakeIota(c, sizes)) {
      if (auto m = Meta(c, *base, "make_tensor")) {
        c.Expect(Check::kLayout, m->layout == Layout::kStrided, "make_tensor layout", "strided", LayoutName(m->layout));
      }
    }
  }
}

void CheckAddress(Case& c, const AddressRow& row) {
  Candidate& cand = c.candidate();
  std::vector<Scalar> values;
  for (std::int64_t v : row.values.vec()) values.push_back(Scalar::Int(v));
  const std::string call = "tensor(" + Str(row.values.vec()) + ").view(" + Str(row.sizes.vec()) + ")";
  const DType fixture = FixtureDType(c.candidate());
  const auto t = Get(c, calls::make_tensor(cand, row.sizes.vec(), fixture, values),
                     call + (fixture == DType::kInt64 ? "" : std::string(" as ") + DTypeName(fixture)), Check::kSetup);
  if (!t) return;
  if (auto m = Meta(c, *t, "t")) ExpectGeometry(c, call, *m, row.sizes.vec(), row.strides.vec(), row.offset);
  CheckAddressFormula(c, *t, "t");
  if (row.write && c.Can(Check::kValues, "values of t after a write to its storage")) {
    const std::string w = "t.storage()[" + std::to_string(row.write_index) + "] = " + std::to_string(row.write_value);
    auto s = calls::write_storage(cand, *t, row.write_index, Scalar::Int(row.write_value));
    if (c.Usable(s, w)) {
      if (!s.ok()) {
        c.Mismatch(Check::kError, w, "ok", Describe(s.error()));
      } else if (auto after = ReadValues(c, *t, "t after the write")) {
        std::vector<Scalar> want;
        for (std::int64_t v : row.after.vec()) want.push_back(FixtureValue(fixture, v));
        ExpectEq(c, Check::kValues, w + "; values(t)", want, *after);
      }
    }
  }
}

void CheckEmpty(Case& c, const EmptyRow& row) {
  const std::string call =
      "empty(" + Str(row.sizes.vec()) + ", memory_format=" + MemoryFormatName(row.format) + ")";
  auto t = calls::empty(c.candidate(), row.sizes.vec(), DType::kFloat32, Layout::kStrided, row.format);
  if (c.Usable(t, call) &&
      CheckOutcome(c, row.error, t, call, "strides " + Str(row.strides.vec()))) {
    if (auto m = Meta(c, t.value(), "empty")) ExpectGeometry(c, call, *m, row.sizes.vec(), row.strides.vec(), 0);
  }
}

void CheckContiguity(Case& c, const ContiguityRow& row) {
  Candidate& cand = c.candidate();
  const std::string made = "empty_strided(" + Str(row.sizes.vec()) + ", " + Str(row.strides.vec()) + ")";
  const auto t = Get(c, calls::empty_strided(cand, row.sizes.vec(), row.strides.vec(), DType::kFloat32), made,
                     Check::kSetup);
  if (t) {
    if (auto m = Meta(c, *t, "empty_strided")) ExpectGeometry(c, made, *m, row.sizes.vec(), row.strides.vec(), 0);
    for (const auto& [format, expected] : row.answers) {
      const std::string call = made + ".is_contiguous(" + MemoryFormatName(format) + ")";
      if (auto got = Get(c, calls::is_contiguous(cand, *t, format), call))
        ExpectEq(c, Check::kAnswer, call, expected, *got);
    }
  }
}

void CheckView(Case& c, const ViewRow& row) {
  std::optional<TensorHandle> t = MakeIota(c, row.base.vec());
  if (!t) return;
  std::string chain = "make_tensor(" + Str(row.base.vec()) + ")";
  for (int k = 0; k + 1 < row.nsteps; ++k) {  // the setup steps must work
    chain += "." + ToString(row.steps[k]);
    const auto next = Get(c, Apply(c.candidate(), row.steps[k], *t), chain, Check::kSetup);
    if (!next) return;
    t = next;
  }
  const ViewStep& step = row.steps[row.nsteps - 1];
  const std::string call = chain + "." + ToString(step);
  // Storage identity (view or copy) and the address formula need storage access; the
  // geometry does not, so a candidate without storage still has it checked.
  const bool storage = c.SupportsOp("storage", Check::kAliasing, "view-or-copy storage identity and the address formula");
  const auto input_storage = storage ? Storage(c, *t, "input") : std::nullopt;
  auto r = Apply(c.candidate(), step, *t);
  if ((storage && !input_storage) || !c.Usable(r, call)) return;
  const std::string want = "sizes " + Str(row.sizes.vec()) + " strides " + Str(row.strides.vec()) + " offset " +
                           std::to_string(row.offset);
  if (!CheckOutcome(c, row.error, r, call, want)) return;
  const TensorHandle& out = r.value();
  if (auto m = Meta(c, out, "result")) ExpectGeometry(c, call, *m, row.sizes.vec(), row.strides.vec(), row.offset);
  if (auto s = storage ? Storage(c, out, "result") : std::nullopt) {
    if (row.copies) c.Expect(Check::kAliasing, s->id != input_storage->id, call + " storage", "a new storage (a copy)", "the input's storage");
    else c.Expect(Check::kAliasing, s->id == input_storage->id, call + " storage", "the input's storage (a view)", "a new storage");
  }
  if (row.copies && row.check_values) {
    const auto before = ReadValues(c, *t, "input"), after = ReadValues(c, out, "result");
    if (before && after) ExpectEq(c, Check::kValues, call + " values", *before, *after);
  }
  if (storage && step.kind != ViewKind::kEmptyLike) CheckAddressFormula(c, out, "result");
}

}  // namespace tcts
