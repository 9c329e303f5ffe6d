// The reference's device errors: beyond what the spec requires (the kind and PyTorch's
// fragment), every one echoes the input and lists the accepted device types.
#include "reference/device.h"

#include <gtest/gtest.h>

#include "reference/error.h"

namespace tcts::ref {
namespace {

std::string ErrorOf(void (*f)()) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::kRuntimeError);
    return e.what();
  }
  return "(no error)";
}

void ExpectNamesInputAndTypes(const std::string& message, const std::string& input) {
  EXPECT_NE(message.find("'" + input + "'"), std::string::npos) << message;
  for (const std::string& type : DeviceTypeNames()) EXPECT_NE(message.find(type), std::string::npos) << message;
}

TEST(Device, EveryParseErrorEchoesTheInputAndListsTheTypes) {
  const char* const bad[] = {"", " cuda", "cuda:", ":0", "cuda:01", "cuda:-1", "cuda:1:2", "CUDA", "gpu", "cpu:1",
                             "cuda:512", "cuda:99999999999"};
  for (const char* input : bad) {
    std::string message;
    try {
      Device::Parse(input);
      ADD_FAILURE() << "'" << input << "' parsed";
    } catch (const Error& e) {
      message = e.what();
    }
    ExpectNamesInputAndTypes(message, input);
  }
}

TEST(Device, OrdinalErrorsNameTheCall) {
  ExpectNamesInputAndTypes(ErrorOf([] { Device::FromTypeIndex("cuda:0", 1); }), "cuda:0");
  ExpectNamesInputAndTypes(ErrorOf([] { Device::FromOrdinal(-1); }), "-1");
}

TEST(Device, ContextsNestAndRestore) {
  EXPECT_EQ(DefaultDevice().str(), "cpu");
  EnterDeviceContext(Device::Parse("meta"));
  EnterDeviceContext(Device::Parse("cpu"));
  EXPECT_EQ(DefaultDevice().str(), "cpu");
  ExitDeviceContext();
  EXPECT_EQ(DefaultDevice().str(), "meta");
  ExitDeviceContext();
  EXPECT_EQ(DefaultDevice().str(), "cpu");
  EXPECT_NE(ErrorOf([] { ExitDeviceContext(); }).find("no `with torch.device"), std::string::npos);
  EXPECT_EQ(ResolveDevice(nullptr).str(), "cpu");
  const Device cuda = Device::Parse("cuda");
  EXPECT_EQ(ResolveDevice(&cuda).str(), "cuda:0");
}

}  // namespace
}  // namespace tcts::ref
