// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Outside input quoted in a message (a policy or model spec, a name, a
// value): control and non-ASCII bytes escaped (\xNN), cut after `limit`
// characters with "... (N bytes)", so a message stays short however long
// the input. Every message that quotes what a user typed or a file held uses it.

#include <cstddef>
#include <string>
#include <string_view>

namespace mantissa::io {

std::string excerpt(std::string_view text, std::size_t limit = 60);

} // namespace mantissa::io
