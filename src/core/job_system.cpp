// SPDX-License-Identifier: MIT
// InlineJobSystem and ThreadPool: the job system's two built-in implementations.
#include <mote/core/job_system.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace mote {
namespace {

// True while this thread runs tasks of a ThreadPool (always, on worker threads). A dispatch() made
// then runs inline: a worker blocking on a nested dispatch could otherwise wait for itself.
thread_local bool tInsideTask = false;

void runInline(std::size_t taskCount, TaskFn fn, void* context) {
  for (std::size_t i = 0; i < taskCount; ++i)
    fn(context, i);
}

// Claims indices until none are left. Relaxed is enough: fetch_add alone makes each index unique,
// and the task data is published and collected through the pool mutex.
void runClaimed(std::atomic<std::size_t>& nextIndex, std::size_t taskCount, TaskFn fn,
                void* context) {
  for (;;) {
    const std::size_t i = nextIndex.fetch_add(1, std::memory_order_relaxed);
    if (i >= taskCount) return;
    fn(context, i);
  }
}

}  // namespace

void InlineJobSystem::dispatch(std::size_t taskCount, TaskFn fn, void* context) {
  if (taskCount == 0) return;
  MOTE_ASSERT(fn != nullptr, "dispatch needs a task function");
  runInline(taskCount, fn, context);
}

// The pool's shared state. A dispatch publishes (fn, context, taskCount) under `mutex`, bumps
// `generation` and opens the job; a worker joins an open job it has not seen yet by counting
// itself in `running` under the same lock. When the caller runs out of indices it closes the job
// (no late worker can join any more) and waits for `running` to fall to 0: a worker leaves once
// its last claim found no index, and touches no job state after. So the next dispatch never
// overwrites a job a worker still reads, and every task's writes reach the caller through
// `running` (release, then acquire).
//
// Both sides spin briefly before sleeping (kSpin): a worker for the next job, the caller for the
// workers to finish. A tick dispatches jobs back to back, and a futex wake-up costs tens of
// microseconds on a virtual machine — a tenth of a 100,000-particle step.
struct ThreadPool::State {
  std::mutex dispatchMutex;  // serialises dispatches from outside the pool's tasks
  std::mutex mutex;          // guards everything below except the atomics
  std::condition_variable workCv;
  std::condition_variable doneCv;
  TaskFn fn = nullptr;
  void* context = nullptr;
  std::size_t taskCount = 0;
  std::uint64_t generation = 0;
  bool jobOpen = false;
  bool stopping = false;
  std::atomic<std::uint64_t> announced{0};  // `generation`, for the spinning workers
  std::atomic<std::uint32_t> running{0};    // workers inside a job
  std::atomic<std::size_t> nextIndex{0};
  std::vector<std::jthread> workers;  // declared last: joined by ~ThreadPool before the rest dies

  void workerLoop();
};

// How long a thread polls before it sleeps on a condition variable.
constexpr auto kSpin = std::chrono::microseconds(50);

// Polls done() (yielding the core between polls) for up to kSpin; true once it holds.
template <class Done>
bool spinUntil(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (std::uint32_t polls = 1;; ++polls) {
    if (done()) return true;
    if (polls % 16 == 0 && std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::yield();
  }
}

Result<std::unique_ptr<ThreadPool>> ThreadPool::create(std::uint32_t threadCount) {
  if (threadCount > kMaxThreads) {
    return invalidArgument("ThreadPool threadCount " + std::to_string(threadCount) +
                           " is above the maximum of " + std::to_string(kMaxThreads));
  }
  if (threadCount == 0) {
    threadCount = std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
  }
  std::unique_ptr<ThreadPool> pool(new ThreadPool(threadCount));
  State& state = *pool->state_;
  state.workers.reserve(threadCount - 1);
  try {
    for (std::uint32_t i = 1; i < threadCount; ++i) {
      state.workers.emplace_back([&state] { state.workerLoop(); });
    }
  } catch (const std::system_error& error) {
    // ~ThreadPool joins the workers already started.
    return Status(StatusCode::Internal,
                  std::string("ThreadPool could not start a worker thread: ") + error.what());
  }
  return pool;
}

ThreadPool::ThreadPool(std::uint32_t threadCount)
    : state_(std::make_unique<State>()), threadCount_(threadCount) {}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(state_->mutex);
    MOTE_ASSERT(!state_->jobOpen, "ThreadPool destroyed during a dispatch");
    state_->stopping = true;
  }
  state_->workCv.notify_all();
  state_->workers.clear();  // joins
}

std::uint32_t ThreadPool::concurrency() const noexcept {
  return threadCount_;
}

void ThreadPool::dispatch(std::size_t taskCount, TaskFn fn, void* context) {
  if (taskCount == 0) return;
  MOTE_ASSERT(fn != nullptr, "dispatch needs a task function");
  State& state = *state_;
  if (tInsideTask || taskCount == 1 || state.workers.empty()) {
    runInline(taskCount, fn, context);
    return;
  }

  std::lock_guard serial(state.dispatchMutex);
  {
    std::lock_guard lock(state.mutex);
    state.fn = fn;
    state.context = context;
    state.taskCount = taskCount;
    state.nextIndex.store(0, std::memory_order_relaxed);
    ++state.generation;
    state.jobOpen = true;
    state.announced.store(state.generation, std::memory_order_release);
  }
  // Wake only as many workers as there are tasks beyond the caller's first one.
  const std::size_t helpers = std::min(taskCount - 1, state.workers.size());
  if (helpers == state.workers.size()) {
    state.workCv.notify_all();
  } else {
    for (std::size_t i = 0; i < helpers; ++i)
      state.workCv.notify_one();
  }

  tInsideTask = true;
  runClaimed(state.nextIndex, taskCount, fn, context);
  tInsideTask = false;

  const auto finished = [&state] { return state.running.load(std::memory_order_acquire) == 0; };
  spinUntil(finished);
  std::unique_lock lock(state.mutex);
  state.jobOpen = false;
  state.doneCv.wait(lock, finished);
}

void ThreadPool::State::workerLoop() {
  tInsideTask = true;
  std::uint64_t seenGeneration = 0;
  for (;;) {
    spinUntil([&] { return announced.load(std::memory_order_acquire) != seenGeneration; });
    std::unique_lock lock(mutex);
    workCv.wait(lock, [&] { return stopping || (jobOpen && generation != seenGeneration); });
    if (stopping) return;
    seenGeneration = generation;
    const TaskFn jobFn = fn;
    void* const jobContext = context;
    const std::size_t jobTaskCount = taskCount;
    running.fetch_add(1, std::memory_order_relaxed);  // under the lock: the job is open
    lock.unlock();

    runClaimed(nextIndex, jobTaskCount, jobFn, jobContext);

    if (running.fetch_sub(1, std::memory_order_release) == 1) {
      // The caller may be between its check and its wait: taking the lock orders the two.
      { std::lock_guard sync(mutex); }
      doneCv.notify_one();
    }
  }
}

}  // namespace mote
