// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The lessons' demos by id, as one uniform result the GUI can draw (series
// for a chart) and print (text lines): the lesson manifest names demos by
// these ids, so a teacher can attach any demo to any lesson.

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::lessons {

struct DemoSeries {
  std::string name;
  std::vector<double> x; // [points]
  std::vector<double> y; // [points]
  // Bars instead of a line. With the output's categories: one bar per category
  // (x = its index). Without: histogram bins [x, x + smallest x gap).
  bool bars = false;
  // Drawn against a second y axis on the right, log2: a quantity in other
  // units that spans binades (a loss scale beside a loss in nats).
  bool rightAxis = false;
};

struct DemoOutput {
  std::string id;
  std::string title;
  std::string xLabel, yLabel;
  bool logY = false;               // y spans binades (errors, GFLOP/s ratios)
  std::vector<DemoSeries> series;  // may be empty for table-only demos
  std::vector<std::string> lines;  // the result in words and numbers, computed now
  std::vector<std::string> categories; // non-empty: x is an index into these names
  std::string rightLabel{};        // the right axis' title (series with rightAxis)
  // A demo stepped one step at a time (demoAtStep): what each step did, one
  // line per step (the scaler's walk), or empty (each series' value is shown).
  std::vector<std::string> stepLines{};
};

class UnknownDemo : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

// "format-table", "ulp-ruler", "swamping", "swamp-fixes", "stochastic-rounding",
// "loss-scaling", "scale-recovery", "scaler-walk", "bf16-run", "accumulation", "softmax-layernorm", "speed",
// "dot-accumulation", "fp16-accumulation", "fp32-islands", "fp8-schemes",
// "mx-scale-rounding", "fp8-variants", "error-map", "scaler-diff".
std::span<const std::string_view> demoIds();
bool isDemoId(std::string_view id);
// The demo's title, as its figure shows it ("The ruler: gap to the next
// value"); "" for an unknown id.
std::string_view demoTitle(std::string_view id);

// Runs the demo now. Throws UnknownDemo naming the id and the valid ones.
DemoOutput runDemo(std::string_view id);

// Stepping a demo (presenter mode's Next Demo Step key). A demo whose series
// are drawn against its steps (a trajectory, the scaler's walk: line series,
// no categories, no bars) is shown as it stood after each of them in turn.
// Its steps are the distinct x values of its series, ascending; a demo of
// categories or bars has none (0).
int demoStepCount(const DemoOutput& full);
// `full` after `step` (1..demoStepCount) of its steps: each series keeps its
// points up to that step's x; the lines say which step this is and, from
// stepLines, what every step so far did, else each series' latest value.
// Throws std::out_of_range for a step outside 1..demoStepCount.
DemoOutput demoAtStep(const DemoOutput& full, int step);

} // namespace mantissa::lessons
