// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Drives the Float Explorer like a user (type, click a bit, step a ULP) and
// checks what its widgets display against the formats' spec values.

#include "ui/app_shell/theme.h"
#include "ui/formats/bit_cells.h"
#include "ui/formats/float_explorer.h"
#include "ui/formats/format_card.h"
#include "ui/formats/number_text.h"
#include "ui/formats/range_strip.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QTest>
#include <QToolButton>

#include <gtest/gtest.h>

namespace mantissa::ui {
namespace {

using numeric::FormatId;

class ExplorerTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_explorer.resize(1600, 1000);
    m_explorer.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_explorer));
  }

  void type(const QString& text) {
    QLineEdit* input = m_explorer.input();
    input->setFocus();
    input->selectAll();
    QTest::keyClick(input, Qt::Key_Backspace);
    QTest::keyClicks(input, text);
  }

  QString shown(FormatId id, const char* label) const {
    auto* l = m_explorer.card(id)->findChild<QLabel*>(QLatin1String(label));
    return l ? plainDigits(l->text()) : QStringLiteral("<no label %1>").arg(label);
  }

  void clickBit(FormatId id, int bit) {
    BitCells* cells = m_explorer.card(id)->bitCells();
    QTest::mouseClick(cells, Qt::LeftButton, {}, cells->cellRect(bit).center());
  }

  FloatExplorer m_explorer;
};

TEST_F(ExplorerTest, TypingPointOneShowsEachFormatsSpecBitsAndExactValue) {
  type(QStringLiteral("0.1"));
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x2E66");
  EXPECT_EQ(shown(FormatId::Fp16, "storedValue"), "0.0999755859375");
  EXPECT_EQ(shown(FormatId::Fp32, "bitsHex"), "0x3DCCCCCD");
  EXPECT_EQ(shown(FormatId::Fp32, "storedValue"), "0.100000001490116119384765625");
  EXPECT_EQ(shown(FormatId::Bf16, "bitsHex"), "0x3DCD");
  EXPECT_EQ(shown(FormatId::Bf16, "storedValue"), "0.10009765625");
  EXPECT_EQ(shown(FormatId::Fp16, "classText"), "normal");
  // Bits drawn in the cells are the bits shown in hex.
  EXPECT_EQ(m_explorer.card(FormatId::Fp16)->bitCells()->bits(), 0x2E66u);
  // 0.0999755859375 - 0.1 = -2.44140625e-5
  EXPECT_TRUE(shown(FormatId::Fp16, "error").startsWith(QStringLiteral("−2.44e−5")))
      << shown(FormatId::Fp16, "error").toStdString();
  EXPECT_TRUE(shown(FormatId::Fp16, "ulp").startsWith(QStringLiteral("2⁻¹⁴")))
      << shown(FormatId::Fp16, "ulp").toStdString();
  EXPECT_FALSE(m_explorer.message()->property("error").toBool());
}

TEST_F(ExplorerTest, ClickingTheSignBitNegatesAndOtherFormatsFollow) {
  type(QStringLiteral("0.1"));
  clickBit(FormatId::Fp16, 15);
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0xAE66");
  EXPECT_EQ(shown(FormatId::Fp16, "storedValue"), "-0.0999755859375");
  EXPECT_EQ(m_explorer.input()->text(), "-0.0999755859375");
  // Every FP16 value is an FP32 value: FP32 now holds exactly -0.0999755859375.
  EXPECT_EQ(shown(FormatId::Fp32, "bitsHex"), "0xBDCCC000");
  EXPECT_EQ(shown(FormatId::Fp32, "error"), "exact");
}

TEST_F(ExplorerTest, ClickingTheLowestExponentBitHalvesTheValue) {
  type(QStringLiteral("0.1"));
  // FP16 0x2E66: exponent field 01011; bit 10 is its lowest bit, 11 -> 10.
  clickBit(FormatId::Fp16, 10);
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x2A66");
  EXPECT_EQ(shown(FormatId::Fp16, "storedValue"), "0.04998779296875"); // 0.0999755859375 / 2
  EXPECT_EQ(shown(FormatId::Fp32, "bitsHex"), "0x3D4CC000");
}

