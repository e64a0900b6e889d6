#include "tmetal/runtime/emulator/threadgroup_scheduler.h"

#include <algorithm>
#include <boost/context/fiber.hpp>
#include <cstring>
#include <exception>
#include <map>
#include <tuple>

#include "tmetal/runtime/emulator/emulator.h"

namespace ctx = boost::context;

namespace tmetal::runtime::emulator {

enum class ThreadState { Ready, Running, AtBarrier, AtCollective, Exited };

struct ThreadgroupScheduler::Thread {
  ThreadState state = ThreadState::Ready;
  tmetal_emu_abi::ThreadBuiltins builtins{};
  ctx::fiber fiber;      // resumes this thread
  ctx::fiber scheduler;  // inside this thread: resumes the scheduler
  // Where the thread waits (AtBarrier, AtCollective).
  const char* op = nullptr;
  int line = 0;
  int site = 0;
  tmetal_emu_abi::CollectiveCombine combine = nullptr;
  uint32_t depositBytes = 0;
  uint32_t resultBytes = 0;
};

// Every lane's deposit and result of the SIMD group's current collective.
struct ThreadgroupScheduler::SimdGroupExchange {
  static constexpr uint32_t kMaxLanes = 64;
  alignas(64) unsigned char deposits[kMaxLanes * tmetal_emu_abi::kMaxCollectiveDepositBytes];
  alignas(64) unsigned char results[kMaxLanes * tmetal_emu_abi::kMaxCollectiveResultBytes];
};

namespace {

// The scheduler running a threadgroup on this OS thread; the hooks find it here.
thread_local ThreadgroupScheduler* tl_activeScheduler = nullptr;

void barrierHook(int line, int site) { tl_activeScheduler->arriveAtBarrier(line, site); }
void collectiveHook(const tmetal_emu_abi::CollectiveCall* call) { tl_activeScheduler->arriveAtCollective(*call); }

const tmetal_emu_abi::Hooks kHooks = {TMETAL_EMULATOR_ABI_VERSION, &barrierHook, &collectiveHook};

// Hands Boost.Context the preallocated stack of one fiber; the pool owns it.
struct PooledStack {
  void* top;
  size_t size;
  ctx::stack_context allocate() {
    ctx::stack_context stack;
    stack.sp = top;
    stack.size = size;
    return stack;
  }
  void deallocate(ctx::stack_context&) noexcept {}
};

// "[0-15, 17, 20-31]"
std::string rangeList(const std::vector<uint32_t>& sorted) {
  std::string out = "[";
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (i > 0) out += ", ";
    out += std::to_string(sorted[i]);
    if (j > i) out += "-" + std::to_string(sorted[j]);
    i = j + 1;
  }
  return out + "]";
}

}  // namespace

const tmetal_emu_abi::Hooks& emulatorHooks() { return kHooks; }

ThreadgroupScheduler::ThreadgroupScheduler(const GridLaunch& launch)
    : launch_(launch),
      simdGroups_((launch.threadsPerThreadgroup + launch.simdWidth - 1) / launch.simdWidth),
      stacks_(launch.threadsPerThreadgroup, launch.fiberStackBytes),
      threads_(launch.threadsPerThreadgroup),
      exchanges_(simdGroups_) {}

ThreadgroupScheduler::~ThreadgroupScheduler() { destroyFibers(); }

std::string ThreadgroupScheduler::positionText() const {
  return "(" + std::to_string(position_[0]) + "," + std::to_string(position_[1]) + "," +
         std::to_string(position_[2]) + ")";
}

std::string ThreadgroupScheduler::where(int line) const { return launch_.sourceName + ":" + std::to_string(line); }

void ThreadgroupScheduler::fail(std::string message) {
  if (!failed_) failure_ = std::move(message);
  failed_ = true;
}

void ThreadgroupScheduler::yieldToScheduler(Thread& thread) {
  thread.scheduler = std::move(thread.scheduler).resume();
}

// Destroying a suspended fiber unwinds its stack (Boost.Context throws
// forced_unwind inside it), so no frame of an abandoned thread is left behind.
void ThreadgroupScheduler::destroyFibers() {
  ThreadgroupScheduler* previous = tl_activeScheduler;
  tl_activeScheduler = this;
  for (Thread& t : threads_) t.fiber = ctx::fiber();
  tl_activeScheduler = previous;
}

