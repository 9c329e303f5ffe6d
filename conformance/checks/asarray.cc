#include "conformance/checks/asarray.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "conformance/checks/exchange.h"

namespace tcts {

namespace {

bool Shares(SourceKind k) { return k != SourceKind::kSequence && k != SourceKind::kScalar; }

std::string SourceText(const AsarrayRow& row) {
  switch (row.source) {
    case SourceKind::kTensor: return std::string("tensor(") + DTypeName(row.source_dtype) + Str(row.sizes.vec()) + ")";
    case SourceKind::kArray:
      return std::string("array(") + DTypeName(row.source_dtype) + Str(row.sizes.vec()) + ", byte strides " +
             Str(row.byte_strides.vec()) + ")";
    case SourceKind::kDLPack: return std::string("dlpack(") + DTypeName(row.source_dtype) + Str(row.sizes.vec()) + ")";
    case SourceKind::kArrayScalar:
      return std::string("numpy.") + DTypeName(row.source_dtype) + "(" + row.values_text + ")";
    case SourceKind::kBuffer: return "bytearray(" + std::to_string(row.buffer_bytes) + ")";
    case SourceKind::kSequence:
    case SourceKind::kScalar: return row.values_text;
  }
  return "?";
}

const char* GradFnText(const std::optional<std::string>& fn) { return fn ? fn->c_str() : "None"; }

// The autograd state of `t` against what the row wants; false when the candidate could not say.
bool ExpectAutograd(Case& c, const TensorHandle& t, const std::string& what, bool requires_grad, bool is_leaf,
                    const char* grad_fn) {
  const auto info = Get(c, calls::autograd(c.candidate(), t), "autograd(" + what + ")");
  if (!info) return false;
  ExpectEq(c, Check::kAutograd, what + ".requires_grad", requires_grad, info->requires_grad);
  ExpectEq(c, Check::kAutograd, what + ".is_leaf", is_leaf, info->is_leaf);
  const std::optional<std::string> want = *grad_fn ? std::optional<std::string>(grad_fn) : std::nullopt;
  c.Expect(Check::kAutograd, info->grad_fn == want, what + ".grad_fn", GradFnText(want), GradFnText(info->grad_fn));
  return true;
}

}  // namespace

void CheckAsarray(Case& c, const AsarrayRow& row) {
  // Sharing is observed through data_ptr and writes (storage access); the rest of the row
  // (dtype, sizes, device, values) needs none.
  const bool storage = c.SupportsOp("data_ptr", Check::kAliasing, "memory sharing (data_ptr, write-through)");
  Candidate& cand = c.candidate();
  DefaultDTypeScope default_dtype(c, row.default_dtype);
  if (!default_dtype.ok()) return;

  AsarrayOptions options;
  if (row.has_dtype) options.dtype = row.dtype;
  if (*row.device) options.device = std::string(row.device);
  if (row.copy >= 0) options.copy = row.copy == 1;
  if (row.requires_grad >= 0) options.requires_grad = row.requires_grad == 1;
  const std::string call = "asarray(" + SourceText(row) + (row.has_dtype ? std::string(", dtype=") + DTypeName(row.dtype) : "") +
                           (*row.device ? std::string(", device='") + row.device + "'" : "") +
                           ", copy=" + (row.copy < 0 ? "None" : row.copy ? "True" : "False") +
                           (row.requires_grad < 0 ? "" : row.requires_grad ? ", requires_grad=True" : ", requires_grad=False") + ")";

  // The source. Host memory (array, buffer, DLPack) is the suite's and outlives every tensor below.
  const std::vector<std::int64_t> sizes = row.sizes.vec();
  std::vector<std::byte> host;
  std::unique_ptr<Produced> produced;
  std::vector<Scalar> source_values;  // row-major, before any mutation
  AsarraySource src;
  std::uintptr_t source_address = 0;
  std::vector<std::int64_t> source_strides;  // in elements
  std::optional<PyValue> value;              // the row's values (a buffer has none)
  // The source tensor's device, as the candidate reports it: a result that keeps "the source's
  // device" (spec/asarray.toml device = "source") is compared with it, not with the cpu the
  // generated row assumes.
  std::string source_device;
  if (row.source != SourceKind::kBuffer) {
    value = ToPyValue(row.values, row.n_values);
    if (!value) {
      c.Mismatch(Check::kSetup, "the row's values " + std::string(row.values_text), "a Python value", "a malformed node table");
      return;
    }
    source_values = value->Leaves();
  }
  switch (row.source) {
    case SourceKind::kTensor: {
      const auto t = Get(c, calls::make_tensor(cand, sizes, row.source_dtype, source_values),
                         "make_tensor(" + Str(sizes) + ", " + DTypeName(row.source_dtype) + ")", Check::kSetup);
      if (!t) return;
      src.kind = AsarraySource::Kind::kTensor;
      src.tensor = *t;
      if (row.history > 0) {  // a = torch.tensor(..., requires_grad=True)
        auto st = calls::requires_grad_(cand, *t, true);
        if (!c.Usable(st, "a.requires_grad_(True)", /*setup=*/true)) return;
        if (!st.ok()) {
          c.Mismatch(Check::kSetup, "a.requires_grad_(True)", "done", Describe(st.error()));
          return;
        }
        if (!ExpectAutograd(c, *t, "a", true, true, "")) return;
      }
      if (row.history == 2) {  // b = a + 2: a tensor with autograd history (the doc's example)
        const auto b = Get(c, calls::binary(cand, BinaryOp::kAdd, *t, Scalar::Int(2), Scalar::Int(1)),
                           "b = a + 2", Check::kSetup);
        if (!b) return;
        src.tensor = *b;
        // b's values are what the result must hold: read only where values can be.
        const bool readable = c.Can(Check::kValues, "values of b");
        const auto held = readable ? ReadValues(c, *b, "b") : std::nullopt;
        if ((readable && !held) || !ExpectAutograd(c, *b, "b", true, false, row.source_grad_fn)) return;
        if (held) source_values = *held;
      }
      if (row.source_only) return;
      const auto p = storage ? Get(c, calls::data_ptr(cand, src.tensor), "data_ptr(source)", Check::kSetup)
                             : std::nullopt;
      const auto m = Meta(c, src.tensor, "source");
      if ((storage && !p) || !m) return;
      if (p) source_address = *p;
      source_strides = m->strides;
      source_device = m->device;
      break;
    }
    case SourceKind::kArray:
    case SourceKind::kArrayScalar: {
      const std::int64_t item = DTypeItemsize(row.source_dtype);
      std::vector<std::int64_t> bstr = row.byte_strides.vec();
      if (row.source == SourceKind::kArrayScalar) bstr.clear();
      // A negative stride reaches below the first element: the array owns those bytes too.
      std::int64_t below = 0;
      for (std::size_t k = 0; k < bstr.size() && k < sizes.size(); ++k) {
        if (sizes[k] > 0) below += (sizes[k] - 1) * std::max<std::int64_t>(-bstr[k], 0);
      }
      host.assign(static_cast<std::size_t>(below + ByteExtent(sizes, bstr, item) + 16), std::byte{0});
      std::byte* const first = host.data() + below;
      const auto indices = Indices(sizes);
      for (std::size_t i = 0; i < indices.size() && i < source_values.size(); ++i) {
        std::int64_t off = 0;
        for (std::size_t k = 0; k < bstr.size(); ++k) off += indices[i][k] * std::max<std::int64_t>(bstr[k], 0);
        WriteHost(row.source_dtype, first + off, source_values[i]);
      }
      // What the array holds, read through its geometry (a broadcast row repeats the last write).
      if (!bstr.empty() && std::all_of(bstr.begin(), bstr.end(), [](std::int64_t s) { return s >= 0; })) {
        source_values = ReadStrided(row.source_dtype, first, sizes, bstr);
      }
      src.kind = row.source == SourceKind::kArray ? AsarraySource::Kind::kArray : AsarraySource::Kind::kArrayScalar;
      src.array = HostArray{first, row.source_dtype, sizes, bstr};
      source_address = reinterpret_cast<std::uintptr_t>(first);
      for (std::int64_t s : bstr) source_strides.push_back(s / item);
      break;
    }
    case SourceKind::kDLPack: {
      produced = Produce(row.source_dtype, row.dl_code, DTypeItemsize(row.source_dtype) * 8, 1, kDLCPU, sizes, {}, true,
                         0, source_values);
      src.kind = AsarraySource::Kind::kDLPack;
      src.dlpack = &produced->managed;
      source_address = reinterpret_cast<std::uintptr_t>(produced->bytes.data());
      source_strides = produced->strides;
      break;
    }
    case SourceKind::kBuffer:
      host.assign(static_cast<std::size_t>(row.buffer_bytes), std::byte{0});
      src.kind = AsarraySource::Kind::kBuffer;
      src.buffer = host.data();
      src.buffer_bytes = host.size();
      source_address = reinterpret_cast<std::uintptr_t>(host.data());
      source_strides = {1};
      break;
    case SourceKind::kSequence:
    case SourceKind::kScalar:
      src.kind = AsarraySource::Kind::kSequence;
      src.value = std::move(*value);
      break;
  }

  bool answered = false;
  {
    auto r = calls::asarray(cand, src, options);
    // requires_grad=True needs autograd too: a candidate with asarray but no autograd refuses it.
    if (row.requires_grad == 1 && cand.supports(r.feature())) r = std::move(r).As(Feature::kAutograd);
    answered = c.Usable(r, call);
    if (answered &&
        CheckOutcome(c, row.error, r, call, std::string(DTypeName(row.result_dtype)) + " " + Str(row.result_sizes.vec()))) {
      const TensorHandle out = r.value();
      if (auto m = Meta(c, out, "result")) {
        ExpectEq(c, Check::kDType, call + ".dtype", row.result_dtype, m->dtype);
        ExpectEq(c, Check::kSizes, call + ".shape", row.result_sizes.vec(), m->sizes);
        // With no device= the result keeps a tensor source's device (spec/asarray.toml device =
        // "source") and puts a sequence or a scalar on the current default device ("default"): the
        // device the candidate's tensors claim (Config().resolved_device), which the generated
        // row, made for a run on the cpu, spells "cpu".
        std::string want_device = row.result_device;
        if (!*row.device && row.source == SourceKind::kTensor && !source_device.empty()) want_device = source_device;
        if (!*row.device && (row.source == SourceKind::kSequence || row.source == SourceKind::kScalar) &&
            !Config().resolved_device.empty())
          want_device = Config().resolved_device;
        ExpectEq(c, Check::kDevice, call + ".device", want_device, m->device);
        if (row.shares && Shares(row.source) && row.source != SourceKind::kBuffer) {
          ExpectEq(c, Check::kStrides, call + ".stride() (shares the source's layout)", source_strides, m->strides);
        }
      }
      const bool on_host = std::string(row.result_device) == "cpu";
      if (on_host && !c.failed()) {
        // Values: the source's, cast to the result's dtype (a fresh buffer reads as zeros).
        const auto before = ReadValues(c, out, "result");
        const std::vector<Scalar> want =
            row.source == SourceKind::kBuffer ? CastAll(row.result_dtype, std::vector<Scalar>(before ? before->size() : 0, Scalar::Int(0)))
                                              : CastAll(row.result_dtype, source_values);
        if (before && *before != want) MismatchValues(c, Check::kValues, call + " values", want, *before);
        // Sharing: the data pointers (the doc's data_ptr() equalities), then a write to the
        // source's first element, which the result sees exactly when it shares.
        const auto ptr = storage ? Get(c, calls::data_ptr(cand, out), "data_ptr(result)") : std::nullopt;
        const bool nonempty = Numel(row.result_sizes.vec()) > 0;
        if (row.grad && !c.failed()) {
          if (ExpectAutograd(c, out, "result", row.want_requires_grad, row.want_is_leaf, row.want_grad_fn) &&
              row.source_requires_grad_after >= 0) {
            if (const auto s = Get(c, calls::autograd(cand, src.tensor), "autograd(source) after the call")) {
              ExpectEq(c, Check::kAutograd, "the source's requires_grad after " + call, row.source_requires_grad_after == 1,
                       s->requires_grad);
            }
          }
        }
        if (ptr && Shares(row.source) && nonempty) {
          if (row.shares) {
            c.Expect(Check::kAliasing, *ptr == source_address, call + ".data_ptr() == source data_ptr()",
                     "equal (shares memory)", "a different address");
          } else {
            c.Expect(Check::kAliasing, *ptr != source_address, call + ".data_ptr() != source data_ptr()",
                     "a new memory (a copy)", "the source's address");
          }
        }
        if (before && nonempty && Shares(row.source) && !row.grad && !c.failed()) {
          const Scalar flip = Flipped(source_values.empty() ? Scalar::Int(0) : source_values[0]);
          bool wrote = true;
          switch (row.source) {
            case SourceKind::kTensor: {
              if (!storage || !cand.supports_op("write_element")) {
                wrote = false;  // writing through the source tensor needs write_element
                break;
              }
              auto st = calls::write_element(cand, src.tensor, std::vector<std::int64_t>(sizes.size(), 0), flip);
              wrote = c.Usable(st, "source[0...] = ...") && st.ok();
              break;
            }
            case SourceKind::kArray:
            case SourceKind::kArrayScalar: WriteHost(row.source_dtype, src.array.data, flip); break;
            case SourceKind::kDLPack: WriteHost(row.source_dtype, produced->bytes.data(), flip); break;
            case SourceKind::kBuffer: host[0] = std::byte{1}; break;
            default: wrote = false;
          }
          const auto after = wrote ? ReadValues(c, out, "result after writing the source") : std::nullopt;
          if (after) {
            const bool changed = (*after)[0] != (*before)[0];
            c.Expect(Check::kAliasing, changed == row.shares, "writing the source's first element, then reading the result's",
                     row.shares ? "the new value (shared memory)" : "the old value (a copy)", (*after)[0].ToString());
          }
        }
      }
    }
  }
  // Every tensor made from the DLPack source is gone: its deleter has run exactly once.
  if (produced && answered) {
    src.tensor.reset();
    c.Expect(Check::kOwnership, produced->deleted == 1, "the DLPack deleter after every tensor using it is gone",
             "called once", "called " + std::to_string(produced->deleted) + " times");
  }
}

}  // namespace tcts
