// SPDX-License-Identifier: MIT
// JobSystem: the task-dispatch interface the runtime runs on, parallelFor, and the default thread
// pool.
#pragma once

#include <mote/core/assert.h>
#include <mote/core/status.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace mote {

/// A task body, called as fn(context, taskIndex). A plain function pointer plus a context pointer,
/// so handing work to a JobSystem never allocates (no std::function). Tasks must not throw.
using TaskFn = void (*)(void* context, std::size_t taskIndex);

/// Where the runtime sends parallel work (ARCHITECTURE §4.4). A game may implement it on its own
/// scheduler; Mote ships InlineJobSystem and ThreadPool.
///
/// Contract for implementations: dispatch() runs fn(context, i) exactly once for every i in
/// [0, taskCount), on any threads and in any order, and returns only when all have finished (their
/// writes are visible to the caller). It must complete when called from inside a task (e.g. by
/// running the nested tasks inline) and must not allocate in steady state.
class JobSystem {
 public:
  virtual ~JobSystem() = default;

  /// Number of threads that may run tasks of one dispatch at the same time, the calling thread
  /// included. Always >= 1. Thread safety: any thread. Complexity: O(1). Allocates: never.
  virtual std::uint32_t concurrency() const noexcept = 0;

  /// Runs fn(context, i) for every i in [0, taskCount) and returns when all have finished.
  /// taskCount 0 returns at once; otherwise fn must not be null (MOTE_ASSERT). `context` is
  /// borrowed for the duration of the call. Complexity: O(taskCount) task calls. Allocates: never
  /// (ThreadPool, InlineJobSystem).
  virtual void dispatch(std::size_t taskCount, TaskFn fn, void* context) = 0;
};

/// Number of chunks parallelFor cuts [0, count) into: ceil(count / chunkSize). Requires
/// chunkSize > 0. Complexity: O(1). Allocates: never.
constexpr std::size_t parallelForChunkCount(std::size_t count, std::size_t chunkSize) noexcept {
  return count / chunkSize + (count % chunkSize != 0 ? 1 : 0);
}

/// Deterministic partitioning: cuts [0, count) into the fixed chunks
///   [k * chunkSize, min((k + 1) * chunkSize, count)),  k in [0, parallelForChunkCount(...)),
/// whatever the thread count, and calls body(begin, end) exactly once per chunk, possibly on
/// several threads at once. A computation that writes only its own chunk's outputs (or one result
/// slot per chunk index, begin / chunkSize, combined in chunk order afterwards) is therefore
/// bit-identical for any JobSystem and thread count. count 0 calls nothing; chunkSize 0 is a
/// contract violation (MOTE_ASSERT; nothing runs when asserts are off).
///
/// `body` is borrowed for the call and invoked through a small trampoline over JobSystem::dispatch,
/// so it must be safe to call concurrently from several threads. Complexity: O(chunk count) calls.
/// Allocates: never (beyond what `jobs` and `body` allocate).
template <typename Body>
void parallelFor(JobSystem& jobs, std::size_t count, std::size_t chunkSize, Body&& body) {
  MOTE_ASSERT(chunkSize != 0, "parallelFor needs a chunkSize > 0");
  if (count == 0 || chunkSize == 0) return;

  struct Range {
    std::remove_reference_t<Body>* body;
    std::size_t count;
    std::size_t chunkSize;
  };
  Range range{std::addressof(body), count, chunkSize};
  jobs.dispatch(
      parallelForChunkCount(count, chunkSize),
      [](void* context, std::size_t chunk) {
        const Range& r = *static_cast<const Range*>(context);
        const std::size_t begin = chunk * r.chunkSize;
        // count - begin rather than (chunk + 1) * chunkSize: the latter can overflow near SIZE_MAX.
        const std::size_t end =
            begin + (r.count - begin < r.chunkSize ? r.count - begin : r.chunkSize);
        (*r.body)(begin, end);
      },
      &range);
}

/// Runs every task on the calling thread, in index order. concurrency() == 1. Stateless: one object
/// may be used from any number of threads at once. Nested dispatch simply recurses.
class InlineJobSystem final : public JobSystem {
 public:
  /// Returns 1. Complexity: O(1). Allocates: never.
  std::uint32_t concurrency() const noexcept override { return 1; }
  /// Calls fn(context, 0), fn(context, 1), ... in order. Complexity: O(taskCount). Allocates:
  /// never.
  void dispatch(std::size_t taskCount, TaskFn fn, void* context) override;
};

/// The default pool: threadCount - 1 worker threads (std::jthread) plus the thread that calls
/// dispatch(), which runs tasks too. Threads claim task indices from an atomic counter. Workers
/// sleep on a condition variable between dispatches and are created only here (ARCHITECTURE §4.4).
///
/// Thread safety: dispatch() may be called from any number of threads; calls from outside the
/// pool's tasks are serialised (one dispatch runs at a time). A dispatch() made from inside a task
/// — of this pool or of any other ThreadPool — runs its tasks inline, serially on the calling
/// thread, so nested parallelism never deadlocks. Destroying the pool while a dispatch() is running
/// is a contract violation. Not copyable or movable (own it through the unique_ptr create()
/// returns).
class ThreadPool final : public JobSystem {
 public:
  /// The largest accepted threadCount.
  static constexpr std::uint32_t kMaxThreads = 256;

  /// Starts a pool of threadCount threads in total (threadCount - 1 workers). threadCount must be
  /// in [1, kMaxThreads]; 0 means std::thread::hardware_concurrency() clamped to [1, kMaxThreads].
  /// Returns InvalidArgument when threadCount > kMaxThreads, Internal when the system refuses to
  /// start a thread. Complexity: O(threadCount). Allocates: the pool, its shared state and the
  /// workers.
  static Result<std::unique_ptr<ThreadPool>> create(std::uint32_t threadCount = 0);

  /// Wakes the workers, asks them to stop and joins them. Complexity: O(threadCount).
  ~ThreadPool() override;

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ThreadPool(ThreadPool&&) = delete;
  ThreadPool& operator=(ThreadPool&&) = delete;

  /// The thread count given to create() (after resolving 0). Complexity: O(1). Allocates: never.
  std::uint32_t concurrency() const noexcept override;

  /// See JobSystem::dispatch. Runs inline on the caller when taskCount is 1, when the pool has no
  /// workers, or when called from inside a task. Otherwise wakes up to taskCount - 1 workers and
  /// blocks until every task has finished. A worker polls for the next job, and the caller for the
  /// workers to finish, for up to 50 µs (yielding the core between polls) before sleeping: jobs
  /// dispatched back to back skip the wake-up. Complexity: O(taskCount / concurrency()) task calls
  /// on the caller, plus a wake-up per sleeping worker used. Allocates: never.
  void dispatch(std::size_t taskCount, TaskFn fn, void* context) override;

 private:
  struct State;

  explicit ThreadPool(std::uint32_t threadCount);

  std::unique_ptr<State> state_;
  std::uint32_t threadCount_;
};

}  // namespace mote
