// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/amp/recipe.h>
#include <mantissa/model/op_times.h>
#include <mantissa/nn/linear.h>
#include <mantissa/train/shadow.h>

#include <QWidget>

#include <array>
#include <memory>
#include <vector>

class QBoxLayout;
class QLabel;
class QTableWidget;

namespace mantissa::ui {

// The selected run's op-precision table, read from the same amp::Recipe the
// trainer executes (amp::recipeTable), where its step time goes by op kind
// (the trainer's timing breakdown, mean over the last interval), and every
// matmul of the model: which path and kernel ran it and why.
class OpTablePanel : public QWidget {
  Q_OBJECT
public:
  explicit OpTablePanel(QWidget* parent = nullptr);

  // backend: e.g. "gemm:jit, BF16 emulated"; scaler: the scaler's one-line description.
  // modelRows: the model's own ops after the recipe's (a CNN's convolutions
  // with their kernels, BatchNorm statistics).
  void setRun(const amp::Recipe& recipe, const QString& backend, const QString& scaler,
              const std::vector<std::array<QString, 3>>& modelRows = {});
  // A run of another trainer (a PyTorch tap's log): its own op table, one row
  // per op {op, precision, note}.
  void setRun(const QString& title, const std::vector<std::array<QString, 3>>& rows,
              const QString& backend, const QString& scaler);
  // recorded false: the run's log has no per-op times; every cell shows "—"
  // and its tooltip says so.
  void setTimes(const model::OpTimes& mean, bool recorded = true);
  // After setRun: one more precision-table row per product (each layer's
  // forward, dX, dW: "matmul: layer 1 dW", its path, shape, kernel and why).
  // None for a log written before products were recorded or another
  // trainer's log.
  void setMatmuls(const std::vector<nn::MatmulUse>& uses);
  // The Error column: from the latest shadow frame (nullptr: none yet), for
  // the rows a compared tensor maps to (errorColumnTip()).
  void setShadowFrame(std::shared_ptr<const train::ShadowFrame> frame);
  static QString errorColumnTip();
  QString errorOf(int row) const; // the Error cell as shown ("3.2e-03", "—")
  // Rows of the precision table that come from the recipe; the products follow.
  int recipeRows() const { return m_recipeRows; }

  const QTableWidget* precisionTable() const { return m_precision; }
  const QTableWidget* timeTable() const { return m_times; }
  // Shown instead of the "How" column when the panel is too narrow for
  // three columns: the note of the selected op, wrapped at full width.
  const QLabel* howLabel() const { return m_how; }

protected:
  void resizeEvent(QResizeEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void fitTables();
  void fitOpColumn();
  void showHowOf(int row);
  void showShadow();
  std::vector<const train::ShadowError*> tensorsOf(const QString& op) const;

  QLabel* m_title = nullptr;
  QBoxLayout* m_tables = nullptr; // the two tables, side by side or stacked
  QTableWidget* m_precision = nullptr;
  QLabel* m_how = nullptr;
  QTableWidget* m_times = nullptr;
  int m_recipeRows = 0;
  std::shared_ptr<const train::ShadowFrame> m_shadow;
};

} // namespace mantissa::ui
