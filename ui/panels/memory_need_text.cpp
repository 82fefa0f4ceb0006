// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/memory_need_text.h"

#include "ui/app_shell/palette.h"

#include <mantissa/train/run_config.h>

#include <QCoreApplication>
#include <QLabel>

namespace mantissa::ui {

void showMemoryNeed(QLabel* label, const train::MemoryNeed& need) {
  if (need.terms.empty()) {
    label->hide();
    return;
  }
  const auto available = train::availableMemory();
  QString text;
  bool over = false;
  try {
    train::checkMemory(need, available, "the runs need");
    text = QCoreApplication::translate("MemoryNeed", "Memory: the runs need %1")
               .arg(QString::fromStdString(train::formatBytes(need.total())));
    if (available)
      text += QCoreApplication::translate("MemoryNeed", " of %1 available")
                  .arg(QString::fromStdString(train::formatBytes(*available)));
  } catch (const train::ConfigError& e) {
    text = QString::fromStdString(e.what()); // the refusal the runs would meet
    over = true;
  }
  label->setText(text);
  label->setStyleSheet(over ? QStringLiteral("color: %1").arg(palette::kWarning.name()) : QString());
  label->show();
}

} // namespace mantissa::ui
