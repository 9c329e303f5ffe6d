#include "conformance/checks/devices.h"

#include "conformance/candidate/fresh_process.h"

#include "spec/device_types.inc"

#include <string>

namespace tcts {

namespace {
// A call given device strings is its op's (devices); one given torch.device(type, index) or
// torch.device(ordinal), the constructor's other forms, is judged under the answer feature
// device_forms.
bool OtherForm(const DeviceArg& arg) { return arg.form != DeviceArg::Form::kString; }
template <class T>
Called<T> ByForm(Called<T> r, bool other_form) {
  return other_form ? std::move(r).As(Feature::kDeviceForms) : std::move(r);
}
}  // namespace

void CheckDevice(Case& c, const DeviceRow& row) {
  const DeviceArg arg = row.arg.arg();
  const std::string call = arg.ToString();
  const auto r = ByForm(calls::device(c.candidate(), arg), OtherForm(arg));
  if (c.Usable(r, call)) {
    if (CheckOutcome(c, row.error, r, call, row.repr)) {
      const DeviceInfo& d = r.value();
      ExpectEq(c, Check::kAnswer, call + ".type", std::string(row.type), d.type);
      ExpectEq(c, Check::kAnswer, call + ".index", row.index, d.index.value_or(-1));
      ExpectEq(c, Check::kAnswer, "str(" + call + ")", std::string(row.str), d.str);
      if (c.Supports(Feature::kDeviceRepr, Check::kAnswer, "repr(" + call + ")")) {
        ExpectEq(c, Check::kAnswer, "repr(" + call + ")", std::string(row.repr), d.repr);
      }
    } else if (row.error.expected && !r.ok() && r.error().kind == row.error.kind && row.lists_types) {
      static const char* const kDocumented[] = {
#define TCTS_DOCUMENTED_TYPE(e, name) name,
          TCTS_FORALL_DOCUMENTED_DEVICE_TYPES(TCTS_DOCUMENTED_TYPE)
#undef TCTS_DOCUMENTED_TYPE
      };
      c.Checked(Check::kMessage);
      for (const char* type : kDocumented) {
        if (r.error().message.find(type) == std::string::npos) {
          c.Mismatch(Check::kMessage, call + " error names the accepted types", std::string("a message naming '") + type + "'",
                     r.error().message);
        }
      }
    }
  }
}

void CheckDeviceEquality(Case& c, const DeviceEqualityRow& row) {
  const DeviceArg a = row.a.arg(), b = row.b.arg();
  const std::string call = a.ToString() + " == " + b.ToString();
  const auto r = Get(c, ByForm(calls::compare_devices(c.candidate(), a, b), OtherForm(a) || OtherForm(b)), call);
  if (r) {
    ExpectEq(c, Check::kAnswer, call, row.equal, r->equal);
    if (row.equal) ExpectEq(c, Check::kAnswer, "hash(" + a.ToString() + ") == hash(" + b.ToString() + ")", true, r->same_hash);
  }
}

namespace {
// Restores the default device and closes contexts a case left open, whatever happened.
class DefaultDeviceRestorer {
 public:
  explicit DefaultDeviceRestorer(Candidate& cand) : cand_(cand) {}
  ~DefaultDeviceRestorer() {
    for (; open > 0; --open) cand_.exit_device();
    // Setting the default device back to cpu is not the state a process starts in (torch 2.x
    // keeps a DeviceContext for 'cpu' too, which then moves every asarray of a tensor to the
    // cpu): reset_default_device (torch.set_default_device(None)) is. A candidate without it
    // would leave later cases judged in a state that depends on which cases shared the process:
    // the next case starts in a new one.
    if (changed && !cand_.reset_default_device().ok()) {
      cand_.set_default_device("cpu");
      RequestCleanProcess("a default-device case called set_default_device, process-wide state the candidate cannot reset");
    }
  }
  int open = 0;
  bool changed = false;

 private:
  Candidate& cand_;
};
}  // namespace

void CheckDefaultDevice(Case& c, const DefaultDeviceRow& row) {
  Candidate& cand = c.candidate();
  DefaultDeviceRestorer restore(cand);
  for (int k = 0; k < row.nsteps && !c.failed() && !c.not_supported(); ++k) {
    const DeviceStep& s = row.steps[k];
    const std::string dev = s.device;
    switch (s.kind) {
      case DeviceStepKind::kSet: {
        const std::string call = "set_default_device('" + dev + "')";
        auto st = calls::set_default_device(cand, dev);
        if (!c.Usable(st, call)) break;
        restore.changed = true;
        if (!st.ok()) c.Mismatch(Check::kError, call, "ok", Describe(st.error()));
        break;
      }
      case DeviceStepKind::kEnter: {
        const std::string call = "with torch.device('" + dev + "'): (enter)";
        auto st = calls::enter_device(cand, dev);
        if (!c.Usable(st, call)) break;
        if (!st.ok()) c.Mismatch(Check::kError, call, "ok", Describe(st.error()));
        else ++restore.open;
        break;
      }
      case DeviceStepKind::kExit: {
        auto st = calls::exit_device(cand);
        if (!c.Usable(st, "(leaving the with block)")) break;
        if (!st.ok()) c.Mismatch(Check::kError, "(leaving the with block)", "ok", Describe(st.error()));
        else --restore.open;
        break;
      }
      case DeviceStepKind::kGet: {
        const auto d = Get(c, calls::default_device(cand), "get_default_device()");
        if (d) ExpectEq(c, Check::kDevice, "get_default_device() (step " + std::to_string(k + 1) + ")", std::string(s.expect), *d);
        break;
      }
      case DeviceStepKind::kFactory:
      case DeviceStepKind::kAsarray:
      case DeviceStepKind::kAsarrayTensor: {
        std::string call;
        std::optional<Called<TensorHandle>> t;
        if (s.kind == DeviceStepKind::kFactory) {
          call = "empty([2]" + (dev.empty() ? "" : ", device='" + dev + "'") + ")";
          t = calls::empty_on(cand, {2}, DType::kFloat32, dev.empty() ? std::nullopt : std::optional<std::string>(dev));
          // A tensor on cuda is the answer feature cuda_tensors.
          if (std::string(s.expect).rfind("cuda", 0) == 0) t = std::move(*t).As(Feature::kCudaTensors);
        } else if (s.kind == DeviceStepKind::kAsarray) {
          call = "asarray([1, 2])";
          AsarraySource src;
          src.kind = AsarraySource::Kind::kSequence;
          src.value.is_list = true;
          src.value.items.resize(2);
          src.value.items[0].scalar = Scalar::Int(1);
          src.value.items[1].scalar = Scalar::Int(2);
          t = calls::asarray(cand, src, AsarrayOptions{});
        } else {
          call = "asarray(tensor([1, 2]))";
          // A cpu tensor whatever the default device is (make_tensor follows the default).
          const auto base = Get(c, calls::empty_on(cand, {2}, DType::kInt64, std::string("cpu")),
                                "empty([2], dtype=int64, device='cpu')");
          if (!base) break;
          AsarraySource src;
          src.kind = AsarraySource::Kind::kTensor;
          src.tensor = *base;
          t = calls::asarray(cand, src, AsarrayOptions{});
        }
        const auto handle = Get(c, std::move(*t), call);
        if (!handle) break;
        if (auto m = Meta(c, *handle, call)) {
          ExpectEq(c, Check::kDevice, call + ".device (step " + std::to_string(k + 1) + ")", std::string(s.expect), m->device);
        }
        break;
      }
    }
  }
}

}  // namespace tcts
