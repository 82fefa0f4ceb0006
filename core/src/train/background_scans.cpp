// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "background_scans.h"

#include <algorithm>
#include <omp.h>
#include <pthread.h>
#include <sched.h>

namespace mantissa::train {
namespace {

// ~10-15 us of counting: how long a product may wait for the cores.
constexpr std::size_t kPiece = std::size_t{1} << 15;
// Values still queued at wait() per thread of the team that takes them.
constexpr std::size_t kTeamMin = std::size_t{1} << 18;

} // namespace

BackgroundScans::~BackgroundScans() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
    m_queue.clear();
  }
  m_wake.notify_all();
  if (m_thread.joinable())
    m_thread.join();
}

void BackgroundScans::post(const Task& task) {
  if (task.values.empty())
    return;
  {
    std::lock_guard lock(m_mutex);
    m_queue.push_back(task);
    if (!m_thread.joinable()) {
      m_thread = std::thread([this] { run(); });
      if (m_idlePriority)
        setIdle(true);
    }
  }
  m_wake.notify_one();
}

bool BackgroundScans::take(Piece& piece) {
  if (m_queue.empty())
    return false;
  const Task& front = m_queue.front();
  const std::size_t n = std::min(kPiece, front.values.size() - m_taken);
  piece = Piece{front.values.subspan(m_taken, n), front.into};
  m_taken += n;
  if (m_taken == front.values.size()) {
    m_queue.pop_front();
    m_taken = 0;
  }
  ++m_inFlight;
  return true;
}

void BackgroundScans::count(std::unique_lock<std::mutex>& lock, const Piece& piece) {
  telemetry::TensorScan counts;
  counts.view = piece.into->view; // the collector's cast formats (emptyScan())
  lock.unlock();
  telemetry::scanInto(piece.values, counts);
  lock.lock();
  *piece.into += counts;
  --m_inFlight;
  m_done.notify_all();
}

void BackgroundScans::wait() {
  std::unique_lock lock(m_mutex);
  Piece piece;
  // At idle priority with much still queued (the thread found little idle
  // time): the calling thread's OpenMP team takes the pieces, as a frame
  // counted in one pass would.
  std::size_t queued = 0;
  for (const Task& t : m_queue)
    queued += t.values.size();
  if (m_idlePriority && queued - m_taken >= 2 * kTeamMin && omp_get_max_threads() > 1 &&
      omp_in_parallel() == 0) {
    lock.unlock();
#pragma omp parallel num_threads(2)
    {
      std::unique_lock mine(m_mutex);
      Piece p;
      while (take(p))
        count(mine, p);
    }
    lock.lock();
  }
  while (take(piece))
    count(lock, piece);
  if (m_inFlight == 0)
    return;
  // A piece still being counted at idle priority could wait behind any
  // other work on its core: at normal priority it ends within its ~10 us.
  if (m_idlePriority)
    setIdle(false);
  m_done.wait(lock, [&] { return m_inFlight == 0; });
  if (m_idlePriority)
    setIdle(true);
}

bool BackgroundScans::idle() const {
  std::lock_guard lock(m_mutex);
  return m_queue.empty() && m_inFlight == 0;
}

int BackgroundScans::threadPolicy() const {
  std::lock_guard lock(m_mutex);
  if (!m_thread.joinable())
    return -1;
  int policy = -1;
  sched_param param{};
  if (pthread_getschedparam(const_cast<std::thread&>(m_thread).native_handle(), &policy, &param) !=
      0)
    return -1;
  return policy;
}

void BackgroundScans::enter() {
  std::lock_guard lock(m_mutex);
  ++m_products;
}

void BackgroundScans::leave() {
  bool resume = false;
  {
    std::lock_guard lock(m_mutex);
    resume = --m_products == 0 && !m_queue.empty();
  }
  if (resume)
    m_wake.notify_one();
}

void BackgroundScans::setIdle(bool idle) {
  // Best effort: at another priority the counts are the same.
  const sched_param none{};
  (void)pthread_setschedparam(m_thread.native_handle(), idle ? SCHED_IDLE : SCHED_OTHER, &none);
}

void BackgroundScans::run() {
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_wake.wait(lock, [&] { return m_stop || (m_products == 0 && !m_queue.empty()); });
    if (m_stop)
      return;
    Piece piece;
    if (take(piece))
      count(lock, piece);
  }
}

} // namespace mantissa::train
