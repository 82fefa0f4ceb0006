// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// bench_gpt --sizes (and its per-size child, --size-one N): see gpt_sizes.cpp.
int runGptSizes(int argc, char** argv);
