// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The whole data API in one include.

#include <mantissa/data/batcher.h>
#include <mantissa/data/csv_loader.h>
#include <mantissa/data/dataset.h>
#include <mantissa/data/idx_loader.h>
#include <mantissa/data/synthetic.h>
