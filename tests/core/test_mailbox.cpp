// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Mailbox between a producer thread and a consumer thread: the consumer
// always ends with the newest snapshot, rows arrive in order without
// duplicates, the ring bound holds and losses are counted exactly. Built
// under MANTISSA_SANITIZE=thread this is also the data-race check.
#include <mantissa/telemetry/mailbox.h>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace {

using mantissa::telemetry::Mailbox;
using mantissa::telemetry::PublishThrottle;

struct Snap {
  std::int64_t step;
};
struct Row {
  std::int64_t step;
  double loss;
};

TEST(Mailbox, KeepsTheLatestSnapshotAndDrainsRowsInOrder) {
  Mailbox<Snap, Row> box(4);
  EXPECT_EQ(box.drain().snapshot, nullptr);
  box.push({1, 1.0});
  box.push({2, 2.0});
  box.publish(std::make_shared<const Snap>(Snap{1}));
  box.publish(std::make_shared<const Snap>(Snap{2}));
  auto d = box.drain();
  ASSERT_NE(d.snapshot, nullptr);
  EXPECT_EQ(d.snapshot->step, 2);
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.rows[0].step, 1);
  EXPECT_EQ(d.rows[1].step, 2);
  EXPECT_EQ(d.droppedRows, 0u);
  // Nothing new: no snapshot, no rows; latest() still answers.
  auto again = box.drain();
  EXPECT_EQ(again.snapshot, nullptr);
  EXPECT_TRUE(again.rows.empty());
  EXPECT_EQ(box.latest()->step, 2);
}

TEST(Mailbox, RingDropsTheOldestRowsAndCountsThem) {
  Mailbox<Snap, Row> box(3);
  for (int i = 0; i < 10; ++i)
    box.push({i, 0.0});
  auto d = box.drain();
  ASSERT_EQ(d.rows.size(), 3u);
  EXPECT_EQ(d.rows[0].step, 7); // oldest surviving first
  EXPECT_EQ(d.rows[1].step, 8);
  EXPECT_EQ(d.rows[2].step, 9);
  EXPECT_EQ(d.droppedRows, 7u);
  box.push({10, 0.0});
  d = box.drain();
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_EQ(d.rows[0].step, 10);
  EXPECT_EQ(d.droppedRows, 0u);
  EXPECT_EQ(box.droppedTotal(), 7u);
  EXPECT_THROW((Mailbox<Snap, Row>(0)), std::invalid_argument);
}

TEST(Mailbox, ProducerAndConsumerThreads) {
  constexpr std::int64_t kSteps = 200000;
  constexpr std::size_t kCapacity = 256;
  Mailbox<Snap, Row> box(kCapacity);
  std::atomic<bool> done{false};

  std::thread producer([&] {
    for (std::int64_t s = 0; s < kSteps; ++s) {
      if (s % 100 == 99)
        box.publish(std::make_shared<const Snap>(Snap{s}), {Row{s, static_cast<double>(s)}});
      else
        box.push({s, static_cast<double>(s)});
    }
    box.publish(std::make_shared<const Snap>(Snap{kSteps}));
    done.store(true, std::memory_order_release);
  });

  std::int64_t lastRow = -1, lastSnap = -1;
  std::uint64_t received = 0, dropped = 0;
  bool ordered = true, bounded = true, snapshotsMonotone = true;
  auto consume = [&] {
    auto d = box.drain();
    bounded = bounded && d.rows.size() <= kCapacity;
    for (const Row& r : d.rows) {
      ordered = ordered && r.step > lastRow && r.loss == static_cast<double>(r.step);
      lastRow = r.step;
    }
    received += d.rows.size();
    dropped += d.droppedRows;
    if (d.snapshot) {
      snapshotsMonotone = snapshotsMonotone && d.snapshot->step > lastSnap;
      lastSnap = d.snapshot->step;
    }
  };
  while (!done.load(std::memory_order_acquire)) {
    consume();
    std::this_thread::yield();
  }
  producer.join();
  consume(); // whatever was published after the last drain

  EXPECT_TRUE(ordered);
  EXPECT_TRUE(bounded);
  EXPECT_TRUE(snapshotsMonotone);
  EXPECT_EQ(received + dropped,
            static_cast<std::uint64_t>(kSteps)); // every row delivered or counted
  EXPECT_EQ(lastRow, kSteps - 1);                // the newest row is never the one dropped
  EXPECT_EQ(lastSnap, kSteps);                   // no lost latest snapshot
  EXPECT_EQ(box.droppedTotal(), dropped);
}

TEST(PublishThrottle, PublishesEveryNStepsOrAfterTheInterval) {
  using namespace std::chrono_literals;
  const auto t0 = PublishThrottle::Clock::time_point{} + 1h;
  PublishThrottle byTime(0, 50ms);
  EXPECT_TRUE(byTime.shouldPublish(0, t0)); // first call
  EXPECT_FALSE(byTime.shouldPublish(1, t0 + 10ms));
  EXPECT_FALSE(byTime.shouldPublish(2, t0 + 49ms));
  EXPECT_TRUE(byTime.shouldPublish(3, t0 + 50ms));
  EXPECT_FALSE(byTime.shouldPublish(4, t0 + 60ms));
  EXPECT_TRUE(byTime.shouldPublish(5, t0 + 61ms, true)); // forced (last step)

  PublishThrottle bySteps(10, 0ms);
  EXPECT_TRUE(bySteps.shouldPublish(0, t0));
  EXPECT_FALSE(bySteps.shouldPublish(9, t0 + 1h));
  EXPECT_TRUE(bySteps.shouldPublish(10, t0 + 1h));
  EXPECT_FALSE(bySteps.shouldPublish(19, t0));

  PublishThrottle both(1000, 50ms);
  EXPECT_TRUE(both.shouldPublish(0, t0));
  EXPECT_TRUE(both.shouldPublish(5, t0 + 51ms));    // time wins
  EXPECT_TRUE(both.shouldPublish(1005, t0 + 52ms)); // steps win
  EXPECT_THROW(PublishThrottle(-1), std::invalid_argument);
}

} // namespace
