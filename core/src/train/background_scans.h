// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Telemetry counts taken on a thread of their own while the model runs on
// one core (private to train).
//
// A training step leaves the second core idle whenever the model runs on one
// thread: the casts, bias and activation kernels, the loss, the gradient
// norm. Tensors that nothing changes before the step's next
// wait() are posted here and counted (telemetry::scanInto) piece by piece on
// a thread started at the first post(). While the model runs a product on
// both cores (enter() .. leave(), told by model::Mlp), no new piece starts:
// the product gets the cores back within one piece. At idle priority (a
// model's that does not tell its products) the scheduler does that instead.
// wait() counts the pieces still queued on the calling thread too (with its
// OpenMP team, at idle priority, when much is left), and returns once every
// posted tensor is counted.

#include <mantissa/model/mlp.h>
#include <mantissa/telemetry/tensor_scan.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <span>
#include <thread>

namespace mantissa::train {

class BackgroundScans final : public model::ParallelSections {
public:
  struct Task {
    std::span<const float> values;
    telemetry::TensorScan* into; // += the counts of values; untouched by the caller until wait()
  };

  // idlePriority: the thread runs under SCHED_IDLE (Linux), so that it only
  // takes time a core would otherwise idle: any other thread that wakes on
  // its core (an OpenMP worker starting a product) preempts it at once.
  explicit BackgroundScans(bool idlePriority = false) : m_idlePriority(idlePriority) {}
  // Before the first post(): the same choice, made once the model is known.
  void setIdlePriority(bool idle) { m_idlePriority = idle; }
  ~BackgroundScans() override; // drops what is still queued, joins the thread
  BackgroundScans(const BackgroundScans&) = delete;
  BackgroundScans& operator=(const BackgroundScans&) = delete;

  void post(const Task& task);
  void wait();
  bool idle() const;
  // The thread's scheduling policy (SCHED_IDLE, SCHED_OTHER, ...); -1 before
  // the first post() starts it.
  int threadPolicy() const;

  void enter() override;
  void leave() override;

private:
  struct Piece {
    std::span<const float> values;
    telemetry::TensorScan* into = nullptr;
  };
  // The next piece of the front task (false: none queued); call with the lock held.
  bool take(Piece& piece);
  // Counts `piece` unlocked and adds its counts under the lock.
  void count(std::unique_lock<std::mutex>& lock, const Piece& piece);
  void run();
  void setIdle(bool idle); // the thread's policy: SCHED_IDLE or SCHED_OTHER

  mutable std::mutex m_mutex;
  std::condition_variable m_wake; // work queued, a product ended, or stop
  std::condition_variable m_done; // a piece was counted
  std::deque<Task> m_queue;
  std::size_t m_taken = 0;    // values of the front task handed out
  std::size_t m_inFlight = 0; // pieces being counted
  int m_products = 0;         // enter() - leave()
  bool m_stop = false;
  bool m_idlePriority = false;
  std::thread m_thread;
};

} // namespace mantissa::train
