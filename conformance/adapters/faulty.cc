// Test-only candidate "faulty": the reference, with faults injected on chosen cases, to
// prove that the runner (conformance/runner/run.py) isolates a candidate that crashes or hangs.
//
// Its candidate options (the suite binary's --candidate_option=KEY=VALUE; the runner's
// --candidate-option passes them on):
// faults lists MODE=GLOB pairs separated by ';', e.g.
//   --candidate_option='faults=abort=promote_types.int8.uint8;hang=can_cast.*.bool'
// Whenever a case whose id matches GLOB calls the candidate, the call does MODE:
//   abort  std::abort() (SIGABRT)          segv  raise(SIGSEGV)
//   exit   _exit(0): a silent early exit   hang  sleeps forever
//   wrong  promote_types answers its first operand (a wrong answer, not a crash)
// and these answer wrongly too, to show that checks and properties can fail:
//   unsupported    every call answers NotSupported, though every feature is declared supported
//   undeclared     the candidate declares no feature, and every call answers NotSupported
//                  (an honest candidate without them: NOT_SUPPORTED, not a failure)
//   broken         every call answers a RuntimeError (nothing can be built)
//   valuebased     result_type inspects values, as NumPy 1.x did beyond a dtype's range: a Python
//                  int or float of a magnitude the answer's dtype cannot hold widens it to int64
//                  or float64 (uint8 tensor + 300 -> int64, float16 tensor + 1e5 -> float64)
//   ignore_format  channels_last and channels_last_3d laid out as contiguous_format, consistently:
//                  empty and contiguous allocate contiguous strides for them, and is_contiguous
//                  of a rank-4 (rank-5) tensor checks for the strides empty allocates
// and one wrong-answer mode per check family (//conformance/runner:mutation_test proves each
// makes its family FAIL). Each perturbs the reference's real answer, never a hand-made value:
//   dtype_info     dtype_info's is_signed negated          dtype_name   dtype_from_name: a neighbour dtype
//   finfo          finfo's eps one ulp up                  promote_types  the other operand's dtype
//   result_type    float64 for float32, float32 otherwise  can_cast     the answer negated
//   out_cast       binary_out / binary_inplace accept (answer ok) where the reference errs
//   alpha          alpha ignored (taken as 1)              value_ulp    a binary result's first element 1 ulp off
//   out_strides    a binary result copied to another layout (contiguous, or channels_last when it is)
//   empty_strides  empty's first stride of a dimension of size > 1 one larger
//   is_contiguous  the answer negated
//   view_geometry  a view's first stride > 1 of a dimension of size > 1 one smaller (in bounds)
//   view_copies    a view answers an exact copy (same geometry and values, a new storage)
//   storage_offset meta reports storage_offset + 1
//   storage_order  storage_values reversed                 write_through  write_element answers ok, writes nothing
//   broadcast      binary of a non-broadcastable pair answers a copy of a (in place: ok)
//   overlap        binary_out / binary_inplace accept an overlapping output (ok, nothing written)
//   device_parse   device()'s index one larger (or 0 where none)
//   device_str     str(device) with ':0' added (or its index dropped), repr with double quotes
//   device_eq      compare_devices' equal and same_hash negated
//   default_device get_default_device() with ':0' added (or its index dropped)
//   asarray_dtype  asarray's result cast to float64 (float32 when it is float64)
//   asarray_copies asarray's result copied (copy=True) where it may share
//   buffer         a buffer source read from its second element (data + itemsize)
//   dlpack_strides to_dlpack's last stride one larger
//   dlpack_deleter to_dlpack's deleter poisons the exported memory (0xA5) before releasing it: a
//                  deleter that frees memory still in use, detected without a crash (an importer
//                  calling a producer's deleter early or twice is not modelled: the producer may
//                  really free, and a double free would crash the test, not fail the case)
//   byte_offset    from_dlpack ignores the DLTensor's byte_offset
//   autograd_history autograd() drops a tensor's history: grad_fn null, is_leaf true
//   no_strides     meta answers strides [] and storage_offset 0, as a library without strides
//                  does (PROTOCOL.md "Strides"), though strides are declared
//   asarray_requires_grad asarray ignores requires_grad (taken as not given)
// Case ids are the runner's (tcts::CaseId: the row id, or the property's id).
//
// supports=none makes it a candidate that declares every feature unsupported and
// answers NotSupported to every call (honestly: the declaration matches), for the runner's
// verdict test: such a candidate must not CONFORM.
// supports=novalues makes it a candidate whose values cannot be read, as PyTorch's
// meta device: it declares the features values and storage_values unsupported and answers
// NotSupported to their operations (values; storage_values, write_storage, write_element); everything else is the
// reference's. Its cases are judged on everything but values (//conformance/runner:run_test).
// supports=nostrides makes it a candidate without strides (a lazy, traced or sparse array
// library): it declares the feature strides unsupported and its meta answers strides [] and
// storage_offset 0 (no_strides above, on every case). Its cases are judged on everything but
// strides and offsets (//conformance/runner:run_test).
// missing_dtypes=bfloat16,int8 declares those dtypes missing (supports_dtype): the
// cases whose rows need them are NOT_SUPPORTED, naming the dtype, and the verdict says so.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "conformance/adapters/faulty_modes.h"
#include "conformance/candidate/candidate.h"
#include "conformance/harness/harness.h"
#include "conformance/harness/stream.h"

