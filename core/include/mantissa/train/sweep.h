// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The automatic precision sweep: which op classes of a GPT can go to fewer
// bits, measured by training.
//
// From a base policy (amp::Policy, default "fp32") each probe lowers one op
// class, of one layer where the policy addresses layers, to one format:
//   matmul-inputs   per linear layer (hN.qkv, hN.attproj, hN.fc, hN.fcproj),
//                   to every format;
//   softmax         per block (hN), to bf16 and fp16;
//   the others      model-wide, to bf16 and fp16 (batchnorm: a CNN's, left out).
// A probe whose format has no fewer bits than the base gives that op is left
// out. Formats: bf16 and fp16 (precisions); fp8-e4m3 (fp8-current with E4M3
// X, W and dY: one per-tensor scale each); mxfp4 (OCP MXFP4: mxfp8's blocks
// of 32 with an E8M0 scale, E2M1 elements); mxfp8, nvfp4, fp8-current,
// fp8-delayed, fp8-block (those recipes); any other element format (e3m4,
// fp8-e5m2, ...) rounds the operands unscaled. Formats other than bf16 and
// fp16 apply to matmul inputs only.
//
// Every probe trains config (steps, seed) once per seed (config.seed,
// config.seed + 1, ...), as the base does; Δ val_loss is the probe's final
// validation loss less the base's with the same seed (+inf when a run
// diverged). Rows are ranked by the mean of |Δ| over seeds, smallest first:
// how far lowering the op moves the loss. (In a short run the sign of a
// small Δ is the seed's: a perturbation sends training down another path,
// as likely better as worse; its size is what repeats across seeds.) Rows
// that diverged come last, the one that diverged earliest at the bottom.
//
// Estimates, from the shapes alone (the same on every machine):
//  - bytes saved: the elements the op holds or feeds per step (a linear
//    layer's X, W and dY; the attention probabilities; the stored
//    activations; ...) times the bits saved;
//  - matmul time saved: the share of the step's matrix-product FLOPs in the
//    lowered products times 1 - (new bits / old bits), i.e. product time
//    proportional to operand bits, as the peak rates of FP32, BF16, FP8 and
//    FP4 GEMM units scale; element-wise classes save no product time;
//  - bits per parameter: the mean bits of the weights the forward products
//    read (linear weights at their layer's input bits, the tied embedding at
//    the model-wide input bits, the rest at the master weights' bits).
//
// The chosen policy lowers as many ops as the budget allows: per op (layer
// and class), its fewest-bit format whose mean |Δ| <= budget; these ordered
// by mean |Δ|; the longest prefix whose combined policy, trained at every
// seed, keeps its mean Δ <= budget (all first, then a binary search). It is written as a
// policy file that `mantissa-cli train --policy FILE` replays.
//
// Runs run on up to sweepJobs(jobs) threads. Every finished run's val_loss
// is saved at once (runs.json, atomically) under its policy and seed; a
// sweep given resume reads it back and trains only what is missing, so an
// interrupted sweep ends with the table an uninterrupted one writes.
// Files in the output folder: runs.json, sweep.csv, sweep.json, policy.txt.

#include <mantissa/train/run_config.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::train {

class SweepError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct SweepOptions {
  RunConfig config;          // a GPT run (its policy is replaced by each probe's)
  std::string base = "fp32"; // base policy spec
  std::vector<std::string> formats{"bf16", "fp16", "fp8-e4m3", "mxfp4"};
  std::vector<std::string> ops; // op class keys to lower; empty: every class a GPT has
  int seeds = 1;                // 1 to 64
  double budget = 0.02;         // largest Δ val_loss the chosen policy may cost
  int jobs = 0;                 // runs at once; 0: the hardware's threads; capped by them
  bool resume = false;          // continue the runs saved in the output folder
};

// A preset's run as a sweep trains it: `steps` optimizer steps, the cosine
// warm-up a tenth of them when it would fill the run (as train --steps
// shortens it), evaluated at the end only.
RunConfig sweepRun(RunConfig preset, std::int64_t steps);

