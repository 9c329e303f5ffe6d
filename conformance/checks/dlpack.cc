#include "conformance/checks/dlpack.h"

#include <algorithm>
#include <memory>
#include <string>

#include "conformance/checks/exchange.h"

namespace tcts {

void CheckDLPackExport(Case& c, const DLPackExportRow& row) {
  Candidate& cand = c.candidate();
  const std::string dev = row.device;
  std::optional<TensorHandle> t;
  if (dev == "cpu") {
    t = MakeView(c, cand, row.dtype, row.base, row.nsteps, row.steps, "t");
  } else {
    auto made = calls::empty_on(cand, row.base.vec(), row.dtype, dev);
    if (dev.rfind("cuda", 0) == 0) made = std::move(made).As(Feature::kCudaTensors);  // an answer feature
    t = Get(c, std::move(made), "empty(" + Str(row.base.vec()) + ", device='" + dev + "')");
  }
  if (!t) return;
  const std::string call = "to_dlpack(t)";
  auto r = calls::to_dlpack(cand, *t);
  if (c.Usable(r, call) && CheckOutcome(c, row.error, r, call, "a DLManagedTensor")) {
    DLManagedTensor* m = r.value();
    const DLTensor& dl = m->dl_tensor;
    ExpectEq(c, Check::kDType, "dtype.code", row.code, static_cast<int>(dl.dtype.code));
    ExpectEq(c, Check::kDType, "dtype.bits", row.bits, static_cast<int>(dl.dtype.bits));
    ExpectEq(c, Check::kDType, "dtype.lanes", 1, static_cast<int>(dl.dtype.lanes));
    ExpectEq(c, Check::kDevice, "device.device_type", row.device_type, static_cast<int>(dl.device.device_type));
    ExpectEq(c, Check::kDevice, "device.device_id", row.device_id, static_cast<int>(dl.device.device_id));
    ExpectEq(c, Check::kSizes, "ndim", row.shape.n, static_cast<int>(dl.ndim));
    if (dl.ndim == row.shape.n) {
      ExpectEq(c, Check::kSizes, "shape", row.shape.vec(), std::vector<std::int64_t>(dl.shape, dl.shape + dl.ndim));
      if (!dl.strides && dl.ndim > 0) {
        if (c.Can(Check::kStrides, "strides")) c.Mismatch(Check::kStrides, "strides", Str(row.strides.vec()), "NULL");
      } else ExpectEq(c, Check::kStrides, "strides (in elements)", row.strides.vec(), std::vector<std::int64_t>(dl.strides, dl.strides + dl.ndim));
    }
    ExpectEq(c, Check::kOffset, "byte_offset", std::int64_t{0}, static_cast<std::int64_t>(dl.byte_offset));
    std::optional<std::vector<Scalar>> values;  // t's values before the deleter runs
    if (dev == "cpu" && !c.failed()) {
      const auto ptr = c.SupportsOp("data_ptr", Check::kAliasing, "data == t.data_ptr()")
                           ? Get(c, calls::data_ptr(cand, *t), "data_ptr(t)")
                           : std::nullopt;
      values = ReadValues(c, *t, "t");
      if (ptr && Numel(row.shape.vec()) > 0 &&
          !c.Expect(Check::kAliasing, reinterpret_cast<std::uintptr_t>(dl.data) == *ptr, "data == t.data_ptr()",
                    "t's first element", "another address")) {
      } else if (values && (dl.strides || dl.ndim == 0)) {  // NULL strides: judged above (a candidate without strides)
        // What the DLTensor describes, read straight from memory, is t.
        std::vector<std::int64_t> byte_strides;
        for (int k = 0; k < dl.ndim; ++k) byte_strides.push_back(dl.strides[k] * DTypeItemsize(row.dtype));
        const auto seen = ReadStrided(row.dtype, static_cast<const std::byte*>(dl.data) + dl.byte_offset,
                                      row.shape.vec(), byte_strides);
        if (seen != *values) MismatchValues(c, Check::kValues, "the memory the DLTensor describes", *values, seen);
      }
    }
    m->deleter(m);  // the consumer's one call; t stays valid
    if (dev == "cpu" && !c.failed()) {
      // Memory a wrong deleter freed is soon reused: allocate over it, then read t again.
      const auto scratch = calls::make_tensor(cand, row.base.vec(), row.dtype, std::vector<Scalar>(Numel(row.base.vec()), Scalar::Int(1)));
      const auto after = ReadValues(c, *t, "t after the DLManagedTensor's deleter ran");
      if (values && after && *after != *values) {
        MismatchValues(c, Check::kOwnership, "t after the consumer's deleter ran (the exporter still owns the memory)", *values,
                       *after);
      }
    }
  }
}

void CheckDLPackImport(Case& c, const DLPackImportRow& row) {
  Candidate& cand = c.candidate();
  const std::vector<std::int64_t> sizes = row.sizes.vec();
  const std::vector<Scalar> values = Alternating(Numel(sizes));
  std::unique_ptr<Produced> p = Produce(row.dtype, row.code, row.bits, row.lanes, row.device_type, sizes,
                                        row.strides.vec(), row.null_strides, row.byte_offset, values);
  const std::string call = "from_dlpack(DLTensor code " + std::to_string(row.code) + ", bits " +
                           std::to_string(row.bits) + ", lanes " + std::to_string(row.lanes) + ", device_type " +
                           std::to_string(row.device_type) + ", shape " + Str(sizes) + ", strides " +
                           (row.null_strides ? std::string("NULL") : Str(row.strides.vec())) + ", byte_offset " +
                           std::to_string(row.byte_offset) + ")";
  {
    auto r = calls::from_dlpack(cand, &p->managed);
    if (c.Usable(r, call) && CheckOutcome(c, row.error, r, call, DTypeName(row.dtype))) {
      TensorHandle t = r.value();
      const std::byte* first = p->bytes.data() + row.byte_offset;
      if (auto m = Meta(c, t, "t")) {
        ExpectEq(c, Check::kDType, call + ".dtype", row.dtype, m->dtype);
        ExpectEq(c, Check::kSizes, call + ".shape", sizes, m->sizes);
        ExpectEq(c, Check::kStrides, call + ".stride()", p->strides, m->strides);
        ExpectEq(c, Check::kDevice, call + ".device", std::string("cpu"), m->device);
      }
      const auto ptr = c.SupportsOp("data_ptr", Check::kAliasing, "t.data_ptr() == data + byte_offset, write-through")
                           ? Get(c, calls::data_ptr(cand, t), "data_ptr(t)")
                           : std::nullopt;
      if (ptr) {
        c.Expect(Check::kAliasing, *ptr == reinterpret_cast<std::uintptr_t>(first), "t.data_ptr() == data + byte_offset",
                 "the DLTensor's first element", "another address");
      }
      if (auto v = ReadValues(c, t, "t")) {
        if (*v != CastAll(row.dtype, values)) MismatchValues(c, Check::kValues, call + " values", CastAll(row.dtype, values), *v);
      }
      // A write through the tensor lands in the producer's memory.
      if (!sizes.empty() && Numel(sizes) > 0 && !c.failed() &&
          c.SupportsOp("write_element", Check::kAliasing, "t[0...] = 1, read from the DLTensor's memory") &&
          c.Can(Check::kValues, "t[0...] = 1, read from the DLTensor's memory")) {
        const std::vector<std::int64_t> last(sizes.size(), 0);
        auto st = calls::write_element(cand, t, last, Scalar::Int(1));
        if (c.Usable(st, "t[0...] = 1") && st.ok()) {
          const Scalar seen = ReadHost(row.dtype, first);
          c.Expect(Check::kAliasing, seen == CastTo(row.dtype, 1.0), "t[0...] = 1, read from the DLTensor's memory", "1",
                   seen.ToString());
        }
      }
      // The deleter waits for the last tensor using the memory: a view keeps it alive.
      std::optional<TensorHandle> view;
      if (!sizes.empty() && c.SupportsOp("unsqueeze", Check::kOwnership, "the deleter while a view of t lives"))
        view = Get(c, calls::unsqueeze(cand, t, 0), "t.unsqueeze(0)");
      c.Expect(Check::kOwnership, p->deleted == 0, "the deleter while t lives", "not called",
               "called " + std::to_string(p->deleted) + " times");
      t.reset();
      r = Called<TensorHandle>(r.feature(), Error{ErrorKind::kInternal, "released"});
      if (view) {
        c.Expect(Check::kOwnership, p->deleted == 0, "the deleter while a view of t lives", "not called",
                 "called " + std::to_string(p->deleted) + " times");
      }
      view.reset();
      c.Expect(Check::kOwnership, p->deleted == 1, "the deleter once every tensor is gone", "called once",
               "called " + std::to_string(p->deleted) + " times");
    } else if (row.error.expected) {
      c.Expect(Check::kOwnership, p->deleted == 0, "the deleter after a failed import",
               "not called (the caller still owns the tensor)", "called " + std::to_string(p->deleted) + " times");
    }
  }
}

void CheckDLPackRoundTrip(Case& c, const DLPackRoundTripRow& row) {
  Candidate& cand = c.candidate();
  std::unique_ptr<Candidate> peer = MakeCandidate(row.peer);
  if (!peer) {
    c.Mismatch(Check::kSetup, "the peer candidate", std::string("'") + row.peer + "' linked into this binary", "not registered");
    return;
  }
  Candidate& from = row.from_peer ? *peer : cand;
  Candidate& to = row.from_peer ? cand : *peer;
  const std::string a = row.from_peer ? row.peer : "candidate", b = row.from_peer ? "candidate" : row.peer;
  // The candidate's answers go through its declarations; the peer's must simply work.
  const auto get = [&](Candidate& who, auto r, const std::string& what) {
    if (&who == &cand) return Get(c, std::move(r), what);
    if (!r.ok()) c.Mismatch(Check::kSetup, what + " (on the peer)", "an answer", Describe(r.error()));
    return r.ok() ? std::optional(std::move(r.value())) : std::nullopt;
  };
  const auto src = MakeView(c, from, row.dtype, row.base, row.nsteps, row.steps, a);
  if (!src) return;
  const auto m = get(from, calls::to_dlpack(from, *src), a + ".to_dlpack(t)");
  if (!m) return;
  const std::string call = b + ".from_dlpack(" + a + ".to_dlpack(t))";
  const auto imported = get(to, calls::from_dlpack(to, *m), call);
  if (!imported) {
    (*m)->deleter(*m);  // not consumed: still ours to release
    return;
  }
  const TensorHandle u = *imported;
  const auto mu = get(to, calls::meta(to, u), b + ".meta(u)");
  if (mu) {
    ExpectEq(c, Check::kDType, call + ".dtype", row.dtype, mu->dtype);
    ExpectEq(c, Check::kSizes, call + ".shape", row.sizes.vec(), mu->sizes);
    ExpectEq(c, Check::kStrides, call + ".stride()", row.strides.vec(), mu->strides);
  }
  // The candidate's storage and write_element are sub-checks of their own: a library without
  // them still has its import judged on the rest.
  const bool pointers = c.SupportsOp("data_ptr", Check::kAliasing, "t.data_ptr() == u.data_ptr()");
  const auto pa = pointers ? get(from, calls::data_ptr(from, *src), a + ".data_ptr(t)") : std::nullopt;
  const auto pb = pointers ? get(to, calls::data_ptr(to, u), b + ".data_ptr(u)") : std::nullopt;
  if (pa && pb) c.Expect(Check::kAliasing, *pa == *pb, "t.data_ptr() == u.data_ptr()", "one memory", "two addresses");
  const bool readable = c.Can(Check::kValues, "values(u) == values(t), and a write through u seen through t");
  const auto va = readable ? get(from, calls::values(from, *src), a + ".values(t)") : std::nullopt;
  const auto vb = readable ? get(to, calls::values(to, u), b + ".values(u)") : std::nullopt;
  if (va && vb) ExpectEq(c, Check::kValues, "values(u) == values(t)", *va, *vb);
  // A write through the importer's tensor is seen by the exporter's.
  if (va && !va->empty() && !c.failed() &&
      (&to != &cand || c.SupportsOp("write_element", Check::kAliasing, "a write through u seen through t"))) {
    const std::vector<std::int64_t> zero(row.sizes.n, 0);
    const Scalar flip = Flipped((*va)[0]);
    const std::string what = b + ".u[0...] = ...";
    auto st = calls::write_element(to, u, zero, flip);
    if ((&to != &cand || c.Usable(st, what)) && !st.ok()) c.Mismatch(Check::kError, what, "ok", Describe(st.error()));
    if (st.ok() && (&to != &cand || cand.supports_op("write_element"))) {
      const auto again = get(from, calls::values(from, *src), a + ".values(t) after the write");
      if (again) {
        c.Checked(Check::kAliasing);
        if ((*again)[0] != CastTo(row.dtype, flip.AsComplex()))
          MismatchValues(c, Check::kAliasing, "writing u[0...], then reading t[0...]", CastTo(row.dtype, flip.AsComplex()),
                         (*again)[0]);
      }
    }
  }
}

}  // namespace tcts