namespace tcts {
namespace {

using faulty::Fault;
using faulty::NoChannelsLast;
using faulty::OtherFloat;
using faulty::ToggleIndex;
using faulty::ValueBased;

class FaultyCandidate final : public Candidate {
 public:
  // Its candidate options: faults (MODE=GLOB;...), supports (none: every feature declared
  // unsupported; novalues: values and storage_values; nostrides: strides), missing_dtypes (a,b: dtypes not declared).
  explicit FaultyCandidate(const CandidateConfig& config)
      : base_(MakeCandidate("reference")), faults_(faulty::ParseFaults(config.Take("faults"))) {
    const std::string supports = config.Take("supports");
    if (!supports.empty() && supports != "none" && supports != "novalues" && supports != "nostrides") {
      std::fprintf(stderr, "faulty: --candidate_option=supports=%s: expected none, novalues or nostrides\n",
                   supports.c_str());
      std::exit(2);
    }
    none_ = supports == "none";
    novalues_ = supports == "novalues";
    nostrides_ = supports == "nostrides";
    missing_dtypes_ = "," + config.Take("missing_dtypes") + ",";
  }

  std::string name() const override { return "faulty"; }
  std::string version() const override { return "reference with injected faults"; }
  std::string build() const override { return base_->build(); }
  bool supports(Feature f) const override {
    return !none_ && !(novalues_ && (f == Feature::kValues || f == Feature::kStorageValues)) &&
           !(nostrides_ && f == Feature::kStrides) && Mode() != "undeclared" && base_->supports(f);
  }
  bool supports_dtype(DType d) const override {
    return missing_dtypes_.find("," + std::string(DTypeName(d)) + ",") == std::string::npos && base_->supports_dtype(d);
  }

