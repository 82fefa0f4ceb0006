// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Mailbox: the single crossing between the training thread and the GUI thread.
//
// The producer (trainer) publishes immutable snapshots (the latest replaces
// the previous one: the GUI only ever wants the newest picture) and appends
// scalar rows (one per step) to a bounded ring, so a stalled consumer costs
// bounded memory and the producer never waits for it. When the ring is full:
//   - a Row type that can coalesce (CoalescingRow: `bool absorb(Row&& next)`
//     merges the row that follows it into itself, keeping whatever the row
//     type must not lose, e.g. min/max/last of each scalar and every event)
//     has the ring halved by merging neighbours pairwise, as History does
//     with its buckets: nothing is lost, older rows just cover more steps;
//   - any other Row, or rows that refuse to merge, lose the oldest row,
//     counted in droppedRows.
// The consumer drains at its own
// pace: drain() swaps the ring out under a short lock and does the ordering
// work after releasing it. Only shared_ptr<const Snapshot> and plain rows
// cross; never widgets, never mutable shared state.
//
// PublishThrottle is the producer's side of the pacing: publish a snapshot
// when N steps have passed or at least 50 ms, whichever comes first (and
// always for the last step), so a fast trainer does not flood the GUI.

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mantissa::telemetry {

// absorb(next) folds `next` (the row right after *this) into *this and
// returns true, or returns false and leaves both rows untouched.
template <class Row>
concept CoalescingRow = requires(Row& row, Row&& next) {
  { row.absorb(std::move(next)) } -> std::same_as<bool>;
};

template <class Snapshot, class Row> class Mailbox {
public:
  // What one drain() hands over.
  struct Drained {
    std::shared_ptr<const Snapshot>
        snapshot;                  // newest, or nullptr if none published since the last drain
    std::vector<Row> rows;         // oldest first; at most capacity()
    std::uint64_t droppedRows = 0; // rows lost to the bound since the last drain
    std::uint64_t coalescedRows = 0; // rows merged into a neighbour since the last drain
  };

  // rowCapacity >= 1; throws std::invalid_argument otherwise.
  explicit Mailbox(std::size_t rowCapacity) : m_capacity(rowCapacity) {
    if (rowCapacity == 0)
      throw std::invalid_argument("Mailbox: row capacity must be at least 1");
    m_rows.reserve(rowCapacity);
  }

  std::size_t capacity() const { return m_capacity; }

  // Producer: replace the latest snapshot (nullptr is ignored).
  void publish(std::shared_ptr<const Snapshot> snapshot) {
    if (!snapshot)
      return;
    std::lock_guard lock(m_mutex);
    m_latest = std::move(snapshot);
    m_fresh = true;
  }

  // Producer: append one row; drops (and counts) the oldest row when full.
  void push(Row row) {
    std::lock_guard lock(m_mutex);
    pushLocked(std::move(row));
  }

  // Producer: rows and a snapshot (may be nullptr) under one lock, so the
  // consumer never sees a snapshot without the rows that led to it.
  void publish(std::shared_ptr<const Snapshot> snapshot, std::vector<Row> rows) {
    std::lock_guard lock(m_mutex);
    for (auto& r : rows)
      pushLocked(std::move(r));
    if (snapshot) {
      m_latest = std::move(snapshot);
      m_fresh = true;
    }
  }

  // Consumer: take everything new. The lock covers a vector swap and a few
  // scalars; reordering the ring happens after it is released.
  Drained drain() {
    Drained out;
    std::vector<Row> fresh;
    fresh.reserve(m_capacity); // allocated outside the lock
    std::size_t head = 0;
    {
      std::lock_guard lock(m_mutex);
      std::swap(fresh, m_rows);
      head = std::exchange(m_head, 0);
      out.droppedRows = std::exchange(m_dropped, 0);
      out.coalescedRows = std::exchange(m_coalesced, 0);
      if (m_fresh)
        out.snapshot = m_latest;
      m_fresh = false;
    }
    std::rotate(fresh.begin(), fresh.begin() + static_cast<std::ptrdiff_t>(head), fresh.end());
    out.rows = std::move(fresh);
    return out;
  }

  // Consumer: the newest snapshot without draining (nullptr before the first publish).
  std::shared_ptr<const Snapshot> latest() const {
    std::lock_guard lock(m_mutex);
    return m_latest;
  }

  std::uint64_t droppedTotal() const {
    std::lock_guard lock(m_mutex);
    return m_droppedTotal;
  }

private:
  void pushLocked(Row&& row) { // requires m_mutex
    if constexpr (CoalescingRow<Row>)
      if (m_rows.size() == m_capacity)
        coalesceLocked();
    if (m_rows.size() < m_capacity) {
      m_rows.push_back(std::move(row));
      return;
    }
    m_rows[m_head] = std::move(row); // overwrite the oldest
    m_head = (m_head + 1) % m_capacity;
    ++m_dropped;
    ++m_droppedTotal;
  }

  // Halves a full ring by merging rows 2i and 2i + 1 (oldest first): O(capacity)
  // once per capacity / 2 pushes. Leaves the ring full if no pair merged.
  void coalesceLocked() { // requires m_mutex
    std::rotate(m_rows.begin(), m_rows.begin() + static_cast<std::ptrdiff_t>(m_head), m_rows.end());
    m_head = 0;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < m_rows.size();) {
      const bool merged = i + 1 < m_rows.size() && m_rows[i].absorb(std::move(m_rows[i + 1]));
      if (kept != i)
        m_rows[kept] = std::move(m_rows[i]);
      ++kept;
      i += merged ? 2 : 1;
    }
    m_coalesced += m_rows.size() - kept;
    m_rows.erase(m_rows.begin() + static_cast<std::ptrdiff_t>(kept), m_rows.end());
  }

  const std::size_t m_capacity;
  mutable std::mutex m_mutex;
  std::shared_ptr<const Snapshot> m_latest; // guarded by m_mutex
  bool m_fresh = false;                     // guarded by m_mutex: m_latest not yet drained
  std::vector<Row> m_rows;                  // guarded by m_mutex: ring, oldest at m_head once full
  std::size_t m_head = 0;                   // guarded by m_mutex
  std::uint64_t m_dropped = 0;              // guarded by m_mutex: since the last drain
  std::uint64_t m_droppedTotal = 0;         // guarded by m_mutex: since construction
  std::uint64_t m_coalesced = 0;            // guarded by m_mutex: since the last drain
};

