// TesteePipe: the shell form of a testee's command, and the end of a testee's stdout seen while
// the testee lives.
#include "conformance/protocol/testee_pipe.h"

#include <string>

#include "gtest/gtest.h"

namespace tcts {
namespace {

TEST(ShellForm, ASimpleCommandReplacesTheShell) {
  EXPECT_EQ(TesteePipe::ShellForm("/usr/bin/python3 t.py --x=1"), "exec /usr/bin/python3 t.py --x=1");
  EXPECT_EQ(TesteePipe::ShellForm("  node t.js"), "  exec node t.js");
  EXPECT_EQ(TesteePipe::ShellForm("A=1 B='x y' node t.js"), "A=1 B='x y' exec node t.js");
  EXPECT_EQ(TesteePipe::ShellForm("python3 -c 'a; b | c' 2>/dev/null"), "exec python3 -c 'a; b | c' 2>/dev/null");
  EXPECT_EQ(TesteePipe::ShellForm("t \"$HOME/x\" a\\;b"), "exec t \"$HOME/x\" a\\;b");
}

TEST(ShellForm, AnythingElseRunsAsWritten) {
  for (const char* c : {"a; b", "a && b", "a | b", "a &", "(a)", "{ a; }", "cd x && exec t", "t $(pwd)",
                        "t `pwd`", "t \"$(pwd)\"", "if a; then b; fi", "while a", "exec t", "! t", "t # c",
                        "<in t", "A=1", "", "t 'open", "t \\", "a\nb"}) {
    EXPECT_EQ(TesteePipe::ShellForm(c), c) << c;
  }
}

// A testee that closes its stdout and stays alive: ReadLine ends (end of file) while it still
// runs, without waiting for it to exit (30 s later the testee would have ended by itself within
// the 2 s Reap gives it).
TEST(TesteePipe, AClosedStdoutIsAnEndOfFileWhileTheTesteeLives) {
  TesteePipe pipe;
  std::string error;
  ASSERT_TRUE(pipe.Start("/bin/sh -c 'exec >&-; sleep 30'", "", &error)) << error;
  std::string line;
  bool too_long = false;
  EXPECT_FALSE(pipe.ReadLine(&line, &too_long));
  EXPECT_FALSE(too_long);
  EXPECT_EQ(pipe.Reap(2.0), "still running 2 s later; killed");
}

}  // namespace
}  // namespace tcts