TEST_F(ExplorerTest, StepButtonsAndKeysMoveOneUlpInTheChosenFormat) {
  type(QStringLiteral("0.1"));
  // FP16 ULP at 0.1 (binade 2^-4) is 2^-14 = 0.00006103515625.
  QTest::mouseClick(m_explorer.card(FormatId::Fp16)->findChild<QToolButton*>("stepUp"),
                    Qt::LeftButton);
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x2E67");
  EXPECT_EQ(shown(FormatId::Fp16, "storedValue"), "0.10003662109375");
  EXPECT_EQ(m_explorer.selectedFormat(), FormatId::Fp16);

  QTest::keyClick(m_explorer.input(), Qt::Key_Down);
  QTest::keyClick(m_explorer.input(), Qt::Key_Down);
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x2E65");
  EXPECT_EQ(shown(FormatId::Fp16, "storedValue"), "0.09991455078125");

  // In the rounding combo, Down picks the next mode instead of stepping.
  auto* rounding = m_explorer.findChild<QComboBox*>("rounding");
  rounding->setFocus();
  QTest::keyClick(rounding, Qt::Key_Down);
  EXPECT_EQ(rounding->currentData().toInt(), int(numeric::Rounding::TowardZero));
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x2E65"); // 0.0999... typed: RZ keeps it
  rounding->setCurrentIndex(0);

  // BF16 steps by its own ULP (2^-11 at 0.1), not by FP16's or by 1.0.
  m_explorer.selectFormat(FormatId::Bf16);
  type(QStringLiteral("0.1"));
  QTest::keyClick(m_explorer.input(), Qt::Key_Up);
  EXPECT_EQ(shown(FormatId::Bf16, "bitsHex"), "0x3DCE");
  EXPECT_EQ(shown(FormatId::Bf16, "storedValue"), "0.1005859375");
}

TEST_F(ExplorerTest, InvalidInputShowsAnInlineErrorAndRecovers) {
  type(QStringLiteral("0.1"));
  type(QStringLiteral("0.1.2"));
  EXPECT_TRUE(m_explorer.message()->property("error").toBool());
  EXPECT_TRUE(m_explorer.message()->text().contains(QStringLiteral("0.1.2")))
      << m_explorer.message()->text().toStdString();
  EXPECT_TRUE(m_explorer.message()->isVisible());
  EXPECT_FALSE(m_explorer.card(FormatId::Fp16)->isEnabled());
  type(QStringLiteral("abc"));
  EXPECT_TRUE(m_explorer.message()->property("error").toBool());
  type(QStringLiteral("0.5"));
  EXPECT_FALSE(m_explorer.message()->property("error").toBool());
  EXPECT_TRUE(m_explorer.card(FormatId::Fp16)->isEnabled());
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x3800");
}

// "3,14" (a decimal comma) does not parse: the cards must not go on showing
// 3, the last value that did, beside the error. They are blanked and greyed.
TEST_F(ExplorerTest, AParseErrorBlanksTheValueShownBefore) {
  type(QStringLiteral("3"));
  ASSERT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x4200"); // binary16: 3 = 1.5 x 2^1
  type(QStringLiteral("3,14"));
  ASSERT_TRUE(m_explorer.message()->property("error").toBool());
  for (FormatId id : {FormatId::Fp32, FormatId::Fp16, FormatId::Bf16}) {
    const FormatCard* card = m_explorer.card(id);
    EXPECT_FALSE(card->isEnabled());
    EXPECT_FALSE(card->showsValue());
    EXPECT_TRUE(card->bitCells()->isBlank());
    EXPECT_EQ(shown(id, "bitsHex"), "—");
    EXPECT_EQ(shown(id, "storedValue"), "—");
    EXPECT_FALSE(shown(id, "storedValue").contains('3'));
  }
  type(QStringLiteral("3.5"));
  EXPECT_TRUE(m_explorer.card(FormatId::Fp16)->showsValue());
  EXPECT_FALSE(m_explorer.card(FormatId::Fp16)->bitCells()->isBlank());
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x4300");
}

TEST_F(ExplorerTest, RawBitsAreReadInTheChosenFormat) {
  m_explorer.findChild<QComboBox*>("inputMode")->setCurrentIndex(1); // Bits of FP32
  type(QStringLiteral("0x3dcccccd"));
  EXPECT_EQ(shown(FormatId::Fp32, "bitsHex"), "0x3DCCCCCD");
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x2E66");
  type(QStringLiteral("0x1ffffffff"));
  EXPECT_TRUE(m_explorer.message()->property("error").toBool());
  EXPECT_TRUE(m_explorer.message()->text().contains(QStringLiteral("0x1ffffffff")));

  // Read as a value, 0x10 is the number 16; the message says how to get bits.
  m_explorer.setInputMode(std::nullopt);
  type(QStringLiteral("0x10"));
  EXPECT_EQ(shown(FormatId::Fp16, "storedValue"), "16");
  EXPECT_FALSE(m_explorer.message()->property("error").toBool());
  EXPECT_TRUE(m_explorer.message()->text().contains(QStringLiteral("fp32:0x10")))
      << m_explorer.message()->text().toStdString();

  type(QStringLiteral("fp16:0x7bff"));
  EXPECT_EQ(shown(FormatId::Fp16, "storedValue"), "65504");
  // E5M2's max is 57344; 65504 lies past the midpoint to 2^16, so it overflows.
  EXPECT_EQ(shown(FormatId::Fp8E5M2, "classText"), "infinity");
  EXPECT_TRUE(m_explorer.card(FormatId::Fp8E5M2)->flagged());
  type(QStringLiteral("fp8-e4m3:0x7e"));
  EXPECT_EQ(shown(FormatId::Fp8E4M3, "storedValue"), "448");
}

