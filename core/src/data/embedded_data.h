// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The files of resources/data/, linked into mantissa_core by the assembler file
// CMake generates (.incbin), so the built-in sets need no file at run time.

#include <cstdint>
#include <span>
#include <string_view>

namespace mantissa::data::detail {

// The bytes of an embedded file by its file name
// ("mnist-10k-train-images-idx3-ubyte.gz", "README.md"); empty if unknown.
std::span<const std::uint8_t> embeddedFile(std::string_view fileName);

} // namespace mantissa::data::detail
