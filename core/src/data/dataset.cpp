// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/data/csv_loader.h>
#include <mantissa/data/dataset.h>
#include <mantissa/data/file_kind.h>
#include <mantissa/data/idx_loader.h>
#include <mantissa/data/synthetic.h>

#include "data/embedded_data.h"
#include "data/rng.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

namespace mantissa::data {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kSyntheticTrain = 2000; // samples per synthetic train set
constexpr std::size_t kSyntheticTest = 500;
constexpr int kBlobClasses = 4;
constexpr std::uint64_t kSplitSeed = 0x5EED'0F'80'20; // fixed: the 80/20 split of user files

TrainTest loadEmbeddedIdx(const std::string& prefix, const std::string& setName) {
  const auto part = [&](const std::string& split) {
    const std::string images = prefix + "-" + split + "-images-idx3-ubyte.gz";
    const std::string labels = prefix + "-" + split + "-labels-idx1-ubyte.gz";
    Dataset d = loadIdxBytes(detail::embeddedFile(images), "embedded " + images,
                             detail::embeddedFile(labels), "embedded " + labels);
    d.name = setName + " (" + split + ")";
    return d;
  };
  return {part("train"), part("test")};
}

// A fixed-seed shuffle, then the first 80% train and the rest test. The rows
// are permuted in place and only the test rows are copied, so the split costs
// 20% of the data on top of it (not a second copy of everything).
TrainTest splitTrainTest(Dataset all) {
  const std::size_t n = all.size();
  if (n < 2)
    throw DataError(all.name + ": " + std::to_string(n) +
                    " sample(s); at least 2 are needed to split into train and test");
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  detail::SplitMix64 rng(kSplitSeed);
  for (std::size_t i = n - 1; i > 0; --i)
    std::swap(order[i], order[rng.below(i + 1)]);
  const std::size_t nTrain = std::clamp<std::size_t>(n * 4 / 5, 1, n - 1);

  // Row i becomes row order[i], following each cycle of the permutation.
  const auto f = static_cast<std::size_t>(all.features);
  std::vector<float> saved(f);
  std::vector<bool> placed(n, false);
  const auto row = [&](std::size_t r) { return all.x.begin() + static_cast<std::ptrdiff_t>(r * f); };
  for (std::size_t start = 0; start < n; ++start) {
    if (placed[start])
      continue;
    std::copy_n(row(start), f, saved.begin());
    const std::uint8_t savedLabel = all.y[start];
    for (std::size_t pos = start;;) {
      placed[pos] = true;
      const std::size_t src = order[pos];
      if (src == start) {
        std::copy_n(saved.begin(), f, row(pos));
        all.y[pos] = savedLabel;
        break;
      }
      std::copy_n(row(src), f, row(pos));
      all.y[pos] = all.y[src];
      pos = src;
    }
  }

  Dataset test;
  test.name = all.name + " (test 20%)";
  test.features = all.features;
  test.classes = all.classes;
  test.imageWidth = all.imageWidth;
  test.imageHeight = all.imageHeight;
  test.classNames = all.classNames;
  test.x.assign(row(nTrain), all.x.end());
  test.y.assign(all.y.begin() + static_cast<std::ptrdiff_t>(nTrain), all.y.end());
  all.x.resize(nTrain * f);
  all.y.resize(nTrain);
  all.name += " (train 80%)";
  return {std::move(all), std::move(test)};
}

// Train and test must describe the same samples: an evaluation copies rows of
// the training width out of the test set.
TrainTest matched(TrainTest tt) {
  const Dataset& a = tt.train;
  const Dataset& b = tt.test;
  const auto shape = [](const Dataset& d) {
    return d.imageWidth > 0 ? std::to_string(d.imageHeight) + "x" + std::to_string(d.imageWidth) +
                                  " images"
                            : std::to_string(d.features) + " features";
  };
  if (a.features != b.features || a.imageWidth != b.imageWidth || a.imageHeight != b.imageHeight)
    throw DataError(b.name + ": " + shape(b) + ", but the training set " + a.name + " has " +
                    shape(a));
  if (a.classes != b.classes)
    throw DataError(b.name + ": " + std::to_string(b.classes) + " classes, but the training set " +
                    a.name + " has " + std::to_string(a.classes));
  return tt;
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// MNIST naming: the labels beside "train-images-idx3-ubyte.gz" are "train-labels-idx1-ubyte.gz".
fs::path labelsBeside(const fs::path& images) {
  const std::string name = images.filename().string();
  const std::string labels = replaceAll(replaceAll(name, "images", "labels"), "idx3", "idx1");
  if (labels == name)
    throw DataError(images.string() + ": cannot find its labels: the name contains neither "
                                      "'images' nor 'idx3' (expected e.g. train-images-idx3-ubyte.gz)");
  return images.parent_path() / labels;
}

TrainTest loadIdxFile(const fs::path& images) {
  Dataset train = loadIdx(images, labelsBeside(images));
  const std::string name = images.filename().string();
  if (name.find("train") != std::string::npos) {
    for (const char* testWord : {"t10k", "test"}) {
      const fs::path test = images.parent_path() / replaceAll(name, "train", testWord);
      if (fs::is_regular_file(test))
        return matched({std::move(train), loadIdx(test, labelsBeside(test))});
    }
  }
  return splitTrainTest(std::move(train));
}

TrainTest loadIdxDirectory(const fs::path& dir) {
  std::vector<fs::path> trainImages, testImages;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.find("idx3") == std::string::npos)
      continue;
    if (name.find("train") != std::string::npos)
      trainImages.push_back(entry.path());
    else if (name.find("t10k") != std::string::npos || name.find("test") != std::string::npos)
      testImages.push_back(entry.path());
  }
  if (trainImages.size() != 1 || testImages.size() != 1)
    throw DataError(dir.string() + ": expected one train and one test IDX images file "
                                   "(*train*idx3*, *t10k*idx3* or *test*idx3*), found " +
                    std::to_string(trainImages.size()) + " and " + std::to_string(testImages.size()));
  return matched({loadIdx(trainImages[0], labelsBeside(trainImages[0])),
                  loadIdx(testImages[0], labelsBeside(testImages[0]))});
}

} // namespace

