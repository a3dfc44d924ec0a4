// SPDX-License-Identifier: MIT
// InlineJobSystem and ThreadPool: the job system's two built-in implementations.
#include <mote/core/job_system.h>

#include <algorithm>
#include <atomic>
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
// `generation` and opens the job; a worker joins an open job it has not seen yet by registering in
// `activeWorkers` under the same lock. When the caller runs out of indices it closes the job (no
// late worker can join any more) and waits for the registered workers to leave. So the next
// dispatch never overwrites a job a worker still reads, and every task's writes reach the caller
// through the mutex.
struct ThreadPool::State {
  std::mutex dispatchMutex;  // serialises dispatches from outside the pool's tasks
  std::mutex mutex;          // guards everything below except nextIndex
  std::condition_variable workCv;
  std::condition_variable doneCv;
  TaskFn fn = nullptr;
  void* context = nullptr;
  std::size_t taskCount = 0;
  std::uint64_t generation = 0;
  std::uint32_t activeWorkers = 0;
  bool jobOpen = false;
  bool stopping = false;
  std::atomic<std::size_t> nextIndex{0};
  std::vector<std::jthread> workers;  // declared last: joined by ~ThreadPool before the rest dies

  void workerLoop();
};

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

  std::unique_lock lock(state.mutex);
  state.jobOpen = false;
  state.doneCv.wait(lock, [&state] { return state.activeWorkers == 0; });
}

void ThreadPool::State::workerLoop() {
  tInsideTask = true;
  std::uint64_t seenGeneration = 0;
  std::unique_lock lock(mutex);
  for (;;) {
    workCv.wait(lock, [&] { return stopping || (jobOpen && generation != seenGeneration); });
    if (stopping) return;
    seenGeneration = generation;
    const TaskFn jobFn = fn;
    void* const jobContext = context;
    const std::size_t jobTaskCount = taskCount;
    ++activeWorkers;
    lock.unlock();

    runClaimed(nextIndex, jobTaskCount, jobFn, jobContext);

    lock.lock();
    --activeWorkers;
    // The caller waits only once it has closed the job; before that it will see the count itself.
    if (activeWorkers == 0 && !jobOpen) doneCv.notify_one();
  }
}

}  // namespace mote
