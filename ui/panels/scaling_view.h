// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/bench/gpt_scaling.h>

#include <QWidget>

#include <optional>

class QLabel;
class QPushButton;
class QTableWidget;

namespace mantissa::ui {

class ScalingChart;

// The Speed page's model-size view: a GPT scaling result (the JSON the
// scaling benchmark writes, bench/gpt_scaling.h) as a chart of MFU against
// model size, Mantissa beside PyTorch, and a table of every size's step
// time, MFU and peak memory. The last result opened is remembered.
class ScalingView : public QWidget {
  Q_OBJECT
public:
  explicit ScalingView(QWidget* parent = nullptr);

  // Reads `path`; on success shows it, remembers it and returns "", else
  // shows and returns the message (naming the file and the field).
  QString open(const QString& path);
  // Where the last result opened is kept (AppDataLocation).
  static QString rememberedPath();

  const std::optional<bench::GptScaling>& scaling() const { return m_scaling; }
  ScalingChart* chart() const { return m_chart; }
  QTableWidget* table() const { return m_table; }
  QLabel* statusLabel() const { return m_status; }
  QPushButton* openButton() const { return m_open; }

signals:
  void resultOpened();

private:
  void showScaling(const bench::GptScaling& scaling);
  void openWithDialog();

  QPushButton* m_open = nullptr;
  QLabel* m_status = nullptr;
  ScalingChart* m_chart = nullptr;
  QTableWidget* m_table = nullptr;
  std::optional<bench::GptScaling> m_scaling;
};

} // namespace mantissa::ui
