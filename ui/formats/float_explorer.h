// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/formats/explorer_model.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QScrollArea;
class QSpinBox;

namespace mantissa::ui {

class BlockView;
class CustomFormatForm;
class FormatCard;

// The Float Explorer: type a number (or raw bits) once and see how every
// format stores it, bit by bit. Click a bit to flip it, step one ULP with the
// buttons or the Up/Down keys; every other format follows.
class FloatExplorer : public QWidget {
  Q_OBJECT
public:
  explicit FloatExplorer(QWidget* parent = nullptr);

  const ExplorerModel& model() const { return m_model; }
  QLineEdit* input() const { return m_input; }
  QLabel* message() const { return m_message; }
  FormatCard* card(numeric::FormatId id) const;
  // The form that adds a user-defined format as a card, and those cards.
  CustomFormatForm* customForm() const { return m_customForm; }
  const std::vector<FormatCard*>& addedCards() const { return m_addedCards; }

  numeric::FormatId selectedFormat() const { return m_selected; }
  void selectFormat(numeric::FormatId id);
  // Raw hex typed in the field is read as bits of this format; nullopt: a value.
  void setInputMode(std::optional<numeric::FormatId> bitsOf);

  void stepSelected(int direction);

  // The block view (MX, NVFP4 and FP8 block scales), its own window; made on first use.
  BlockView* openBlockView();

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void layoutColumns();
  QWidget* buildHeader();
  QWidget* buildOptions();
  QWidget* buildLegend();
  void buildActions();
  void applyInput();
  void applyOptions();
  void flipBit(numeric::FormatId id, int bit);
  void step(numeric::FormatId id, int direction);
  void showModelInField();
  void refresh();
  void addCard(const numeric::FloatFormat& format);
  void showMessage(const QString& text, bool error);
  void applyFonts();
  std::optional<numeric::FormatId> inputMode() const;

  ExplorerModel m_model;
  QLineEdit* m_input = nullptr;
  QComboBox* m_mode = nullptr;
  QLabel* m_message = nullptr;
  QComboBox* m_rounding = nullptr;
  QSpinBox* m_seed = nullptr;
  QCheckBox* m_ftz = nullptr;
  QCheckBox* m_saturate = nullptr;
  QLabel* m_legend = nullptr;
  QWidget* m_cardsArea = nullptr;
  QScrollArea* m_scroll = nullptr;
  std::vector<FormatCard*> m_cards;
  std::vector<FormatCard*> m_addedCards; // also in m_cards
  CustomFormatForm* m_customForm = nullptr;
  class QVBoxLayout* m_cardsLayout = nullptr;
  numeric::FormatId m_selected = numeric::FormatId::Fp32;
  bool m_inputValid = true;
  BlockView* m_blockView = nullptr;
};

} // namespace mantissa::ui