TEST_F(ExplorerTest, OverflowAndUnderflowAreFlaggedOnTheRow) {
  type(QStringLiteral("70000"));
  EXPECT_TRUE(m_explorer.card(FormatId::Fp16)->flagged());
  EXPECT_TRUE(shown(FormatId::Fp16, "flags").contains(QStringLiteral("OVERFLOW")));
  EXPECT_EQ(shown(FormatId::Fp16, "classText"), "infinity");
  EXPECT_FALSE(m_explorer.card(FormatId::Bf16)->flagged());
  EXPECT_TRUE(shown(FormatId::Bf16, "flags").isEmpty());
  EXPECT_TRUE(m_explorer.card(FormatId::Fp16)->rangeStrip()->outOfRange());

  m_explorer.findChild<QCheckBox*>("saturate")->setChecked(true);
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x7BFF");  // 65504
  EXPECT_EQ(shown(FormatId::Fp8E4M3, "bitsHex"), "0x7E"); // 448
  m_explorer.findChild<QCheckBox*>("saturate")->setChecked(false);

  // FP16's min subnormal is 2^-24 ~ 5.96e-8: 1e-8 is below half of it.
  type(QStringLiteral("1e-8"));
  EXPECT_TRUE(m_explorer.card(FormatId::Fp16)->flagged());
  EXPECT_TRUE(shown(FormatId::Fp16, "flags").contains(QStringLiteral("UNDERFLOW")));
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x0000");
  EXPECT_FALSE(m_explorer.card(FormatId::Bf16)->flagged());
}

TEST_F(ExplorerTest, RoundingModeAndFtzChangeTheStoredBits) {
  auto* rounding = m_explorer.findChild<QComboBox*>("rounding");
  type(QStringLiteral("0.1"));
  rounding->setCurrentIndex(rounding->findData(int(numeric::Rounding::Up)));
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x2E67");
  rounding->setCurrentIndex(rounding->findData(int(numeric::Rounding::TowardZero)));
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0x2E66");
  type(QStringLiteral("-0.1"));
  rounding->setCurrentIndex(rounding->findData(int(numeric::Rounding::Down)));
  EXPECT_EQ(shown(FormatId::Fp16, "bitsHex"), "0xAE67");
  rounding->setCurrentIndex(rounding->findData(int(numeric::Rounding::NearestEven)));

  // 2^-130 is an FP32 subnormal; FTZ flushes it to zero.
  type(QStringLiteral("0x1p-130"));
  EXPECT_EQ(shown(FormatId::Fp32, "classText"), "subnormal");
  EXPECT_EQ(shown(FormatId::Fp32, "bitsHex"), "0x00080000");
  m_explorer.findChild<QCheckBox*>("ftz")->setChecked(true);
  EXPECT_EQ(shown(FormatId::Fp32, "bitsHex"), "0x00000000");
  EXPECT_TRUE(shown(FormatId::Fp32, "flags").contains(QStringLiteral("FTZ")));
  m_explorer.findChild<QCheckBox*>("ftz")->setChecked(false);
}

// BF16 has subnormals (2^-133 .. 2^-126), and the Explorer shows them, but
// training's FP32 -> BF16 casts flush them as VCVTNEPS2BF16 does: the card
// says so where it shows one, and only there.
TEST_F(ExplorerTest, ABf16SubnormalSaysTheTrainingCastsFlushIt) {
  type(QStringLiteral("0x1p-130")); // BF16 subnormal: 0x0008 (2^-130 = 2^-126 * 2^-4)
  EXPECT_EQ(shown(FormatId::Bf16, "bitsHex"), "0x0008");
  EXPECT_TRUE(shown(FormatId::Bf16, "classText").startsWith(QStringLiteral("subnormal")));
  EXPECT_TRUE(shown(FormatId::Bf16, "classText").contains(QStringLiteral("flush")));
  EXPECT_EQ(shown(FormatId::Fp32, "classText"), "subnormal"); // FP32 keeps its own word
  type(QStringLiteral("0x1p-120")); // normal in BF16
  EXPECT_EQ(shown(FormatId::Bf16, "classText"), "normal");
}

