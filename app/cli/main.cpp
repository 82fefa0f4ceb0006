// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli: the headless, scriptable face of Mantissa.

#include "../omp_wait_policy.h"
#include "args.h"
#include "commands.h"

#include <array>
#include <exception>
#include <iostream>
#include <string_view>

namespace {

using mantissa::cli::Args;

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(const Args&);
};

// Subcommands, in the order `--help` lists them.
constexpr std::array kCommands{
    Command{"version", "Print version, oneDNN version and the CPU's vector ISA", mantissa::cli::runVersion},
    Command{"inspect", "Show how every format stores a value, bit by bit", mantissa::cli::runInspect},
    Command{"convert", "Convert values on stdin to one format's bits", mantissa::cli::runConvert},
    Command{"quantize", "Block-scale values on stdin (MX, NVFP4, FP8 blocks)", mantissa::cli::runQuantize},
    Command{"train", "Train an MLP, a CNN or a GPT in a mixed-precision recipe; save and resume",
            mantissa::cli::runTrain},
    Command{"sample", "Generate text from a GPT checkpoint", mantissa::cli::runSample},
#ifdef MANTISSA_CLI_HAS_UI
    Command{"plot", "Render one chart of a saved run as SVG, PNG or PDF", mantissa::cli::runPlot},
    Command{"report", "Write a saved run's report as PDF or HTML", mantissa::cli::runReport},
#endif
    Command{"diff", "Compare two run logs: the first step, tensor and pass where they differ",
            mantissa::cli::runDiff},
    Command{"sweep", "Lower a GPT's op classes one at a time; rank them; choose a policy",
            mantissa::cli::runSweep},
    Command{"scales", "Print the scale and amax trace of an FP8 / microscaling run",
            mantissa::cli::runScales},
    Command{"checkpoint", "List a safetensors checkpoint's tensors and metadata",
            mantissa::cli::runCheckpoint},
    Command{"model", "Scan a model file (safetensors, GGUF) against FP16, BF16, FP8, MX, NVFP4",
            mantissa::cli::runModel},
    Command{"exercises", "Write a worksheet of graded number-format exercises and its key",
            mantissa::cli::runExercises},
    Command{"bench", "Measure matmul, conversion and training-step speed", mantissa::cli::runBench},
};

void printHelp() {
  std::cout << "Usage: mantissa-cli COMMAND [OPTIONS]\n\n"
               "Mantissa's headless, scriptable interface: number formats, training,\n"
               "benchmarks and plots without a display.\n\nCommands:\n";
  for (const auto& c : kCommands)
    std::cout << "  " << c.name << std::string(12 - c.name.size(), ' ') << c.summary << "\n";
  std::cout << "\nGlobal options:\n"
               "  --help      Show this help (or 'mantissa-cli COMMAND --help')\n"
               "  --version   Same as 'mantissa-cli version'\n";
}

} // namespace

int main(int argc, char** argv) {
  // Only train and bench run oneDNN's OpenMP kernels, which need the passive
  // wait policy; the other commands skip the re-exec, which loads every
  // shared library twice (measured: --version 69 -> 16 ms with the Qt libraries).
  if (argc >= 2 && (std::string_view(argv[1]) == "train" || std::string_view(argv[1]) == "bench" ||
                    std::string_view(argv[1]) == "sample"))
    mantissa::app::reexecWithPassiveOmpWait(argv);
  if (argc < 2) {
    printHelp();
    return 2;
  }
  const std::string_view first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    printHelp();
    return 0;
  }
  Args rest(argv + 2, argv + argc);
  if (first == "--version")
    return mantissa::cli::runVersion(rest);
  for (const auto& c : kCommands) {
    if (c.name == mantissa::cli::lowerCase(std::string(first))) {
      try {
        return c.run(rest);
      } catch (const std::exception& e) {
        std::cerr << "mantissa-cli " << first << ": " << e.what() << "\n";
        return 1;
      }
    }
  }
  std::vector<std::string> names;
  for (const auto& c : kCommands)
    names.emplace_back(c.name);
  std::cerr << "mantissa-cli: unknown command '" << mantissa::cli::quoteInput(std::string(first)) << "'"
            << mantissa::cli::didYouMean(std::string(first), names)
            << "\nTry 'mantissa-cli --help'.\n";
  return 2;
}
