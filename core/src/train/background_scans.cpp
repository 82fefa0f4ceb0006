// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "background_scans.h"

#include <algorithm>

namespace mantissa::train {
namespace {

// ~10-15 us of counting: how long a product may wait for the cores.
constexpr std::size_t kPiece = std::size_t{1} << 15;

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
    if (!m_thread.joinable())
      m_thread = std::thread([this] { run(); });
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
  lock.unlock();
  telemetry::TensorScan counts;
  telemetry::scanInto(piece.values, counts);
  lock.lock();
  *piece.into += counts;
  --m_inFlight;
  m_done.notify_all();
}

void BackgroundScans::wait() {
  std::unique_lock lock(m_mutex);
  Piece piece;
  while (take(piece))
    count(lock, piece);
  m_done.wait(lock, [&] { return m_inFlight == 0; });
}

bool BackgroundScans::idle() const {
  std::lock_guard lock(m_mutex);
  return m_queue.empty() && m_inFlight == 0;
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