// Producer-side pacing: shouldPublish() is true when `everySteps` steps have
// passed since the last publication (0 = no step rule) or `minInterval` has
// elapsed (0 = no time rule), and always for the first call and when `force`d.
class PublishThrottle {
public:
  using Clock = std::chrono::steady_clock;

  explicit PublishThrottle(std::int64_t everySteps = 0,
                           std::chrono::milliseconds minInterval = std::chrono::milliseconds(50))
      : m_everySteps(everySteps), m_minInterval(minInterval) {
    if (everySteps < 0 || minInterval.count() < 0)
      throw std::invalid_argument("PublishThrottle: steps and interval must be >= 0");
  }

  bool shouldPublish(std::int64_t step, Clock::time_point now = Clock::now(), bool force = false) {
    const bool due = force || !m_started ||
                     (m_everySteps > 0 && step - m_lastStep >= m_everySteps) ||
                     (m_minInterval.count() > 0 && now - m_lastTime >= m_minInterval);
    if (due) {
      m_started = true;
      m_lastStep = step;
      m_lastTime = now;
    }
    return due;
  }

private:
  std::int64_t m_everySteps;
  std::chrono::milliseconds m_minInterval;
  bool m_started = false;
  std::int64_t m_lastStep = 0;
  Clock::time_point m_lastTime{};
};

} // namespace mantissa::telemetry
