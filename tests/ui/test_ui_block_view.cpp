// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Explorer's block view, driven like a user: open it from the Explorer,
// type a block, switch scheme and scale rounding, and read the shared scale
// and the elements against blocks worked by hand from the OCP MX rules.

#include "ui/formats/block_view.h"
#include "ui/formats/float_explorer.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QTest>
#include <QToolButton>

#include <gtest/gtest.h>

namespace mantissa::ui {
namespace {

class BlockViewTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_explorer.resize(1400, 900);
    m_explorer.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_explorer));
    auto* button = m_explorer.findChild<QToolButton*>(QStringLiteral("openBlockView"));
    ASSERT_NE(button, nullptr);
    QTest::mouseClick(button, Qt::LeftButton);
    m_view = m_explorer.findChild<BlockView*>(QStringLiteral("blockView"));
    ASSERT_NE(m_view, nullptr);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(m_view));
  }

  void type(const QString& text) {
    QLineEdit* input = m_view->valuesInput();
    input->setFocus();
    input->selectAll();
    QTest::keyClick(input, Qt::Key_Backspace);
    QTest::keyClicks(input, text);
  }

  void pick(QComboBox* box, const QString& text) {
    const int i = box->findText(text);
    ASSERT_GE(i, 0) << text.toStdString();
    box->setCurrentIndex(i);
  }

  QString cell(int row, int column) const {
    const QTableWidgetItem* item = m_view->table()->item(row, column);
    return item ? item->text() : QStringLiteral("<empty>");
  }

  FloatExplorer m_explorer;
  BlockView* m_view = nullptr;
};

TEST_F(BlockViewTest, Mxfp4BlockShowsScaleBitsAndWhatWasLost) {
  pick(m_view->schemeBox(), QStringLiteral("mxfp4"));
  type(QStringLiteral("7, 1.3, -0.2, 0.1"));
  // amax 7: X = 2^(floor(log2 7) - 2) = 2^0, E8M0 code 127.
  EXPECT_TRUE(m_view->scaleLabel()->text().contains(QStringLiteral("01111111 (0x7f) = 2^0")))
      << m_view->scaleLabel()->text().toStdString();
  EXPECT_TRUE(m_view->scaleLabel()->text().contains(QStringLiteral("clipped")));
  ASSERT_EQ(m_view->table()->rowCount(), 4);
  EXPECT_EQ(cell(0, 1), "0111"); // 6, the E2M1 maximum
  EXPECT_EQ(cell(0, 4), "6");
  EXPECT_TRUE(cell(0, 5).contains(QStringLiteral("clipped")));
  EXPECT_EQ(cell(1, 1), "0011"); // 1.5
  EXPECT_EQ(cell(2, 1), "1000"); // -0
  EXPECT_TRUE(cell(2, 5).contains(QStringLiteral("lost to zero")));

  // ceil: X = 2, code 128; 7 / 2 = 3.5 ties to 4 (0110): 8, nothing clipped.
  pick(m_view->scaleRoundingBox(), QStringLiteral("scale ceil"));
  EXPECT_TRUE(m_view->scaleLabel()->text().contains(QStringLiteral("10000000 (0x80) = 2^1")));
  EXPECT_FALSE(m_view->scaleLabel()->text().contains(QStringLiteral("clipped")));
  EXPECT_EQ(cell(0, 1), "0110");
  EXPECT_EQ(cell(0, 4), "8");
}

TEST_F(BlockViewTest, SchemesAndBadInput) {
  pick(m_view->schemeBox(), QStringLiteral("mxint8"));
  type(QStringLiteral("1.5 -1.999"));
  EXPECT_EQ(cell(0, 1), "01100000"); // 96 / 64
  EXPECT_EQ(cell(1, 1), "10000001"); // -127, the symmetric minimum
  // nvfp4 has no scale rounding choice and shows its FP32 tensor scale.
  pick(m_view->schemeBox(), QStringLiteral("nvfp4"));
  EXPECT_FALSE(m_view->scaleRoundingBox()->isEnabled());
  type(QStringLiteral("2688 12"));
  EXPECT_TRUE(m_view->scaleLabel()->text().contains(QStringLiteral("tensor scale 0x3f800000 = 1")))
      << m_view->scaleLabel()->text().toStdString();
  // A bad number is named; 33 values are too many.
  type(QStringLiteral("1 2 x"));
  EXPECT_FALSE(m_view->result().has_value());
  EXPECT_TRUE(m_view->message()->text().contains(QStringLiteral("Column 5")))
      << m_view->message()->text().toStdString();
  EXPECT_EQ(m_view->table()->rowCount(), 0);
  QString many;
  for (int i = 0; i < 33; ++i)
    many += QStringLiteral("1 ");
  type(many);
  EXPECT_TRUE(m_view->message()->text().contains(QStringLiteral("more than 32 values")));
}

} // namespace
} // namespace mantissa::ui