void ThreadgroupScheduler::startThreads() {
  const uint32_t n = launch_.threadsPerThreadgroup;
  const uint32_t width = launch_.simdWidth;
  for (uint32_t i = 0; i < n; ++i) {
    Thread& t = threads_[i];
    t.state = ThreadState::Ready;
    t.op = nullptr;
    tmetal_emu_abi::ThreadBuiltins& b = t.builtins;
    for (int d = 0; d < 3; ++d) {
      b.threadgroup_position_in_grid[d] = position_[d];
      b.threadgroups_per_grid[d] = launch_.grid[d];
      b.thread_position_in_threadgroup[d] = d == 0 ? i : 0;
      b.threads_per_threadgroup[d] = d == 0 ? n : 1;
      b.thread_position_in_grid[d] = position_[d] * b.threads_per_threadgroup[d] + b.thread_position_in_threadgroup[d];
      b.threads_per_grid[d] = launch_.grid[d] * b.threads_per_threadgroup[d];
    }
    b.thread_index_in_threadgroup = i;
    b.thread_index_in_simdgroup = i % width;
    b.simdgroup_index_in_threadgroup = i / width;
    b.simdgroups_per_threadgroup = simdGroups_;
    b.threads_per_simdgroup = width;
    t.fiber = ctx::fiber(std::allocator_arg, PooledStack{stacks_.top(i), stacks_.stackBytes()},
                         [this, i](ctx::fiber&& scheduler) {
                           Thread& self = threads_[i];
                           self.scheduler = std::move(scheduler);
                           try {
                             launch_.entry(launch_.args, &self.builtins);
                           } catch (const ctx::detail::forced_unwind&) {
                             throw;  // the scheduler abandons this thread; let Boost unwind it
                           } catch (const std::exception& e) {
                             fail(std::string("emulator: a kernel thread threw: ") + e.what());
                           } catch (...) {
                             fail("emulator: a kernel thread threw an unknown exception");
                           }
                           self.state = ThreadState::Exited;
                           ++exitedCount_;
                           return std::move(self.scheduler);
                         });
  }
}

void ThreadgroupScheduler::run(const std::array<uint32_t, 3>& position) {
  position_ = position;
  failed_ = false;
  failure_.clear();
  readyCount_ = launch_.threadsPerThreadgroup;
  exitedCount_ = 0;
  tl_activeScheduler = this;
  startThreads();
  const uint32_t n = launch_.threadsPerThreadgroup;
  while (!failed_ && exitedCount_ < n) {
    for (uint32_t i = 0; i < n && !failed_; ++i) {
      Thread& t = threads_[i];
      if (t.state != ThreadState::Ready) continue;
      t.state = ThreadState::Running;
      --readyCount_;
      current_ = i;
      running_ = true;
      t.fiber = std::move(t.fiber).resume();
      running_ = false;
    }
    if (!failed_ && readyCount_ == 0 && exitedCount_ < n) resolveQuiescence();
  }
  if (failed_) {
    destroyFibers();
    tl_activeScheduler = nullptr;
    throw EmulatorError(failure_);
  }
  tl_activeScheduler = nullptr;
}

void ThreadgroupScheduler::arriveAtBarrier(int line, int site) {
  Thread& t = threads_[current_];
  t.state = ThreadState::AtBarrier;
  t.op = "threadgroup_barrier";
  t.line = line;
  t.site = site;
  t.combine = nullptr;
  yieldToScheduler(t);
}

void ThreadgroupScheduler::arriveAtCollective(const tmetal_emu_abi::CollectiveCall& call) {
  const uint32_t me = current_;
  Thread& t = threads_[me];
  const uint32_t width = launch_.simdWidth;
  const uint32_t group = me / width;
  const uint32_t lane = me % width;
  const uint32_t first = group * width;
  const uint32_t lanes = std::min(width, launch_.threadsPerThreadgroup - first);
  SimdGroupExchange& exchange = exchanges_[group];
  if (call.depositBytes > tmetal_emu_abi::kMaxCollectiveDepositBytes ||
      call.resultBytes > tmetal_emu_abi::kMaxCollectiveResultBytes) {
    fail(std::string(call.op) + " at " + where(call.line) + ": value too large for a SIMD-group function");
    yieldToScheduler(t);  // never resumed: the scheduler unwinds this thread
  }
  t.state = ThreadState::AtCollective;
  t.op = call.op;
  t.line = call.line;
  t.site = call.site;
  t.combine = call.combine;
  t.depositBytes = call.depositBytes;
  t.resultBytes = call.resultBytes;
  std::memcpy(exchange.deposits + lane * call.depositBytes, call.deposit, call.depositBytes);

  bool everyLaneHere = true;
  for (uint32_t l = 0; l < lanes && everyLaneHere; ++l) {
    const Thread& other = threads_[first + l];
    everyLaneHere = other.state == ThreadState::AtCollective && other.site == t.site && other.combine == t.combine &&
                    other.depositBytes == t.depositBytes && std::strcmp(other.op, t.op) == 0;
  }
  if (everyLaneHere) {
    char error[tmetal_emu_abi::kCollectiveErrorBytes] = {};
    if (call.combine(exchange.deposits, exchange.results, lanes, width, error) != 0) {
      fail(std::string(call.op) + " at " + where(call.line) + " in SIMD group " + std::to_string(group) +
           " of threadgroup " + positionText() + ": " + error);
      yieldToScheduler(t);  // never resumed: the scheduler unwinds this thread
    }
    for (uint32_t l = 0; l < lanes; ++l) {
      Thread& other = threads_[first + l];
      if (first + l == me) continue;
      other.state = ThreadState::Ready;
      ++readyCount_;
    }
    t.state = ThreadState::Running;
  } else {
    yieldToScheduler(t);
  }
  std::memcpy(call.result, exchange.results + lane * call.resultBytes, call.resultBytes);
}

