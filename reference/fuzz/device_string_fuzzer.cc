// Fuzz target: the device grammar — torch.device("type[:index]"), torch.device(type, index)
// and torch.device(index) (reference/device.h).
//
// Input: one byte picks the form, then an index (FuzzInput::Int64), then the text.
// Properties: every input parses or raises a RuntimeError that echoes it (whole: control bytes
// escaped, ref::Printable); a parsed device has
// a type of the spec's list, an index in [-1, kMaxIndex] (cpu: -1 or 0), and parses back from
// its str() to itself.
#include <algorithm>
#include <string>

#include "reference/device.h"
#include "reference/error.h"
#include "reference/fuzz/fuzz_support.h"

using tcts::ref::Device;
using tcts::ref::DeviceTypeNames;
using tcts::ref::Error;
using tcts::ref::fuzz::FuzzInput;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput in(data, size);
  const int form = in.Byte() % 3;
  const std::int64_t index = in.Int64();
  const std::string text = in.Rest();
  try {
    const Device d = form == 0 ? Device::Parse(text)
                     : form == 1 ? Device::FromTypeIndex(text, index)
                                 : Device::FromOrdinal(index);
    const std::vector<std::string>& types = DeviceTypeNames();
    TCTS_FUZZ_CHECK(std::find(types.begin(), types.end(), d.type_name()) != types.end(), d.type_name());
    TCTS_FUZZ_CHECK(d.index() >= -1 && d.index() <= Device::kMaxIndex, d.str());
    TCTS_FUZZ_CHECK(!d.is_cpu() || d.index() <= 0, d.str());
    TCTS_FUZZ_CHECK(Device::Parse(d.str()) == d, d.str());
    TCTS_FUZZ_CHECK(d.repr().find(d.type_name()) != std::string::npos, d.repr());
  } catch (const Error& e) {
    tcts::ref::fuzz::CheckError(e);
    TCTS_FUZZ_CHECK(e.kind() == Error::Kind::kRuntimeError, e.what());
    const std::string echoed = tcts::ref::Printable(form == 2 ? std::to_string(index) : text);
    TCTS_FUZZ_CHECK(std::string(e.what()).find(echoed) != std::string::npos, e.what());
  }
  return 0;
}
