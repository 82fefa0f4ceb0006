// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Explorer's form for a user-defined format: typing a bad field shows
// core's error naming the field and disables Add; a valid one adds a card
// whose bits follow the typed value (E4M3 with bias 8, fnuz: 1.0 is 0x40 and
// 240 is the largest value, 0x7F, by the format's definition).

#include "ui/formats/custom_format_form.h"
#include "ui/formats/float_explorer.h"
#include "ui/formats/format_card.h"
#include "ui/formats/bit_cells.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>

#include <gtest/gtest.h>

namespace mantissa::ui {
namespace {

class CustomFormatTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_explorer.resize(1600, 1000);
    m_explorer.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_explorer));
  }
  void typeInto(QLineEdit* edit, const QString& text) {
    edit->setFocus();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
  }
  FloatExplorer m_explorer;
};

TEST_F(CustomFormatTest, BadFieldsAreNamedAsYouType) {
  CustomFormatForm* form = m_explorer.customForm();
  ASSERT_NE(form, nullptr);
  EXPECT_TRUE(form->addButton()->isEnabled()) << form->errorLabel()->text().toStdString();
  typeInto(form->biasEdit(), QStringLiteral("8x"));
  EXPECT_FALSE(form->addButton()->isEnabled());
  EXPECT_TRUE(form->errorLabel()->text().startsWith(QStringLiteral("bias")))
      << form->errorLabel()->text().toStdString();
  typeInto(form->biasEdit(), QStringLiteral("8"));
  EXPECT_TRUE(form->addButton()->isEnabled());
  EXPECT_TRUE(form->errorLabel()->text().isEmpty());
  // fnuz needs a sign bit: its NaN is the pattern of -0.
  form->specialBox()->setCurrentText(QStringLiteral("fnuz"));
  form->signBox()->setChecked(false);
  EXPECT_FALSE(form->addButton()->isEnabled());
  EXPECT_FALSE(form->errorLabel()->text().isEmpty());
  form->signBox()->setChecked(true);
  EXPECT_TRUE(form->addButton()->isEnabled()) << form->errorLabel()->text().toStdString();
}

TEST_F(CustomFormatTest, AddedCardShowsTheFormatsBits) {
  CustomFormatForm* form = m_explorer.customForm();
  form->exponentBox()->setValue(4);
  form->mantissaBox()->setValue(3);
  typeInto(form->biasEdit(), QStringLiteral("8"));
  form->specialBox()->setCurrentText(QStringLiteral("fnuz"));
  ASSERT_TRUE(form->format().has_value());
  EXPECT_EQ(form->format()->maxFinite(), 240.0);
  QTest::mouseClick(form->addButton(), Qt::LeftButton);
  ASSERT_EQ(m_explorer.addedCards().size(), 1u);
  FormatCard* card = m_explorer.addedCards().front();
  auto typeValue = [&](const char* text) {
    typeInto(m_explorer.input(), QString::fromLatin1(text));
  };
  typeValue("1");
  EXPECT_EQ(card->bitCells()->bits(), 0x40u); // 1.0 = 2^(8-8): exponent field 8
  typeValue("240");
  EXPECT_EQ(card->bitCells()->bits(), 0x7Fu);
  typeValue("-0");
  EXPECT_EQ(card->bitCells()->bits(), 0x00u); // no -0: 0x80 is the NaN
}

} // namespace
} // namespace mantissa::ui