// Nothing can run: every live thread waits at a barrier or a SIMD-group function.
void ThreadgroupScheduler::resolveQuiescence() {
  const uint32_t n = launch_.threadsPerThreadgroup;
  for (uint32_t i = 0; i < n; ++i) {
    if (threads_[i].state == ThreadState::AtCollective) {
      fail(collectiveDivergence(i));
      return;
    }
  }
  bool oneBarrier = true;
  int site = -1;
  for (uint32_t i = 0; i < n; ++i) {
    if (threads_[i].state != ThreadState::AtBarrier) continue;
    if (site == -1) site = threads_[i].site;
    oneBarrier = oneBarrier && threads_[i].site == site;
  }
  if (exitedCount_ > 0 || !oneBarrier) {
    fail(barrierDivergence());
    return;
  }
  for (Thread& t : threads_) t.state = ThreadState::Ready;
  readyCount_ = n;
}

std::string ThreadgroupScheduler::barrierDivergence() const {
  // Threads grouped by where they are, in order of their first thread.
  std::vector<std::pair<std::string, std::vector<uint32_t>>> groups;
  std::map<std::tuple<int, int>, size_t> index;  // (site, or -1 for exited) -> group
  for (uint32_t i = 0; i < launch_.threadsPerThreadgroup; ++i) {
    const Thread& t = threads_[i];
    const bool exited = t.state == ThreadState::Exited;
    const auto key = std::make_tuple(exited ? -1 : t.site, exited ? 0 : t.line);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, groups.size()).first;
      groups.push_back({exited ? std::string("exited") : "reached the barrier at " + where(t.line), {}});
    }
    groups[it->second].second.push_back(i);
  }
  std::string message = "threadgroup_barrier divergence in threadgroup " + positionText() + ": ";
  for (size_t g = 0; g < groups.size(); ++g)
    message += (g ? ", threads " : "threads ") + rangeList(groups[g].second) + " " + groups[g].first;
  return message;
}

std::string ThreadgroupScheduler::collectiveDivergence(uint32_t thread) const {
  const Thread& waiting = threads_[thread];
  const uint32_t width = launch_.simdWidth;
  const uint32_t group = thread / width;
  const uint32_t first = group * width;
  const uint32_t lanes = std::min(width, launch_.threadsPerThreadgroup - first);
  std::vector<uint32_t> called;
  std::vector<uint32_t> missing;
  // The lanes that did not call it, grouped by where they are instead.
  std::vector<std::pair<std::string, std::vector<uint32_t>>> elsewhere;
  std::map<std::tuple<int, int>, size_t> index;
  for (uint32_t l = 0; l < lanes; ++l) {
    const Thread& t = threads_[first + l];
    if (t.state == ThreadState::AtCollective && t.site == waiting.site && std::strcmp(t.op, waiting.op) == 0) {
      called.push_back(l);
      continue;
    }
    missing.push_back(l);
    const bool exited = t.state == ThreadState::Exited;
    const auto key = std::make_tuple(exited ? -1 : t.site, exited ? 0 : t.line);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, elsewhere.size()).first;
      elsewhere.push_back({exited ? std::string("exited") : std::string("wait at ") + t.op + " (" + where(t.line) + ")", {}});
    }
    elsewhere[it->second].second.push_back(l);
  }
  std::string message = std::string(waiting.op) + " called by lanes " + rangeList(called) + " of SIMD group " +
                        std::to_string(group) + " in threadgroup " + positionText() + " but not by lanes " +
                        rangeList(missing) + " (" + where(waiting.line);
  for (const auto& [state, list] : elsewhere) message += "; lanes " + rangeList(list) + " " + state;
  return message + ")";
}

bool ThreadgroupScheduler::currentThread(uint32_t position[3], uint32_t* threadIndex) {
  const ThreadgroupScheduler* s = tl_activeScheduler;
  if (s == nullptr || !s->running_) return false;
  for (int d = 0; d < 3; ++d) position[d] = s->position_[d];
  *threadIndex = s->current_;
  return true;
}

bool ThreadgroupScheduler::isStackGuardPage(const void* address) {
  const ThreadgroupScheduler* s = tl_activeScheduler;
  return s != nullptr && s->stacks_.isGuardPage(address);
}

}  // namespace tmetal::runtime::emulator
