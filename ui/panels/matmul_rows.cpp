// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/matmul_rows.h"

#include <QCoreApplication>

namespace mantissa::ui {

QStringList matmulRow(const nn::MatmulUse& u) {
  const auto tr = [](const char* text) { return QCoreApplication::translate("MatmulRows", text); };
  QString why = QString::fromStdString(u.kernel);
  if (!u.reason.empty())
    why += QStringLiteral("; ") + QString::fromStdString(u.reason);
  if (!u.result.empty())
    why += tr("; result %1").arg(QString::fromStdString(u.result));
  return {tr("layer %1 %2").arg(u.layer).arg(QString::fromStdString(u.product)),
          tr("%1×%2, K %3").arg(u.shape.m).arg(u.shape.n).arg(u.shape.k),
          QString::fromStdString(nn::pathDescription(u)), why};
}

} // namespace mantissa::ui
