// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// How this build of the library was made, asked at run time by code compiled
// apart from it: the tests are compiled once and linked both into the release
// build and against the sanitizer build of the library, so a sweep that
// samples under a sanitizer, a memory bound that ASan's shadow breaks, or an
// address-space cap that ASan's reservation hits decides here, not with #ifdef.
namespace mantissa {

// ASan+UBSan, TSan or the fuzzing build.
bool builtWithSanitizer() noexcept;

// ASan (shadow memory and a quarantine of freed blocks in the resident set).
bool builtWithAddressSanitizer() noexcept;

} // namespace mantissa
