// TesteePipe: a testee started as its argv (no shell) and what cannot start named, the end of a testee's stdout seen while
// the testee lives, and the memory one huge error answer costs while it is read.
#include "conformance/protocol/testee_pipe.h"

#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

// Every operator new of this test counted (malloc_usable_size: no header of our own): the
// bytes live now and the most live since the last Restart.
namespace {
std::atomic<std::size_t> live{0}, peak{0};
void* Counted(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  const std::size_t now = live += malloc_usable_size(p);
  for (std::size_t was = peak; now > was && !peak.compare_exchange_weak(was, now);) {
  }
  return p;
}
void Uncounted(void* p) {
  if (p == nullptr) return;
  live -= malloc_usable_size(p);
  std::free(p);
}
}  // namespace
void* operator new(std::size_t n) { return Counted(n); }
void* operator new[](std::size_t n) { return Counted(n); }
void operator delete(void* p) noexcept { Uncounted(p); }
void operator delete[](void* p) noexcept { Uncounted(p); }
void operator delete(void* p, std::size_t) noexcept { Uncounted(p); }
void operator delete[](void* p, std::size_t) noexcept { Uncounted(p); }

#include "gtest/gtest.h"

namespace tcts {
namespace {

// The testee is its argv, run with no shell between: shell syntax reaches it as written.
TEST(TesteePipe, TheArgvReachesTheProgramAsWritten) {
  TesteePipe pipe;
  std::string error;
  ASSERT_TRUE(pipe.Start({"printf", "%s|%s|%s\\n", "a; b && c", "$HOME ~ *", "'quoted'"}, "", &error)) << error;
  std::string line;
  bool too_long = false;
  ASSERT_TRUE(pipe.ReadLine(&line, &too_long));
  EXPECT_EQ(line, "a; b && c|$HOME ~ *|'quoted'");
  EXPECT_EQ(pipe.Reap(2.0), "exit status 0");
}

TEST(TesteePipe, WhatCannotStartIsNamed) {
  std::string error;
  EXPECT_FALSE(TesteePipe().Start({"tcts-no-such-program", "x"}, "", &error));
  EXPECT_EQ(error, "cannot run the testee's program 'tcts-no-such-program': No such file or directory");
  EXPECT_FALSE(TesteePipe().Start({"/bin/true"}, "/tcts-no-such-dir", &error));
  EXPECT_EQ(error, "cannot enter the testee's directory '/tcts-no-such-dir': No such file or directory");
  EXPECT_FALSE(TesteePipe().Start({}, "", &error));
  EXPECT_EQ(error, "no program to run (the testee's argv is empty)");
}

TEST(TesteePipe, ShownJoinsTheWords) {
  EXPECT_EQ(TesteePipe::Shown({"python3", "t.py", "--x=1 2"}), "python3 t.py --x=1 2");
}

// A testee that closes its stdout and stays alive: ReadLine ends (end of file) while it still
// runs, without waiting for it to exit (30 s later the testee would have ended by itself within
// the 2 s Reap gives it).
TEST(TesteePipe, AClosedStdoutIsAnEndOfFileWhileTheTesteeLives) {
  TesteePipe pipe;
  std::string error;
  ASSERT_TRUE(pipe.Start({"/bin/sh", "-c", "exec >&-; sleep 30"}, "", &error)) << error;
  std::string line;
  bool too_long = false;
  EXPECT_FALSE(pipe.ReadLine(&line, &too_long));
  EXPECT_FALSE(too_long);
  EXPECT_EQ(pipe.Reap(2.0), "still running 2 s later; killed");
}

// Issue 42: a 200 MiB error message costs the reader a bounded amount of memory (the old
// reader held the line whole, twice: 400 MiB), the message is summed up whole (its length and
// FNV-1a 64 digest), and the next answer reads as usual.
TEST(TesteePipe, AHugeErrorMessageIsNeverHeldWhole) {
  constexpr std::size_t kSize = std::size_t{200} << 20;
  TesteePipe pipe;
  std::string error;
  ASSERT_TRUE(pipe.Start({"/bin/sh", "-c",
                          "printf '{\"id\":1,\"error\":{\"kind\":\"ValueError\",\"message\":\"'; "
                          "head -c " + std::to_string(kSize) + " /dev/zero | tr '\\0' m; "
                          "printf '\"}}\\n{\"id\":2,\"ok\":1}\\n'"},
                         "", &error)) << error;
  std::string line;
  bool too_long = false;
  const std::size_t before = live;
  peak = before;
  ASSERT_TRUE(pipe.ReadLine(&line, &too_long));
  const std::size_t most = peak - before;
  std::printf("bytes held at most while reading a 200 MiB error answer: %zu\n", most);
  EXPECT_LT(most, std::size_t{4} << 20) << "bytes held while reading the answer";
  EXPECT_LT(line.size(), std::size_t{1} << 20);
  EXPECT_EQ(line.rfind("{\"id\":1,\"error\":{\"kind\":\"ValueError\",\"message\":\"mmm", 0), 0u);
  EXPECT_EQ(line.substr(line.size() - 6), "mmm\"}}");
  EXPECT_TRUE(pipe.cut().cut());
  EXPECT_EQ(pipe.cut().total(), kSize);
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < kSize; ++i) h = (h ^ 'm') * 1099511628211ull;
  EXPECT_EQ(pipe.cut().digest(), h);
  ASSERT_TRUE(pipe.ReadLine(&line, &too_long));
  EXPECT_EQ(line, "{\"id\":2,\"ok\":1}");
  EXPECT_FALSE(pipe.cut().cut());
  EXPECT_FALSE(too_long);
}

}  // namespace
}  // namespace tcts
