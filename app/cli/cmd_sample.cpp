// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli sample: text from a GPT checkpoint, with no training and no
// data set: the vocabulary comes from the file's metadata.
//   mantissa-cli sample run.safetensors --prompt "ROMEO:" -n 200 --temperature 0.8 --seed 7
// Exit status: 0 printed, 1 a file that is not a GPT checkpoint (the message
// names the field or tensor), 2 bad usage.
#include "args.h"
#include "commands.h"

#include <mantissa/data/text.h>
#include <mantissa/model/gpt.h>
#include <mantissa/train/checkpoint.h>
#include <mantissa/train/session.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::cli {

int runSample(const Args& argsIn) {
  ArgParser p("sample", "Generate text from a GPT checkpoint (mantissa-cli train --checkpoint), "
                        "after an optional prompt.");
  p.positional("FILE", "The .safetensors checkpoint of a GPT");
  p.option("prompt", "TEXT", "Text to continue (default: a new line)");
  p.option("chars", "N", "Characters to generate, also -n N (default 200)");
  p.option("temperature", "T", "Sampling temperature, in [0, 100]; 0 picks the likeliest character "
                              "(default 1.0)");
  p.option("seed", "S", "Seed of the sampling (default 1)");
  Args args = argsIn;
  for (auto& a : args)
    if (a == "-n")
      a = "--chars";
  if (auto rc = p.parse(args))
    return *rc;
  const std::string path = *p.positionalValue("FILE");

  long long chars = 200, seed = 1;
  double temperature = 1.0;
  try {
    if (auto v = p.optionalValue("chars"))
      chars = std::stoll(*v);
    if (auto v = p.optionalValue("seed"))
      seed = std::stoll(*v);
    if (auto v = p.optionalValue("temperature"))
      temperature = std::stod(*v);
  } catch (const std::exception&) {
    std::cerr << "mantissa-cli sample: --chars, --seed and --temperature take numbers\n";
    return 2;
  }
  if (chars < 0 || chars > 1000000) {
    std::cerr << "mantissa-cli sample: --chars: must be in [0, 1000000], got " << chars << "\n";
    return 2;
  }
  if (seed < 0) {
    std::cerr << "mantissa-cli sample: --seed: must be >= 0, got " << seed << "\n";
    return 2;
  }
  if (!(temperature >= 0 && temperature <= 100)) {
    std::cerr << "mantissa-cli sample: --temperature: must be in [0, 100], got " << temperature << "\n";
    return 2;
  }
  std::size_t bad = 0;
  const auto prompt = data::decodeUtf8(p.value("prompt"), bad);
  if (!prompt) {
    std::cerr << "mantissa-cli sample: --prompt: invalid UTF-8 at byte " << bad + 1 << "\n";
    return 2;
  }

  try {
    const std::unique_ptr<train::Session> session = train::openCheckpointForSampling(path);
    std::cout << p.value("prompt")
              << session->sample(int(chars), temperature, std::uint64_t(seed), *prompt) << "\n";
  } catch (const std::invalid_argument& e) { // the prompt
    std::cerr << "mantissa-cli sample: --" << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) { // io::SafetensorsError, train::CheckpointError, ConfigError
    std::cerr << "mantissa-cli sample: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

} // namespace mantissa::cli
