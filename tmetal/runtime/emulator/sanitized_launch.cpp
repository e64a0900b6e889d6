#include "tmetal/runtime/emulator/sanitized_launch.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <algorithm>
#include <memory>
#include <thread>

#include "tmetal/runtime/emulator/grid_runner.h"
#include "tmetal/runtime/emulator/guarded_buffer.h"

namespace tmetal::runtime::emulator {
namespace {

constexpr int kChildFailed = 101;   // the child wrote an error report
constexpr int kChildCrashed = 102;  // the child's signal handler wrote a crash report

// Written by the child, read by the parent after the child exited.
struct SharedReport {
  volatile int written;
  char text[8192];
};

// The child's view, for the signal handler (set before fork, read-only after).
const std::vector<std::unique_ptr<GuardedBuffer>>* g_buffers = nullptr;
SharedReport* g_report = nullptr;
size_t g_fiberStackBytes = 0;

// Appends to a fixed buffer without allocating: usable in a signal handler.
class SignalSafeText {
 public:
  SignalSafeText(char* out, size_t capacity) : out_(out), capacity_(capacity) { out_[0] = 0; }
  SignalSafeText& operator<<(const char* s) {
    while (*s && length_ + 1 < capacity_) out_[length_++] = *s++;
    out_[length_] = 0;
    return *this;
  }
  SignalSafeText& number(unsigned long long v, unsigned base = 10) {
    char digits[32];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[v % base];
      v /= base;
    } while (v);
    char text[33];
    for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    text[n] = 0;
    return *this << text;
  }
  SignalSafeText& signedNumber(long long v) {
    if (v < 0) {
      *this << "-";
      return number(static_cast<unsigned long long>(-v));
    }
    return number(static_cast<unsigned long long>(v));
  }

 private:
  char* out_;
  size_t capacity_;
  size_t length_ = 0;
};

const char* accessKind(void* context) {
#if defined(__x86_64__)
  // Bit 1 of the page-fault error code: the access was a write.
  const auto* uc = static_cast<const ucontext_t*>(context);
  return (uc->uc_mcontext.gregs[REG_ERR] & 2) ? "write to" : "read of";
#else
  (void)context;
  return "access to";
#endif
}

void onCrash(int signal, siginfo_t* info, void* context) {
  SignalSafeText text(g_report->text, sizeof g_report->text);
  text << "sanitizer: ";
  const void* address = info->si_addr;
  bool described = false;
  if (signal == SIGSEGV || signal == SIGBUS) {
    for (const auto& buffer : *g_buffers) {
      if (!buffer->contains(address)) continue;
      text << "out-of-bounds " << accessKind(context) << " buffer '" << buffer->name().c_str() << "' (";
      text.number(buffer->bytes()) << " bytes) at byte offset ";
      text.signedNumber(buffer->offsetOf(address));
      described = true;
      break;
    }
    if (!described && ThreadgroupScheduler::isStackGuardPage(address)) {
      text << "stack overflow (each emulated thread has ";
      text.number(g_fiberStackBytes) << " bytes of stack; raise EmulatorOptions::fiberStackBytes)";
      described = true;
    }
    if (!described) {
      text << "kernel crashed with " << (signal == SIGSEGV ? "SIGSEGV" : "SIGBUS")
           << " (invalid memory access at 0x";
      text.number(reinterpret_cast<unsigned long long>(address), 16) << "; address 0 may be a misaligned vector access)";
    }
  } else if (signal == SIGFPE) {
    text << "kernel crashed with SIGFPE (integer division by zero or overflow)";
  } else if (signal == SIGILL || signal == SIGTRAP) {
    text << "kernel crashed with SIGILL (a trap instruction)";
  } else {
    text << "kernel crashed with signal ";
    text.number(static_cast<unsigned>(signal));
  }
  uint32_t position[3];
  uint32_t thread = 0;
  if (ThreadgroupScheduler::currentThread(position, &thread)) {
    text << " by thread ";
    text.number(thread) << " of threadgroup (";
    text.number(position[0]) << ",";
    text.number(position[1]) << ",";
    text.number(position[2]) << ")";
  } else {
    text << " outside any kernel thread";
  }
  g_report->written = 1;
  _exit(kChildCrashed);
}

// Signals are handled on an alternate stack: a fiber that overflowed its own
// stack cannot run the handler.
void installAlternateSignalStack() {
  const size_t bytes = 64 * 1024;
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return;  // the handler then runs on the faulting stack
  stack_t stack{};
  stack.ss_sp = memory;
  stack.ss_size = bytes;
  sigaltstack(&stack, nullptr);
}

void installCrashHandlers() {
  struct sigaction action {};
  action.sa_sigaction = &onCrash;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT}) sigaction(signal, &action, nullptr);
}

