// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QDialog>
#include <QString>

namespace mantissa::ui {

// One line per fact: "Mantissa 0.1.0", "oneDNN 2.6.3 (avx2)", "CPU: ...".
QString buildInfoText();

// kernels::bf16Support().label, the one BF16 label the status bar, the Speed
// page, the logs and --version show too: "Native BF16 (AVX512_BF16, oneDNN
// brg:avx512_core_bf16)", "BF16 emulated by oneDNN (...)", ...
QString bf16SupportText();

// Help > About Mantissa: version, oneDNN version, CPU ISA, licences and the
// data sets' attribution.
class AboutDialog : public QDialog {
  Q_OBJECT
public:
  explicit AboutDialog(QWidget* parent = nullptr);
};

} // namespace mantissa::ui
