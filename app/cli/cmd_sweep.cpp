// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli sweep: which op classes of a GPT can go to fewer bits
// (train/sweep.h).
//   mantissa-cli sweep --preset shakespeare-char --steps 300 --formats bf16,fp16,fp8-e4m3,mxfp4
//   mantissa-cli sweep ... --seeds 2 --budget 0.02 --out DIR --jobs 2
//   mantissa-cli sweep ... --resume        continue after Ctrl-C from DIR/runs.json
// Exit status: 0 done, 2 bad usage, 130 interrupted (the finished runs are kept).
#include "args.h"
#include "commands.h"

#include <mantissa/train/presets.h>
#include <mantissa/train/sweep.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace mantissa::cli {
namespace {

std::atomic<bool> g_sweepInterrupted{false};
extern "C" void onSweepInterrupt(int) { g_sweepInterrupted.store(true); }

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return out;
}

std::string shownNumber(double v, const char* format = "%.4g") {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

} // namespace

int runSweep(const Args& args) {
  ArgParser p("sweep", "Find which op classes of a GPT can go to fewer bits: from a base policy, "
                       "lower one op class (of one layer: each linear layer's matmul inputs, each "
                       "block's softmax; the other classes model-wide) at a time to each format, "
                       "train, and rank by the size of the change in validation loss against the "
                       "base at the same seed (mean over seeds); write the table (sweep.csv, sweep.json) and the policy with "
                       "the most ops lowered whose change stays within --budget (policy.txt, "
                       "for train --policy FILE). Ctrl-C stops; --resume continues.");
  p.option("preset", "NAME", "The run every probe trains: a GPT preset (default shakespeare-char)",
           "shakespeare-char");
  p.option("model", "SPEC", "The GPT, gpt:layers=L,heads=H,embd=C,ctx=T (default: the preset's)");
  p.option("data", "NAME|PATH", "The text: shakespeare or a UTF-8 file (default: the preset's)");
  p.option("steps", "N", "Optimizer steps of every run (default 300)", "300");
  p.option("batch", "B", "Batch size (default: the preset's, 12)");
  p.option("eval-batches", "N", "Fixed validation batches val_loss is measured on (default: the "
                                "preset's, 20)");
  p.option("seed", "S", "First seed (default 1); seeds S, S+1, ...", "1");
  p.option("seeds", "N", "Seeds each probe and the base train at, 1 to 64 (default 1)", "1");
  p.option("formats", "LIST", "Formats to lower to, comma-separated: bf16, fp16, fp8-e4m3 "
                              "(per-tensor current scaling), mxfp4 (E2M1, 32-value E8M0 "
                              "blocks), mxfp8, nvfp4, fp8-current, fp8-delayed, fp8-block or "
                              "an element format (unscaled); all but bf16 and fp16 for matmul "
                              "inputs only (default bf16,fp16,fp8-e4m3,mxfp4)",
           "bf16,fp16,fp8-e4m3,mxfp4");
  p.option("ops", "LIST", "Op classes to lower, comma-separated policy keys (matmul-inputs, "
                          "softmax, norm-stats, ...; default: every class a GPT has)");
  p.option("base", "SPEC", "The base policy the probes lower from (default fp32)", "fp32");
  p.option("budget", "X", "Largest mean change in val_loss the chosen policy may cost "
                          "(default 0.02)", "0.02");
  p.option("out", "DIR", "Folder of runs.json, sweep.csv, sweep.json and policy.txt "
                         "(default sweep)", "sweep");
  p.option("jobs", "N", "Runs at once (default: the CPU's threads; never more)", "0");
  p.flag("resume", "Continue the sweep whose runs DIR/runs.json holds (same options)");
  p.flag("quiet", "No progress lines on stderr");
  if (auto rc = p.parse(args))
    return *rc;

  const train::Preset* preset = train::findPreset(lowerCase(p.value("preset")));
  std::vector<std::string> gptPresets;
  for (const auto& pr : train::presets())
    if (pr.runs.front().model.rfind("gpt", 0) == 0)
      gptPresets.push_back(pr.name);
  if (!preset || preset->runs.front().model.rfind("gpt", 0) != 0) {
    std::cerr << "mantissa-cli sweep: --preset: '" << quoteInput(p.value("preset"))
              << "' is not a GPT preset" << didYouMean(p.value("preset"), gptPresets)
              << " (GPT presets:";
    for (const auto& n : gptPresets)
      std::cerr << " " << n;
    std::cerr << ")\n";
    return 2;
  }
  train::SweepOptions o;
  o.config = preset->runs.front();
  if (auto v = p.optionalValue("model"))
    o.config.model = *v;
  if (auto v = p.optionalValue("data"))
    o.config.data = *v;
  const auto steps = parseInteger("sweep", "steps", p.value("steps"), 1, train::kMaxSteps);
  const auto seed = parseInteger("sweep", "seed", p.value("seed"), 0, 1LL << 62);
  const auto seeds = parseInteger("sweep", "seeds", p.value("seeds"), 1, 64);
  const auto jobs = parseInteger("sweep", "jobs", p.value("jobs"), 0, 4096);
  const auto budget = parseReal("sweep", "budget", p.value("budget"));
  if (!steps || !seed || !seeds || !jobs || !budget)
    return 2;
  if (!(*budget >= 0)) {
    std::cerr << "mantissa-cli sweep: --budget: must be a number >= 0, got '"
              << quoteInput(p.value("budget")) << "'\n";
    return 2;
  }
  if (auto v = p.optionalValue("batch")) {
    const auto b = parseInteger("sweep", "batch", *v, 1, train::kMaxBatch);
    if (!b)
      return 2;
    o.config.batch = int(*b);
  }
  if (auto v = p.optionalValue("eval-batches")) {
    const auto b = parseInteger("sweep", "eval-batches", *v, 1, 10000);
    if (!b)
      return 2;
    o.config.evalBatches = int(*b);
  }
  o.config = train::sweepRun(o.config, *steps);
  o.config.seed = std::uint64_t(*seed);
  o.seeds = int(*seeds);
  o.jobs = int(*jobs);
  o.budget = *budget;
  o.base = p.value("base");
  o.formats = splitList(p.value("formats"));
  if (auto v = p.optionalValue("ops"))
    o.ops = splitList(*v);
  o.resume = p.has("resume");
  const bool quiet = p.has("quiet");

  std::vector<train::SweepProbe> probes;
  try {
    probes = train::sweepProbes(o);
  } catch (const std::exception& e) {
    std::cerr << "mantissa-cli sweep: " << e.what() << "\n";
    return 2;
  }
  if (!quiet)
    std::cerr << "sweep: " << probes.size() << " probes x " << o.seeds << " seeds + base, "
              << o.config.steps << " steps each, " << train::sweepJobs(o.jobs)
              << " at once, into '" << quoteInput(p.value("out")) << "'\n";

  std::signal(SIGINT, onSweepInterrupt);
  std::signal(SIGTERM, onSweepInterrupt);
  train::SweepResult r;
  try {
    r = train::runSweep(o, p.value("out"),
                        [&](const train::SweepProgress& s) {
                          if (!quiet)
                            std::cerr << "[" << s.done << "/" << s.total << "] " << s.what << "\n";
                        },
                        &g_sweepInterrupted);
  } catch (const std::exception& e) {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::cerr << "mantissa-cli sweep: " << e.what() << "\n";
    return 2;
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (!r.complete) {
    std::cerr << "mantissa-cli sweep: interrupted; the finished runs are in '"
              << quoteInput(p.value("out")) << "/runs.json': add --resume to continue\n";
    return 130;
  }
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"rank", "probe", "|delta| val_loss", "delta", "bytes saved",
                   "matmul time saved", "bits/param"});
  for (const auto& row : r.rows)
    cells.push_back({std::to_string(row.rank), row.probe.name(),
                     row.divergedAt >= 0 ? "diverged at step " + std::to_string(row.divergedAt)
                                         : shownNumber(row.meanAbsDelta),
                     row.divergedAt >= 0 ? "-" : shownNumber(row.meanDelta),
                     shownNumber(row.probe.bytesSaved, "%.0f"),
                     shownNumber(100 * row.probe.matmulTimeSaved, "%.2f%%"),
                     shownNumber(row.probe.bitsPerParameter, "%.2f")});
  printTable(cells, 2);
  std::cout << "\nbase val_loss:";
  for (const double v : r.baseValLoss)
    std::cout << " " << v;
  std::cout << "\nchosen policy (" << r.chosenProbes.size() << " ops lowered, delta val_loss "
            << shownNumber(r.chosenDelta) << ", budget " << o.budget << "):\n  " << r.chosenPolicy
            << "\nwritten: " << p.value("out") << "/sweep.csv, sweep.json, policy.txt\n";
  return 0;
}

} // namespace mantissa::cli
