// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The ISA probe: each kernel really executes the instructions it claims (the
// accumulators hold the analytically expected sums after n iterations, which
// also fixes the FLOP count per iteration), absent paths are reported absent
// per /proc/cpuinfo, and the per-machine cache round-trips.
#include <mantissa/bench/isa_probe.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

using mantissa::bench::kProbeChains;

// Flags read from /proc/cpuinfo, independent of the CPUID code under test.
bool cpuinfoHasFlag(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("flags", 0) != 0)
      continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string w; words >> w;)
      if (w == flag)
        return true;
    return false;
  }
  return false;
}

struct KernelCase {
  const char* id;
  const char* flag;          // /proc/cpuinfo flag the path needs
  double addedPerIteration;  // per lane per instruction with all-ones operands
  int chains;
  std::int64_t iterations;   // small enough for the accumulator type to stay exact
};

// ctest lists a case's parameter by its path name, not its bytes.
[[maybe_unused]] void PrintTo(const KernelCase& k, std::ostream* os) { *os << k.id; }

class ProbeKernel : public ::testing::TestWithParam<KernelCase> {};

TEST_P(ProbeKernel, AccumulatorsHoldTheExpectedSums) {
  const KernelCase k = GetParam();
  double out[kProbeChains];
  const bool ran = mantissa::bench::runProbeKernel(k.id, k.iterations, out);
  if (!cpuinfoHasFlag(k.flag)) {
    EXPECT_FALSE(ran) << k.id << " ran although /proc/cpuinfo lacks " << k.flag;
    GTEST_SKIP() << "this CPU has no " << k.flag << ": " << k.id << " is reported absent";
  }
  if (!ran)
    GTEST_SKIP() << k.id << ": CPU has " << k.flag << " but the OS does not enable it";
  // chain c starts at c and gains addedPerIteration each iteration: if the
  // loop issued fewer or other instructions than claimed, the sum differs.
  for (int c = 0; c < k.chains; ++c)
    EXPECT_EQ(out[c], double(c) + double(k.iterations) * k.addedPerIteration)
        << k.id << " chain " << c;
}

INSTANTIATE_TEST_SUITE_P(
    Paths, ProbeKernel,
    ::testing::Values(KernelCase{"fp32_fma_avx2", "avx2", 1, 12, 100003},
                      KernelCase{"fp32_fma_avx512", "avx512f", 1, 12, 100003},
                      KernelCase{"bf16_dot_avx512", "avx512_bf16", 2, 12, 100003},
                      KernelCase{"fp16_fma_avx512", "avx512_fp16", 1, 12, 1001},
                      KernelCase{"bf16_amx", "amx_bf16", 32, 4, 10007}),
    [](const auto& param) { return std::string(param.param.id); });

TEST(IsaProbe, ReportsEveryPathPresentExactlyWhenTheCpuHasIt) {
  mantissa::bench::ProbeOptions fast;
  fast.secondsPerMeasurement = 0.01;
  const auto probe = mantissa::bench::measureIsaProbe(fast);
  ASSERT_EQ(probe.paths.size(), 5u);
  const std::pair<const char*, const char*> needs[] = {{"fp32_fma_avx2", "avx2"},
                                                       {"fp32_fma_avx512", "avx512f"},
                                                       {"bf16_dot_avx512", "avx512_bf16"},
                                                       {"fp16_fma_avx512", "avx512_fp16"}};
  for (const auto& [id, flag] : needs) {
    const auto* p = probe.find(id);
    ASSERT_NE(p, nullptr) << id;
    EXPECT_EQ(p->present, cpuinfoHasFlag(flag)) << id;
    if (p->present) {
      EXPECT_GT(p->gflopsPerCore, 0) << id;
      EXPECT_GE(p->gflopsAllCores, p->gflopsPerCore * 0.5) << id;
    } else {
      EXPECT_EQ(p->gflopsPerCore, 0) << id;
      EXPECT_FALSE(p->absentReason.empty()) << id;
    }
  }
  if (!cpuinfoHasFlag("amx_bf16")) {
    EXPECT_FALSE(probe.find("bf16_amx")->present);
  }
}

TEST(IsaProbe, IsRememberedPerMachineInTheCacheFile) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("mantissa-probe-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto file = dir / "mantissa" / "isa_probe.json";
  const auto first = mantissa::bench::isaProbe(file);
  EXPECT_FALSE(first.fromCache);
  ASSERT_TRUE(std::filesystem::exists(file));
  const auto second = mantissa::bench::isaProbe(file);
  EXPECT_TRUE(second.fromCache);
  ASSERT_EQ(second.paths.size(), first.paths.size());
  for (std::size_t i = 0; i < first.paths.size(); ++i)
    EXPECT_EQ(second.paths[i].gflopsPerCore, first.paths[i].gflopsPerCore);

  // A cache written on another machine (other key) is measured again.
  auto json = mantissa::bench::probeToJson(first);
  json["machine_key"] = "Some Other CPU | avx2 fma | 64 threads";
  { std::ofstream(file) << json.dump(); }
  const auto third = mantissa::bench::isaProbe(file);
  EXPECT_FALSE(third.fromCache);
  EXPECT_EQ(third.machineKey, mantissa::bench::probeMachineKey());

  // A damaged cache is measured again, not an error.
  { std::ofstream(file) << "{\"schema\": 1, \"paths\": 3"; }
  EXPECT_FALSE(mantissa::bench::isaProbe(file).fromCache);
  std::filesystem::remove_all(dir);
}

TEST(IsaProbe, JsonRejectsMissingFields) {
  auto json = mantissa::bench::probeToJson(mantissa::bench::IsaProbe{});
  json.erase("threads");
  EXPECT_THROW(mantissa::bench::probeFromJson(json), std::invalid_argument);
}

} // namespace