[[noreturn]] void runChild(const GridLaunch& launch, const std::vector<std::unique_ptr<GuardedBuffer>>& buffers) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // do not outlive a parent that died
  installCrashHandlers();
  installAlternateSignalStack();
  try {
    runGrid(launch, &installAlternateSignalStack);
    for (const auto& buffer : buffers) {
      const std::string violation = buffer->paddingViolation();
      if (!violation.empty()) {
        SignalSafeText(g_report->text, sizeof g_report->text) << "sanitizer: " << violation.c_str();
        g_report->written = 1;
        _exit(kChildFailed);
      }
    }
    _exit(0);
  } catch (const std::exception& e) {
    SignalSafeText(g_report->text, sizeof g_report->text) << e.what();
  } catch (...) {
    SignalSafeText(g_report->text, sizeof g_report->text) << "emulator: unknown error in the sanitizer's child process";
  }
  g_report->written = 1;
  _exit(kChildFailed);
}

// Waits for the child; kills it after `timeoutSeconds` (0: waits forever).
// Returns the wait status, or throws EmulatorError on a timeout.
int waitForChild(pid_t child, unsigned timeoutSeconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child, &status, timeoutSeconds ? WNOHANG : 0);
    if (done == child) return status;
    if (done < 0 && errno != EINTR)
      throw EmulatorError(std::string("emulator: waiting for the sanitizer's child process failed: ") +
                          std::strerror(errno));
    if (timeoutSeconds && std::chrono::steady_clock::now() >= deadline) {
      kill(child, SIGKILL);
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      throw EmulatorError("sanitizer: kernel did not finish within " + std::to_string(timeoutSeconds) +
                          " s and was stopped (an endless loop, or a spin-wait on another threadgroup?)");
    }
    if (timeoutSeconds) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

void runGridSanitized(const GridLaunch& launch, std::vector<void*> argPointers, const std::vector<ArgSlot>& args,
                      const std::vector<std::string>& bufferNames, unsigned timeoutSeconds) {
  // Arguments whose host memory overlaps (an in-place kernel gets x_ptr == out_ptr)
  // share one guarded copy, so that the kernel sees the aliasing it would on the GPU.
  struct Span {
    char* begin;
    char* end;
    std::string name;
  };
  std::vector<Span> spans;
  std::vector<int> spanOfArg(args.size(), -1);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].isBuffer()) continue;
    char* begin = static_cast<char*>(args[i].data());
    char* end = begin + args[i].bytes();
    int joined = -1;
    for (size_t s = 0; s < spans.size() && args[i].bytes() > 0; ++s) {
      if (begin < spans[s].end && spans[s].begin < end) joined = static_cast<int>(s);
    }
    if (joined < 0) {
      spans.push_back({begin, end, bufferNames[i]});
      joined = static_cast<int>(spans.size()) - 1;
    } else {
      Span& s = spans[joined];
      s.begin = std::min(s.begin, begin);
      s.end = std::max(s.end, end);
      s.name += "/" + bufferNames[i];
    }
    spanOfArg[i] = joined;
  }
  std::vector<std::unique_ptr<GuardedBuffer>> buffers;
  for (const Span& s : spans)
    buffers.push_back(std::make_unique<GuardedBuffer>(s.begin, static_cast<size_t>(s.end - s.begin), s.name));
  for (size_t i = 0; i < args.size(); ++i) {
    if (spanOfArg[i] < 0) continue;
    const Span& s = spans[spanOfArg[i]];
    argPointers[i] = static_cast<char*>(buffers[spanOfArg[i]]->data()) + (static_cast<char*>(args[i].data()) - s.begin);
  }
  void* reportMemory = mmap(nullptr, sizeof(SharedReport), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (reportMemory == MAP_FAILED)
    throw EmulatorError(std::string("emulator: cannot map the sanitizer's report page: ") + std::strerror(errno));
  auto* report = static_cast<SharedReport*>(reportMemory);
  std::unique_ptr<SharedReport, void (*)(SharedReport*)> reportOwner(
      report, [](SharedReport* r) { munmap(r, sizeof(SharedReport)); });
  report->written = 0;
  report->text[0] = 0;

  GridLaunch childLaunch = launch;
  childLaunch.args = argPointers.data();
  g_buffers = &buffers;
  g_report = report;
  g_fiberStackBytes = launch.fiberStackBytes;

  const pid_t child = fork();
  if (child < 0) throw EmulatorError(std::string("emulator: sanitize mode cannot fork: ") + std::strerror(errno));
  if (child == 0) runChild(childLaunch, buffers);

  const int status = waitForChild(child, timeoutSeconds);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    for (size_t s = 0; s < spans.size(); ++s) buffers[s]->copyTo(spans[s].begin);
    return;
  }
  if (report->written) throw EmulatorError(std::string(report->text));
  if (WIFSIGNALED(status))
    throw EmulatorError("sanitizer: the child process running the kernel died from signal " +
                        std::to_string(WTERMSIG(status)));
  throw EmulatorError("sanitizer: the child process running the kernel exited with status " +
                      std::to_string(WEXITSTATUS(status)));
}

}  // namespace tmetal::runtime::emulator
