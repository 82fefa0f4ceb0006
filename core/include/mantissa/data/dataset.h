// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Data sets as the trainer sees them: dense float features, one byte label per
// sample. The built-in sets (mnist, fashion: embedded in the library; spirals,
// blobs: generated from a seed) need no file at run time. Users' files are read
// by loadDataSpec(): IDX (gzip or raw) or CSV.
//
// Legend: N = samples, F = features per sample, C = classes.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::data {

// Every loader failure. The message names the file (or data set) and the problem,
// e.g. "train-images.gz: truncated: header declares 47040000 pixel bytes, 1000 present".
class DataError : public std::runtime_error {
public:
  using runtime_error::runtime_error;
};

// Limits of every data file read (IDX, CSV), so memory stays bounded whatever
// a header claims or a gzip stream inflates to. Over a limit is a DataError
// naming it. At the limits a data set costs at most about 400 MiB: the floats
// (256 MiB), the bytes they come from, and the 20% test split.
inline constexpr std::size_t kMaxSamples = std::size_t{1} << 22;      // 4,194,304 per file
inline constexpr std::size_t kMaxSampleValues = std::size_t{1} << 26; // 64 Mi values (256 MiB as float)

struct Dataset {
  std::string name;                    // "mnist-10k (train)"
  int features = 0;                    // F: 784 for 28x28 images
  int classes = 0;                     // C: 10
  int imageWidth = 0, imageHeight = 0; // 0 when the samples are not images
  std::vector<float> x;                // [N, F] row-major; IDX pixels scaled to [0, 1]
  std::vector<std::uint8_t> y;         // [N], labels in [0, C)
  std::vector<std::string> classNames; // [C]: "0".."9", or Fashion-MNIST's names

  std::size_t size() const { return y.size(); }
};

struct TrainTest {
  Dataset train;
  Dataset test;
};

// The mean and standard deviation of all of `data`'s feature values together
// (one pair over every pixel of every sample; population variance), summed in
// double. What image models standardize their input with. An empty set gets
// {0, 1}, a set whose values are all equal standard deviation 1.
struct ValueStats {
  double mean = 0.0;
  double std = 1.0;
};
ValueStats valueStats(const Dataset& data);

// {"mnist", "fashion", "spirals", "blobs"}
std::vector<std::string> builtinNames();

// A built-in set by name. mnist: 8000/2000 28x28 digits; fashion: 10000/2000
// 28x28 clothing images; spirals: two interleaved arms, 2 features, 2 classes;
// blobs: 4 Gaussian blobs, 2 features. The synthetic sets depend on the seed
// (the image sets do not). Unknown name: DataError listing the valid ones.
TrainTest loadBuiltin(std::string_view name, std::uint64_t seed = 0);

// A built-in name (mnist and fashion also as mnist-10k and fashion-12k, the
// names of their files), or a path to
//  - an IDX images file ("*images*idx3*", gz or raw): labels are the file beside
//    it with "images" -> "labels" and "idx3" -> "idx1"; the test set is the
//    matching "t10k"/"test" file when the name says "train" and it exists,
//    otherwise a deterministic 80/20 split;
//  - a directory holding train and test IDX image/label pairs (MNIST naming);
//  - a .csv file (see loadCsv), split 80/20 by a fixed-seed shuffle.
// seed is passed on to the synthetic built-ins; files do not depend on it.
TrainTest loadDataSpec(std::string_view spec, std::uint64_t seed = 0);

// Attribution and licences of the embedded image sets (resources/data/README.md),
// for the About dialog and `--version`.
std::string_view builtinAttribution();

} // namespace mantissa::data
