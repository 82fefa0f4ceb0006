// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/model/network.h>
#include <mantissa/model/shadow_reference.h>

#include <stdexcept>

namespace mantissa::model {

std::unique_ptr<ShadowReference> makeFp64Reference(const Network& model) {
  throw std::invalid_argument("shadow: no FP64 reference of " + model.specString() +
                              " is available; use fp32");
}

} // namespace mantissa::model
