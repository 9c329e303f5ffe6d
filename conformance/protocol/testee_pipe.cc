#include "conformance/protocol/testee_pipe.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "conformance/protocol/wire.h"

namespace tcts {

bool TesteePipe::Start(const std::string& command, const std::string& cwd, std::string* error) {
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  pid_ = fork();
  if (pid_ < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid_ == 0) {
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) {
      std::fprintf(stderr, "tcts: cannot enter the testee's directory '%s': %s\n", cwd.c_str(), std::strerror(errno));
      _exit(127);
    }
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  out_ = to_child[1];
  in_ = from_child[0];
  signal(SIGPIPE, SIG_IGN);  // a dead testee is an EPIPE on write, reported as such
  return true;
}

bool TesteePipe::WriteLine(const std::string& line) { return wire::WriteAll(out_, line + "\n"); }

bool TesteePipe::ReadLine(std::string* line, bool* too_long) {
  line->clear();
  for (;;) {
    const std::size_t nl = buffer_.find('\n', start_);
    if (nl != std::string::npos) {
      line->assign(buffer_, start_, nl - start_);
      start_ = nl + 1;
      if (start_ > (1 << 20)) {
        buffer_.erase(0, start_);
        start_ = 0;
      }
      return true;
    }
    if (buffer_.size() - start_ > kMaxLine) {
      *too_long = true;
      return false;
    }
    char chunk[1 << 16];
    const ssize_t n = read(in_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

std::string TesteePipe::Reap() {
  if (pid_ <= 0) return "not started";
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

void TesteePipe::Close() {
  if (out_ >= 0) close(out_);  // end of input: the testee's loop ends
  if (in_ >= 0) close(in_);
  out_ = in_ = -1;
  if (pid_ > 0) Reap();
}

}  // namespace tcts
