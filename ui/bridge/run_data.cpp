// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/bridge/run_data.h"

#include <cmath>

namespace mantissa::ui {

namespace {

// a = min(a, b) / max(a, b) where a NaN on either side never wins over a number.
void keepLower(double& a, double b) {
  if (std::isnan(a) || b < a)
    a = b;
}
void keepHigher(double& a, double b) {
  if (std::isnan(a) || b > a)
    a = b;
}

template <typename Frame>
void thinFrames(std::vector<std::shared_ptr<const Frame>>& frames) {
  if (frames.size() <= StepSpan::kMaxFrames)
    return;
  // Keep every other frame and always the newest, so the span still ends on its last frame.
  std::vector<std::shared_ptr<const Frame>> kept;
  kept.reserve(frames.size() / 2 + 1);
  for (std::size_t i = frames.size() % 2 == 0 ? 1 : 0; i < frames.size(); i += 2)
    kept.push_back(std::move(frames[i]));
  frames = std::move(kept);
}

} // namespace

StepSpan& StepRow::toSpan() {
  if (span)
    return *span;
  span = std::make_unique<StepSpan>();
  StepSpan& s = *span;
  s.firstStep = step;
  s.steps = 1;
  s.lowStep = s.highStep = step;
  s.low = s.high = values();
  s.firstScaler = scaler;
  if (skipped)
    s.skipped.emplace_back(step, step);
  s.events.assign(events.begin(), events.begin() + eventCount);
  eventCount = 0;
  if (frame)
    s.frames.push_back(std::move(frame));
  frame.reset();
  if (shadow)
    s.shadow.push_back(std::move(shadow));
  shadow.reset();
  return s;
}

bool StepRow::absorb(StepRow&& next) {
  if (kind != Kind::Step || next.kind != Kind::Step || next.firstStep() <= step)
    return false;
  StepSpan& s = toSpan();
  StepSpan& n = next.toSpan();

  s.steps += n.steps;
  if (std::isnan(s.low[0]) || n.low[0] < s.low[0])
    s.lowStep = n.lowStep;
  if (std::isnan(s.high[0]) || n.high[0] > s.high[0])
    s.highStep = n.highStep;
  for (std::size_t c = 0; c < kStepColumns; ++c) {
    keepLower(s.low[c], n.low[c]);
    keepHigher(s.high[c], n.high[c]);
  }
  for (const auto& range : n.skipped) {
    if (!s.skipped.empty() && s.skipped.back().second + 1 == range.first)
      s.skipped.back().second = range.second; // one run of skipped steps across the seam
    else
      s.skipped.push_back(range);
  }
  s.events.insert(s.events.end(), n.events.begin(), n.events.end());
  for (auto& f : n.frames)
    s.frames.push_back(std::move(f));
  thinFrames(s.frames);
  for (auto& f : n.shadow)
    s.shadow.push_back(std::move(f));
  thinFrames(s.shadow);

  // The last step's own values are next's.
  step = next.step;
  loss = next.loss;
  accuracy = next.accuracy;
  lr = next.lr;
  lossScale = next.lossScale;
  gradNorm = next.gradNorm;
  stepMs = next.stepMs;
  foundInf = next.foundInf;
  skipped = next.skipped;
  scaler = next.scaler;
  times += next.times;
  if (next.watch)
    watch = next.watch;
  if (!divergence)
    divergence = std::move(next.divergence);
  return true;
}

} // namespace mantissa::ui
