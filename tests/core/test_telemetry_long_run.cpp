// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The telemetry memory bound: a 1,000,000-step run of a tiny model, with scalar
// rows every step and a telemetry frame every 1000 steps flowing through the
// Mailbox into a History (what the GUI does), keeps resident memory bounded.
//
// Stated bound: resident memory may grow by at most 8 MiB between step
// 20,000 (everything allocated, tiers not yet full) and step 1,000,000. The
// design needs History::byteBound() (786,432 B for 4 columns) + the mailbox
// ring (4096 rows x 40 B) + one frame (~20 KB); the rest is allocator slack.
// Keeping every row instead would take >= 1e6 x 40 B = 40 MB.
// Labelled `long` (about 30-60 s here): sanitizer jobs may skip it with -LE long.
#include <mantissa/telemetry/history.h>
#include <mantissa/telemetry/mailbox.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

// ASan keeps freed blocks in a quarantine of up to 256 MB, and oneDNN's
// execute allocates a few small objects per call (MatmulSteadyState counts
// them; malloc reuses them at once without ASan): over a million steps the
// quarantine alone grew resident memory by 331 MB on an AVX-512 machine. A
// 4 MB quarantine still catches use after free in this executable, and the
// growth measured is the program's again. (ASAN_OPTIONS, read after this,
// can still set it.)
// Read by the ASan runtime only; a build without ASan never calls it.
extern "C" [[gnu::used]] const char* __asan_default_options() {
  return "quarantine_size_mb=4";
}

namespace {

namespace tl = mantissa::telemetry;

long long residentBytes() {
  std::ifstream statm("/proc/self/statm");
  long long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<long long>(::sysconf(_SC_PAGESIZE));
}

struct Row {
  std::int64_t step;
  double loss, lossScale, stepMs, gradNorm;
};

TEST(LongRun, AMillionStepsOfATinyModelKeepResidentMemoryBounded) {
  constexpr std::int64_t kSteps = 1'000'000;
  mantissa::train::RunConfig config;
  config.data = "blobs";
  config.model = "mlp:2-8-4:relu";
  config.batch = 8;
  config.steps = kSteps;
  config.lr = 0.01;
  config.telemetryEvery = 1000;
  config.evalEvery = kSteps; // evaluation is not what is measured here
  mantissa::train::Session session(config);

  tl::Mailbox<tl::TelemetryFrame, Row> mailbox(4096);
  tl::History history({"loss", "loss_scale", "step_ms", "grad_norm"});
  std::shared_ptr<const tl::TelemetryFrame> shown; // what a GUI would be displaying
  std::int64_t framesSeen = 0;
  long long baseline = 0;

  auto drain = [&] {
    auto d = mailbox.drain();
    for (const Row& r : d.rows) {
      const double v[4] = {r.loss, r.lossScale, r.stepMs, r.gradNorm};
      history.append(r.step, v);
    }
    if (d.snapshot) {
      shown = d.snapshot;
      ++framesSeen;
    }
  };

  while (!session.finished()) {
    const auto& r = session.step();
    mailbox.push({r.step, r.loss, r.lossScale, r.stepMs, r.gradNorm});
    if (r.telemetry)
      mailbox.publish(r.telemetry);
    if (r.step % 500 == 499)
      drain();
    if (r.step == 20'000)
      baseline = residentBytes();
  }
  drain();

  const long long growth = residentBytes() - baseline;
  EXPECT_FALSE(session.divergence().has_value());
  EXPECT_EQ(history.rowsAppended(), kSteps);
  EXPECT_EQ(mailbox.droppedTotal(), 0u); // drained faster than the ring fills
  EXPECT_EQ(framesSeen, kSteps / 1000);
  ASSERT_NE(shown, nullptr);
  EXPECT_EQ(shown->step, kSteps - 1000);
  EXPECT_LE(history.bytes(), history.byteBound());
  EXPECT_LE(growth, 8ll << 20) << "resident memory grew by " << growth << " bytes";
  std::printf("resident growth from step 20,000 to 1,000,000: %lld bytes (bound 8 MiB)\n", growth);
}

} // namespace