  Result<DType> promote_types(DType a, DType b) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "promote_types")) return *e;
    if (mode == "wrong") return a;
    Result<DType> r = base_->promote_types(a, b);
    if (mode == "promote_types" && r.ok()) return r.value() == a ? b : a;
    return r;
  }

  Result<DType> result_type(const Operand& a, const Operand& b) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "result_type")) return *e;
    Result<DType> r = base_->result_type(a, b);
    if (mode == "valuebased" && r.ok()) return ValueBased(r.value(), a, b);
    if (mode == "result_type" && r.ok()) return OtherFloat(r.value());
    return r;
  }

  Result<TensorHandle> empty(const std::vector<std::int64_t>& s, DType d, Layout l, MemoryFormat f) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "empty")) return *e;
    Result<TensorHandle> r = base_->empty(s, d, l, mode == "ignore_format" ? NoChannelsLast(f) : f);
    if (mode == "empty_strides" && r.ok() && l == Layout::kStrided) {
      const Result<TensorMeta> m = base_->meta(r.value());
      if (!m.ok()) return m.error();
      std::vector<std::int64_t> strides = m.value().strides;
      for (std::size_t k = 0; k < s.size(); ++k) {
        if (s[k] > 1) {
          ++strides[k];
          return base_->empty_strided(s, strides, d);
        }
      }
    }
    return r;
  }
  Result<bool> is_contiguous(const TensorHandle& t, MemoryFormat f) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "is_contiguous")) return *e;
    if (mode == "ignore_format" && NoChannelsLast(f) != f) {  // the strides empty(sizes, f) gives, size-1 dims aside
      const Result<TensorMeta> m = base_->meta(t);
      if (!m.ok()) return m.error();
      const std::vector<std::int64_t>& sizes = m.value().sizes;
      if (sizes.size() != (f == MemoryFormat::kChannelsLast ? 4u : 5u)) return false;
      const Result<TensorHandle> fresh = base_->empty(sizes, DType::kInt64, Layout::kStrided, MemoryFormat::kContiguous);
      if (!fresh.ok()) return fresh.error();
      const std::vector<std::int64_t> want = base_->meta(fresh.value()).value().strides;
      for (std::size_t d = 0; d < sizes.size(); ++d)
        if (sizes[d] != 1 && m.value().strides[d] != want[d]) return false;
      return true;
    }
    Result<bool> r = base_->is_contiguous(t, f);
    if (mode == "is_contiguous" && r.ok()) return !r.value();
    return r;
  }
  Result<TensorHandle> contiguous(const TensorHandle& t, MemoryFormat f) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "contiguous")) return *e;
    return base_->contiguous(t, mode == "ignore_format" ? NoChannelsLast(f) : f);
  }

  Result<DType> dtype_from_name(std::string_view n) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "dtype_from_name")) return *e;
    Result<DType> r = base_->dtype_from_name(n);
    if (mode == "dtype_name" && r.ok()) {  // the next dtype in spec order
      const std::vector<DType>& all = AllDTypes();
      const auto it = std::find(all.begin(), all.end(), r.value());
      if (it != all.end()) return std::next(it) == all.end() ? all.front() : *std::next(it);
    }
    return r;
  }
  Result<DTypeInfo> dtype_info(DType d) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "dtype_info")) return *e;
    Result<DTypeInfo> r = base_->dtype_info(d);
    if (mode == "dtype_info" && r.ok()) r.value().is_signed = !r.value().is_signed;
    return r;
  }
  Result<FloatInfo> finfo(DType d) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "finfo")) return *e;
    Result<FloatInfo> r = base_->finfo(d);
    if (mode == "finfo" && r.ok()) r.value().eps = std::nextafter(r.value().eps, HUGE_VAL);
    return r;
  }
  Result<bool> can_cast(DType from, DType to) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "can_cast")) return *e;
    Result<bool> r = base_->can_cast(from, to);
    if (mode == "can_cast" && r.ok()) return !r.value();
    return r;
  }
  Result<TensorMeta> meta(const TensorHandle& t) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "meta")) return *e;
    Result<TensorMeta> r = base_->meta(t);
    if (mode == "storage_offset" && r.ok()) ++r.value().storage_offset;
    if ((nostrides_ || mode == "no_strides") && r.ok()) {
      r.value().strides.clear();
      r.value().storage_offset = 0;
    }
    return r;
  }

  Result<TensorHandle> binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "binary")) return *e;
    Result<TensorHandle> r = base_->binary(op, a, b, mode == "alpha" ? Scalar::Int(1) : alpha);
    if (mode == "broadcast" && !r.ok() && std::holds_alternative<TensorHandle>(a)) {
      return base_->clone(std::get<TensorHandle>(a), MemoryFormat::kPreserve);
    }
    if (!r.ok()) return r;
    if (mode == "value_ulp") {
      if (auto e = faulty::OneUlpOff(*base_, r.value())) return *e;
    }
    if (mode == "out_strides") {
      const Result<bool> contiguous = base_->is_contiguous(r.value(), MemoryFormat::kContiguous);
      const Result<TensorMeta> m = base_->meta(r.value());
      if (!contiguous.ok() || !m.ok()) return r;
      if (!contiguous.value()) return base_->contiguous(r.value(), MemoryFormat::kContiguous);
      if (m.value().sizes.size() == 4) return base_->clone(r.value(), MemoryFormat::kChannelsLast);
      if (m.value().sizes.size() >= 2) {  // the transpose of a contiguous transpose: column-major
        Result<TensorHandle> tr = base_->transpose(r.value(), 0, 1);
        if (!tr.ok()) return r;
        Result<TensorHandle> c = base_->contiguous(tr.value(), MemoryFormat::kContiguous);
        if (!c.ok()) return r;
        return base_->transpose(c.value(), 0, 1);
      }
    }
    return r;
  }
  Status binary_out(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha,
                    const TensorHandle& out) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "binary_out")) return *e;
    Status s = base_->binary_out(op, a, b, mode == "alpha" ? Scalar::Int(1) : alpha, out);
    if ((mode == "out_cast" || mode == "overlap" || mode == "broadcast") && !s.ok()) return Status();
    if (mode == "value_ulp" && s.ok()) {
      if (auto e = faulty::OneUlpOff(*base_, out)) return *e;
    }
    return s;
  }
  Status binary_inplace(BinaryOp op, const TensorHandle& self, const Operand& o, const Scalar& alpha) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "binary_inplace")) return *e;
    Status s = base_->binary_inplace(op, self, o, mode == "alpha" ? Scalar::Int(1) : alpha);
    if ((mode == "out_cast" || mode == "overlap" || mode == "broadcast") && !s.ok()) return Status();
    if (mode == "value_ulp" && s.ok()) {
      if (auto e = faulty::OneUlpOff(*base_, self)) return *e;
    }
    return s;
  }

  // Views: the reference's view, then the view modes' perturbation of it.
