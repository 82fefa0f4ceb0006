// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/train/memory_budget.h>

class QLabel;

namespace mantissa::ui {

// Shows on `label` what runs built side by side need against the memory
// available ("Memory: the runs need 148.2 MB of 7.8 GB available"), or, in
// the warning colour, the refusal they would meet when they do not fit
// (train::checkMemory's message). Hides the label when `need` has no terms.
void showMemoryNeed(QLabel* label, const train::MemoryNeed& need);

} // namespace mantissa::ui