// Runs at once for a request (0: all hardware threads): at least 1, at most
// std::thread::hardware_concurrency().
int sweepJobs(int requested);

struct SweepProbe {
  std::string layer;  // "h1.fc", "h0", "" (model-wide)
  std::string op;     // op class key: "matmul-inputs"
  std::string format; // as given: "fp8-e4m3"
  std::string policy; // canonical spec of the probe's policy
  double bits = 32;   // bits per value of the format (block scales included)
  double bytesSaved = 0;
  double matmulTimeSaved = 0; // fraction of the step's product time
  double bitsPerParameter = 32;
  std::string name() const; // "h1.fc matmul-inputs fp8-e4m3"
};

// The probes of `options`, in order: op class, layer, format. Throws
// SweepError naming the option for an unknown format or op, a bad base, a
// model that is not a GPT.
std::vector<SweepProbe> sweepProbes(const SweepOptions& options);

struct SweepRow {
  SweepProbe probe;
  std::vector<double> valLoss; // per seed (NaN: diverged)
  std::vector<double> delta;   // per seed
  double meanDelta = 0;        // +inf when a seed diverged
  double meanAbsDelta = 0;     // mean of |Δ|: how far the op moves val_loss; ranks the rows
  std::int64_t divergedAt = -1; // the earliest step a seed diverged at; -1: none
  int rank = 0;                // 1: smallest Δ; diverged rows last, the earliest divergence last
  // On the Pareto front of mean |Δ| against bits per parameter (resp.
  // against matmul time saved): no other finite row has fewer-or-equal bits
  // (more-or-equal time saved) and a smaller-or-equal |Δ|, one strictly.
  bool paretoBits = false;
  bool paretoTime = false;
};

struct SweepResult {
  std::vector<std::uint64_t> seeds;
  std::vector<double> baseValLoss;
  std::vector<SweepRow> rows; // by rank
  std::string chosenPolicy;   // canonical spec (the base when nothing fits)
  std::vector<std::string> chosenProbes; // names of the rows it lowers
  std::vector<double> chosenValLoss;
  double chosenDelta = 0;
  double chosenBytesSaved = 0;
  bool complete = false;      // false: cancelled (runs.json holds what finished)
  int runsTrained = 0;        // by this call (not read back)
  int peakConcurrentRuns = 0; // most runs in flight at once
};

struct SweepProgress {
  int done = 0;   // runs finished (read back included)
  int total = 0;  // runs known so far (the chosen policy's checks add some)
  std::string what; // "h1.fc matmul-inputs fp8-e4m3, seed 2: val_loss 1.234"
};

// Runs the sweep, writing into `out` (created when missing). `progress` is
// called from the running threads, one call at a time; `cancel` is polled
// between steps: when set, runs in flight stop unsaved and the result comes
// back incomplete. Throws SweepError for bad options or a folder holding
// another sweep's runs, io::AtomicFileError when a file cannot be written.
SweepResult runSweep(const SweepOptions& options, const std::filesystem::path& out,
                     const std::function<void(const SweepProgress&)>& progress = {},
                     const std::atomic<bool>* cancel = nullptr);

// One finished run: its final val_loss, or NaN and the step it diverged at.
struct SweepRun {
  double valLoss = 0;
  std::int64_t divergedAt = -1; // -1: it did not
};

// runs.json: {"sweep": {the options}, "runs": {"POLICY@SEED": val_loss, or
// {"diverged_at": STEP} for a run that diverged}}. Throws SweepError naming
// the problem.
struct SweepRuns {
  std::string sweep;                   // the options, as compact JSON
  std::map<std::string, SweepRun> runs;
};
SweepRuns parseSweepRuns(std::string_view text);

// The table as CSV and JSON (what runSweep writes as sweep.csv, sweep.json),
// and the policy file (policy.txt: '#' comment lines, then the spec).
std::string sweepCsv(const SweepResult& result);
std::string sweepJson(const SweepOptions& options, const SweepResult& result);
std::string sweepPolicyFile(const SweepOptions& options, const SweepResult& result);

} // namespace mantissa::train