#define TCTS_VIEW(method, params, args)                               \
  Result<TensorHandle> method params override {                       \
    const std::string mode = Inject();                                \
    if (auto e = WrongError(mode, #method)) return *e;                \
    return faulty::PerturbView(*base_, mode, base_->method args);     \
  }
  TCTS_VIEW(as_strided,
            (const TensorHandle& t, const std::vector<std::int64_t>& s, const std::vector<std::int64_t>& st,
             std::int64_t o),
            (t, s, st, o))
  TCTS_VIEW(t, (const TensorHandle& x), (x))
  TCTS_VIEW(transpose, (const TensorHandle& x, std::int64_t a, std::int64_t b), (x, a, b))
  TCTS_VIEW(permute, (const TensorHandle& x, const std::vector<std::int64_t>& d), (x, d))
  TCTS_VIEW(narrow, (const TensorHandle& x, std::int64_t d, std::int64_t s, std::int64_t l), (x, d, s, l))
  TCTS_VIEW(select, (const TensorHandle& x, std::int64_t d, std::int64_t i), (x, d, i))
  TCTS_VIEW(slice, (const TensorHandle& x, std::int64_t d, std::int64_t s, std::int64_t e, std::int64_t st),
            (x, d, s, e, st))
  TCTS_VIEW(expand, (const TensorHandle& x, const std::vector<std::int64_t>& s), (x, s))
  TCTS_VIEW(unsqueeze, (const TensorHandle& x, std::int64_t d), (x, d))
  TCTS_VIEW(squeeze, (const TensorHandle& x, std::optional<std::int64_t> d), (x, d))
  TCTS_VIEW(view, (const TensorHandle& x, const std::vector<std::int64_t>& s), (x, s))
#undef TCTS_VIEW

  Result<std::vector<Scalar>> storage_values(const TensorHandle& x) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "storage_values")) return *e;
    Result<std::vector<Scalar>> r = base_->storage_values(x);
    if (mode == "storage_order" && r.ok()) std::reverse(r.value().begin(), r.value().end());
    return r;
  }
  Status write_element(const TensorHandle& x, const std::vector<std::int64_t>& i, const Scalar& v) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "write_element")) return *e;
    if (mode == "write_through") {  // validated as the reference would, then written to a copy
      const Result<TensorHandle> copy = base_->clone(x, MemoryFormat::kPreserve);
      if (!copy.ok()) return copy.error();
      return base_->write_element(copy.value(), i, v);
    }
    return base_->write_element(x, i, v);
  }

  Result<DeviceInfo> device(const DeviceArg& arg) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "device")) return *e;
    Result<DeviceInfo> r = base_->device(arg);
    if (!r.ok()) return r;
    if (mode == "device_parse") r.value().index = r.value().index ? *r.value().index + 1 : 0;
    if (mode == "device_str") {
      r.value().str = ToggleIndex(r.value().str);
      std::replace(r.value().repr.begin(), r.value().repr.end(), '\'', '"');
    }
    return r;
  }
  Result<DeviceComparison> compare_devices(const DeviceArg& a, const DeviceArg& b) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "compare_devices")) return *e;
    Result<DeviceComparison> r = base_->compare_devices(a, b);
    if (mode == "device_eq" && r.ok()) {
      r.value().equal = !r.value().equal;
      r.value().same_hash = !r.value().same_hash;
    }
    return r;
  }
  Result<std::string> default_device() override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "default_device")) return *e;
    Result<std::string> r = base_->default_device();
    if (mode == "default_device" && r.ok()) return ToggleIndex(r.value());
    return r;
  }

  Result<TensorHandle> asarray(const AsarraySource& source, const AsarrayOptions& options) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "asarray")) return *e;
    if (mode == "asarray_requires_grad") {
      AsarrayOptions o = options;
      o.requires_grad = std::nullopt;
      return base_->asarray(source, o);
    }
    Result<TensorHandle> r = base_->asarray(source, options);
    if (!r.ok()) return r;
    if (mode == "asarray_dtype" || mode == "asarray_copies") {
      const Result<TensorMeta> m = base_->meta(r.value());
      if (!m.ok()) return m.error();
      AsarraySource again;
      again.kind = AsarraySource::Kind::kTensor;
      again.tensor = r.value();
      AsarrayOptions o;
      if (mode == "asarray_dtype") o.dtype = OtherFloat(m.value().dtype);
      if (mode == "asarray_copies") o.copy = true;
      return base_->asarray(again, o);
    }
    if (mode == "buffer" && source.kind == AsarraySource::Kind::kBuffer) {
      const Result<TensorMeta> m = base_->meta(r.value());
      if (!m.ok()) return m.error();
      const std::size_t item = static_cast<std::size_t>(DTypeItemsize(m.value().dtype));
      if (source.buffer_bytes < item) return r;
      AsarraySource shifted = source;
      shifted.buffer += item;
      shifted.buffer_bytes -= item;
      return base_->asarray(shifted, options);
    }
    return r;
  }

  Result<DLManagedTensor*> to_dlpack(const TensorHandle& t) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "to_dlpack")) return *e;
    Result<DLManagedTensor*> r = base_->to_dlpack(t);
    if (!r.ok()) return r;
    DLTensor& dl = r.value()->dl_tensor;
    if (mode == "dlpack_strides" && dl.ndim > 0 && dl.strides) ++dl.strides[dl.ndim - 1];
    if (mode == "dlpack_deleter") return faulty::PoisoningExport(r.value());
    return r;
  }
  Result<TensorHandle> from_dlpack(DLManagedTensor* m) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "from_dlpack")) return *e;
    const std::uint64_t byte_offset = m->dl_tensor.byte_offset;
    if (mode == "byte_offset") m->dl_tensor.byte_offset = 0;
    Result<TensorHandle> r = base_->from_dlpack(m);
    if (!r.ok()) {
      m->dl_tensor.byte_offset = byte_offset;  // still the caller's
      return r;
    }
    return r;
  }

  Result<AutogradInfo> autograd(const TensorHandle& t) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "autograd")) return *e;
    Result<AutogradInfo> r = base_->autograd(t);
    if (mode == "autograd_history" && r.ok()) {
      r.value().grad_fn = std::nullopt;
      r.value().is_leaf = true;
    }
    return r;
  }