ValueStats valueStats(const Dataset& data) {
  ValueStats s;
  if (data.x.empty())
    return s;
  // Two passes: the mean, then the squared deviations from it.
  double sum = 0.0;
  for (float v : data.x)
    sum += v;
  const double n = static_cast<double>(data.x.size());
  s.mean = sum / n;
  double squares = 0.0;
  for (float v : data.x) {
    const double d = v - s.mean;
    squares += d * d;
  }
  const double sd = std::sqrt(squares / n);
  s.std = sd > 0.0 && std::isfinite(sd) ? sd : 1.0;
  return s;
}

std::vector<std::string> builtinNames() { return {"mnist", "fashion", "spirals", "blobs"}; }

TrainTest loadBuiltin(std::string_view name, std::uint64_t seed) {
  if (name == "mnist")
    return loadEmbeddedIdx("mnist-10k", "mnist-10k");
  if (name == "fashion") {
    TrainTest tt = loadEmbeddedIdx("fashion-12k", "fashion-12k");
    const std::vector<std::string> names = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                            "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
    tt.train.classNames = tt.test.classNames = names;
    return tt;
  }
  if (name == "spirals")
    return {makeSpirals(kSyntheticTrain, detail::mixSeed(seed, 1), "spirals (train)"),
            makeSpirals(kSyntheticTest, detail::mixSeed(seed, 2), "spirals (test)")};
  if (name == "blobs")
    return {makeBlobs(kSyntheticTrain, kBlobClasses, detail::mixSeed(seed, 1), "blobs (train)"),
            makeBlobs(kSyntheticTest, kBlobClasses, detail::mixSeed(seed, 2), "blobs (test)")};
  throw DataError("'" + std::string(name) + "': not a built-in data set (mnist, fashion, spirals, blobs)");
}

TrainTest loadDataSpec(std::string_view spec, std::uint64_t seed) {
  // The embedded image sets by their file names too.
  if (spec == "mnist-10k")
    spec = "mnist";
  else if (spec == "fashion-12k")
    spec = "fashion";
  const auto names = builtinNames();
  if (std::find(names.begin(), names.end(), spec) != names.end())
    return loadBuiltin(spec, seed);
  const fs::path path(spec);
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return loadIdxDirectory(path);
  if (!fs::exists(path, ec))
    throw DataError("'" + std::string(spec) +
                    "': not a built-in data set (mnist, fashion, spirals, blobs) and no such file "
                    "or directory");
  switch (dataFileKind(path)) {
  case DataFileKind::Csv:
    return splitTrainTest(loadCsv(path));
  case DataFileKind::Text:
    throw DataError(path.string() +
                    ": a text, not images or points: text trains a GPT "
                    "(--model gpt:layers=4,heads=4,embd=128,ctx=64)");
  default:
    return loadIdxFile(path);
  }
}

std::string_view builtinAttribution() {
  const auto bytes = detail::embeddedFile("README.md");
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

} // namespace mantissa::data