TEST_F(ExplorerTest, StochasticRoundingIsReproducibleForASeed) {
  auto* rounding = m_explorer.findChild<QComboBox*>("rounding");
  type(QStringLiteral("0.1"));
  rounding->setCurrentIndex(rounding->findData(int(numeric::Rounding::Stochastic)));
  const QString first = shown(FormatId::Fp8E5M2, "bitsHex");
  type(QStringLiteral("0.2"));
  type(QStringLiteral("0.1"));
  EXPECT_EQ(shown(FormatId::Fp8E5M2, "bitsHex"), first);
  // Either neighbour of 0.1 in FP8 E5M2: 0.09375 (0x2E) or 0.109375 (0x2F).
  EXPECT_TRUE(first == "0x2E" || first == "0x2F") << first.toStdString();
}

// At the top of a format, "next" says what lies beyond: FP16's 65504 has
// +inf above it; E4M3's 448 has nothing above, so a larger value converts
// to NaN, or to 448 under saturation; never 448 shown as its own neighbour.
TEST_F(ExplorerTest, NextAboveTheLargestValueSaysWhatLiesBeyond) {
  type(QStringLiteral("448"));
  const QString e4m3 = shown(FormatId::Fp8E4M3, "neighbours");
  EXPECT_TRUE(e4m3.endsWith(QStringLiteral("↑ NaN"))) << e4m3.toStdString();
  type(QStringLiteral("65504"));
  const QString fp16 = shown(FormatId::Fp16, "neighbours");
  EXPECT_TRUE(fp16.endsWith(QStringLiteral("↑ ∞"))) << fp16.toStdString();

  m_explorer.findChild<QCheckBox*>("saturate")->setChecked(true);
  type(QStringLiteral("448"));
  const QString saturated = shown(FormatId::Fp8E4M3, "neighbours");
  EXPECT_TRUE(saturated.endsWith(QStringLiteral("↑ saturates at 448"))) << saturated.toStdString();
  type(QStringLiteral("-448"));
  const QString below = shown(FormatId::Fp8E4M3, "neighbours");
  EXPECT_TRUE(below.startsWith(QStringLiteral("↓ saturates at ")) && below.contains(QStringLiteral("448  ↑"))) << below.toStdString();
  m_explorer.findChild<QCheckBox*>("saturate")->setChecked(false);
}

// Rows line up bit for bit, and nothing falls off the right edge: at a wide
// window the details sit beside the bits, in presenter mode at 1280 px below.
void expectRowsFitAndAlign(FloatExplorer& explorer, bool detailsBeside) {
  QApplication::processEvents();
  const int firstBitX = explorer.card(FormatId::Fp32)->bitCells()->mapTo(&explorer, QPoint()).x();
  for (FormatId id : numeric::explorerFormats()) {
    FormatCard* card = explorer.card(id);
    EXPECT_EQ(card->bitCells()->mapTo(&explorer, QPoint()).x(), firstBitX);
    EXPECT_EQ(card->bitCells()->width(), explorer.card(FormatId::Fp32)->bitCells()->width());
    for (const char* name : {"storedValue", "neighbours", "stepUp"}) {
      auto* w = card->findChild<QWidget*>(QLatin1String(name));
      ASSERT_NE(w, nullptr) << name;
      const QRect r(w->mapTo(&explorer, QPoint()), w->size());
      EXPECT_LE(r.right(), explorer.width()) << name;
    }
    auto* stored = card->findChild<QWidget*>("storedValue");
    const int bitsRight = card->bitCells()->mapTo(card, QPoint(card->bitCells()->width(), 0)).x();
    if (detailsBeside)
      EXPECT_GE(stored->mapTo(card, QPoint()).x(), bitsRight);
    else
      EXPECT_LT(stored->mapTo(card, QPoint()).x(), bitsRight);
  }
}

TEST(ExplorerLayout, RowsAlignAndFitWideAndInPresenterModeAt1280) {
  FloatExplorer explorer;
  explorer.resize(1900, 1000);
  explorer.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&explorer));
  expectRowsFitAndAlign(explorer, true);

  Theme::instance().setPresenter(true);
  explorer.resize(1280, 680);
  expectRowsFitAndAlign(explorer, false);
  Theme::instance().setPresenter(false);
}

} // namespace
} // namespace mantissa::ui