#define TCTS_FORWARD(Ret, method, params, args)            \
  Ret method params override {                             \
    if (auto e = WrongError(Inject(), #method)) return *e; \
    return base_->method args;                             \
  }
  TCTS_FORWARD(Result<std::string>, legacy_constructor, (DType d), (d))
  TCTS_FORWARD(Result<DType>, default_dtype, (), ())
  TCTS_FORWARD(Status, set_default_dtype, (DType d), (d))
  TCTS_FORWARD(Result<TensorHandle>, make_tensor,
               (const std::vector<std::int64_t>& s, DType d, const std::vector<Scalar>& v), (s, d, v))
  TCTS_FORWARD(Result<std::vector<Scalar>>, values, (const TensorHandle& t), (t))
  TCTS_FORWARD(Result<TensorHandle>, empty_strided,
               (const std::vector<std::int64_t>& s, const std::vector<std::int64_t>& st, DType d), (s, st, d))
  TCTS_FORWARD(Result<TensorHandle>, reshape, (const TensorHandle& x, const std::vector<std::int64_t>& s), (x, s))
  TCTS_FORWARD(Result<TensorHandle>, clone, (const TensorHandle& x, MemoryFormat f), (x, f))
  TCTS_FORWARD(Result<TensorHandle>, empty_like, (const TensorHandle& x, MemoryFormat f), (x, f))
  TCTS_FORWARD(Result<StorageInfo>, storage, (const TensorHandle& x), (x))
  TCTS_FORWARD(Status, write_storage, (const TensorHandle& x, std::int64_t i, const Scalar& v), (x, i, v))
  TCTS_FORWARD(Result<std::uintptr_t>, data_ptr, (const TensorHandle& x), (x))
  TCTS_FORWARD(Status, requires_grad_, (const TensorHandle& x, bool r), (x, r))
  TCTS_FORWARD(Status, set_default_device, (const std::string& d), (d))
  TCTS_FORWARD(Status, enter_device, (const std::string& d), (d))
  TCTS_FORWARD(Status, exit_device, (), ())
  TCTS_FORWARD(Status, reset_default_device, (), ())
  TCTS_FORWARD(Result<TensorHandle>, empty_on,
               (const std::vector<std::int64_t>& s, DType d, const std::optional<std::string>& dev), (s, d, dev))
#undef TCTS_FORWARD

 private:
  // The fault chosen for the current case, if any ("" for none).
  std::string Mode() const {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (!info) return "";
    return faulty::ModeFor(faults_, CaseId(*info));
  }
  // Carries out the fault chosen for the current case, if any; returns a wrong-answer mode or "".
  std::string Inject() const {
    const std::string mode = Mode();
    if (mode == "abort") std::abort();
    if (mode == "segv") std::raise(SIGSEGV);
    if (mode == "exit") _exit(0);
    if (mode == "hang") {
      for (;;) pause();
    }
    return mode;
  }
  // The error every call answers in the modes that answer each call with one.
  // supports=none: every feature declared unsupported, every call answers so.
  std::optional<Error> WrongError(const std::string& mode, const char* call) const {
    if (none_ || mode == "unsupported" || mode == "undeclared") return NotSupported(std::string("faulty: ") + call);
    if (novalues_) {
      for (const char* op : {"values", "storage_values", "write_storage", "write_element"})
        if (std::string(call) == op) return NotSupported(std::string("faulty (no values): ") + call);
    }
    if (mode == "broken") return Error{ErrorKind::kRuntimeError, std::string("faulty: ") + call + " is broken"};
    return std::nullopt;
  }
  std::unique_ptr<Candidate> base_;
  std::vector<Fault> faults_;
  bool none_ = false;  // supports=none
  bool novalues_ = false;  // supports=novalues
  bool nostrides_ = false;  // supports=nostrides
  std::string missing_dtypes_;  // missing_dtypes, between commas
};

TCTS_REGISTER_CANDIDATE("faulty", [](const CandidateConfig& config) {
  return std::unique_ptr<Candidate>(std::make_unique<FaultyCandidate>(config));
});

}  // namespace
}  // namespace tcts
