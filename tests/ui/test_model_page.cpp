// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Model page: a safetensors file written byte by byte here, with planted
// values (65520 overflows FP16, 65504 does not, a subnormal, a value lost to
// zero, NaN, inf, -0), shows in its tensor table and per-format table the
// counts a plain double loop over the same values gives; the name filter;
// a hostile file's inline error that keeps the model shown; Cancel; the
// table's CSV export and the report; File > Open Model in the main window.
// A 200 x 300 E4M3 weight with its 2 x 3 weight_scale_inv: the Scales tab's
// heat map and histogram against the scales and an E4M3 decoder written
// here, a block opened in the block view, a tensor's value in the Explorer.
#include "ui/app_shell/main_window.h"
#include "ui/charts/block_scale_map.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/histogram_chart.h"
#include "ui/formats/block_view.h"
#include "ui/formats/float_explorer.h"
#include "ui/model/model_format_table.h"
#include "ui/model/model_page.h"
#include "ui/model/model_scan_job.h"
#include "ui/model/model_tensor_model.h"
#include "ui/model/model_tensor_view.h"
#include "ui/panels/whatif_table.h"

#include <QAction>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QProgressBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace {

using mantissa::ui::ModelPage;
using mantissa::ui::ModelTensorModel;
namespace inspect = mantissa::inspect;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Fixture {
  std::string name, dtype;
  std::vector<std::uint64_t> shape;
  std::vector<double> values; // F32 tensors: the values written
  std::string bytes;          // the data as stored
};

void putU64(std::string& s, std::uint64_t v) {
  for (int i = 0; i < 8; ++i)
    s.push_back(char((v >> (8 * i)) & 0xFF));
}
void putU32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    s.push_back(char((v >> (8 * i)) & 0xFF));
}

Fixture f32(std::string name, std::vector<std::uint64_t> shape, std::vector<double> values) {
  Fixture f{std::move(name), "F32", std::move(shape), std::move(values), {}};
  for (double v : f.values)
    putU32(f.bytes, std::bit_cast<std::uint32_t>(float(v)));
  return f;
}

Fixture raw(std::string name, std::string dtype, std::vector<std::uint64_t> shape, std::string bytes) {
  return {std::move(name), std::move(dtype), std::move(shape), {}, std::move(bytes)};
}

// The safetensors layout: u64 header length, the JSON header, the data.
std::string safetensors(const std::vector<Fixture>& tensors) {
  std::string header = "{\"__metadata__\":{\"format\":\"pt\"}";
  std::uint64_t offset = 0;
  for (const Fixture& t : tensors) {
    header += ",\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
    for (std::size_t i = 0; i < t.shape.size(); ++i)
      header += (i ? "," : "") + std::to_string(t.shape[i]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + t.bytes.size()) + "]}";
    offset += t.bytes.size();
  }
  header += "}";
  while (header.size() % 8)
    header += ' ';
  std::string out;
  putU64(out, header.size());
  out += header;
  for (const Fixture& t : tensors)
    out += t.bytes;
  return out;
}

void writeFile(const QString& path, const std::string& bytes) {
  std::ofstream(path.toStdString(), std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

// 32 values: FP16's largest finite 65504 (kept), 65520 and -70000 (past the
// rounding edge 65504 + 16: overflow), 1e-6 and 3e-5 (FP16 subnormals:
// between 2^-25 and 2^-14), 1e-8 (below 2^-25: lost to zero), 0, -0, NaN,
// +inf, the rest ordinary.
std::vector<double> plantedValues() {
  std::vector<double> v{65504.0, 65520.0, -70000.0, 1e-6, 3e-5, 1e-8, 0.0, -0.0, kNaN, kInf};
  for (int i = 0; v.size() < 32; ++i)
    v.push_back(0.25 * (i - 11));
  return v;
}

std::vector<Fixture> fixtures() {
  std::vector<double> attn0(64), attn1(32), head(32);
  for (int i = 0; i < 64; ++i)
    attn0[std::size_t(i)] = (i % 5 == 0) ? 0.0 : 0.01 * (i - 30);
  for (int i = 0; i < 32; ++i)
    attn1[std::size_t(i)] = -3.0 + 0.2 * i;
  for (int i = 0; i < 32; ++i)
    head[std::size_t(i)] = i == 7 ? 1.0e5 : 0.001 * i;
  // F8_E4M3 codes: 0x38 = 1.0, 0x40 = 2.0, 0xB8 = -1.0.
  std::string f8(32, char(0x38));
  f8[3] = char(0x40);
  f8[9] = char(0xB8);
  std::string scale;
  putU32(scale, std::bit_cast<std::uint32_t>(0.5f));
  return {f32("model.layers.0.mlp.weight", {4, 8}, plantedValues()),
          f32("model.layers.0.attn.weight", {2, 32}, attn0),
          f32("model.layers.1.attn.weight", {32}, attn1),
          raw("model.layers.1.q.weight", "F8_E4M3", {32}, f8),
          raw("model.layers.1.k.weight", "F8_E4M3", {32}, f8),
          raw("model.layers.1.k.weight_scale", "F32", {1}, scale),
          f32("lm_head.weight", {2, 16}, head)};
}

struct Expected {
  std::uint64_t finite = 0, zeros = 0, nonFinite = 0;
  double min = kInf, max = -kInf, absmax = 0;
  std::uint64_t fp16Overflow = 0, fp16Subnormal = 0, fp16LostToZero = 0;
};

// The plain double loop: FP16 round to nearest even overflows from
// 65504 + 16 = 65520 on; |x| <= 2^-25 becomes zero; (2^-25, 2^-14) is subnormal
// (the fixture keeps away from the rounding edge just below 2^-14).
Expected expect(const std::vector<double>& values) {
  Expected e;
  for (double x : values) {
    const double fx = double(float(x));
    if (!std::isfinite(fx)) {
      ++e.nonFinite;
      continue;
    }
    ++e.finite;
    if (fx == 0.0)
      ++e.zeros;
    e.min = std::min(e.min, fx);
    e.max = std::max(e.max, fx);
    e.absmax = std::max(e.absmax, std::fabs(fx));
    const double a = std::fabs(fx);
    if (a >= 65520.0)
      ++e.fp16Overflow;
    else if (a != 0.0 && a <= std::ldexp(1.0, -25))
      ++e.fp16LostToZero;
    else if (a != 0.0 && a < std::ldexp(1.0, -14))
      ++e.fp16Subnormal;
  }
  return e;
}

// One CSV line's fields: a quoted field may hold commas, "" is a quote.
QStringList csvFields(const QString& line) {
  QStringList out{QString()};
  bool quoted = false;
  for (int i = 0; i < line.size(); ++i) {
    const QChar c = line[i];
    if (quoted && c == u'"' && i + 1 < line.size() && line[i + 1] == u'"')
      out.back() += c, ++i;
    else if (c == u'"')
      quoted = !quoted;
    else if (c == u',' && !quoted)
      out << QString();
    else
      out.back() += c;
  }
  return out;
}

// The proxy index (column 0) of tensor `t`, invalid if not shown.
QModelIndex rowOf(const QAbstractItemModel* m, qlonglong t) {
  std::function<QModelIndex(const QModelIndex&)> find = [&](const QModelIndex& parent) -> QModelIndex {
    for (int r = 0; r < m->rowCount(parent); ++r) {
      const QModelIndex i = m->index(r, 0, parent);
      if (i.data(ModelTensorModel::TensorRole).toLongLong() == t)
        return i;
      if (const QModelIndex c = find(i); c.isValid())
        return c;
    }
    return {};
  };
  return find({});
}

double cell(const QModelIndex& row, int column) {
  return row.siblingAtColumn(column).data(ModelTensorModel::SortRole).toDouble();
}

class ModelPageTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(dir.isValid());
    path = dir.filePath(QStringLiteral("fixture.safetensors"));
    writeFile(path, safetensors(fixtures()));
  }
  // Opens `file` and waits for the page to show it.
  bool open(ModelPage& page, const QString& file) {
    QSignalSpy shown(&page, &ModelPage::modelShown);
    page.openModel(file);
    return QTest::qWaitFor([&] { return shown.count() == 1; }, 30000);
  }
  std::size_t indexOf(const ModelPage& page, const std::string& name) const {
    const auto& ts = page.scan()->model->tensors();
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i].name == name)
        return i;
    ADD_FAILURE() << "no tensor " << name;
    return 0;
  }
  QTemporaryDir dir;
  QString path;
};

TEST_F(ModelPageTest, TableCountsEqualAPlainDoubleLoop) {
  ModelPage page;
  ASSERT_TRUE(open(page, path));
  const QAbstractItemModel* shown = page.tensorView()->model();
  for (const Fixture& f : fixtures()) {
    if (f.values.empty())
      continue;
    SCOPED_TRACE(f.name);
    const Expected e = expect(f.values);
    const QModelIndex row = rowOf(shown, qlonglong(indexOf(page, f.name)));
    ASSERT_TRUE(row.isValid());
    EXPECT_EQ(cell(row, ModelTensorModel::Zeros), double(e.zeros));
    EXPECT_EQ(cell(row, ModelTensorModel::NonFinite), double(e.nonFinite));
    EXPECT_EQ(cell(row, ModelTensorModel::Min), e.min);
    EXPECT_EQ(cell(row, ModelTensorModel::Max), e.max);
    EXPECT_EQ(cell(row, ModelTensorModel::AbsMax), e.absmax);
    EXPECT_EQ(row.siblingAtColumn(ModelTensorModel::DType).data().toString(), QStringLiteral("F32"));
  }
  // Grouped by layer: two layers and the head at the top level, two tensors in layer 0.
  ASSERT_EQ(shown->rowCount(), 3);
  int layer0 = -1;
  for (int r = 0; r < 3; ++r)
    if (shown->index(r, 0).data(ModelTensorModel::NameRole).toString() == QStringLiteral("model.layers.0"))
      layer0 = r;
  ASSERT_GE(layer0, 0);
  EXPECT_EQ(shown->rowCount(shown->index(layer0, 0)), 2);

  // The planted tensor's row per format.
  const std::size_t planted = indexOf(page, "model.layers.0.mlp.weight");
  page.selectTensor(planted);
  ASSERT_EQ(page.selectedTensor(), planted);
  const Expected e = expect(plantedValues());
  const auto& stats = page.formatTable()->stats();
  ASSERT_TRUE(stats.has_value());
  const auto& fp16 = stats->at(inspect::Target::Fp16);
  EXPECT_EQ(fp16.overflow, e.fp16Overflow);
  EXPECT_EQ(e.fp16Overflow, 2u);
  EXPECT_EQ(fp16.subnormal, e.fp16Subnormal);
  EXPECT_EQ(fp16.lostToZero, e.fp16LostToZero);
  // Shown as the share of the finite values.
  const int fp16Row = 0;
  EXPECT_EQ(page.formatTable()->item(fp16Row, 0)->text(), QStringLiteral("FP16"));
  EXPECT_EQ(page.formatTable()->item(fp16Row, mantissa::ui::ModelFormatTable::Overflow)->text(),
            QStringLiteral("%1 %").arg(100.0 * double(e.fp16Overflow) / double(e.finite), 0, 'g', 3));
  EXPECT_EQ(page.formatTable()->rowCount(), inspect::kTargetCount);
  // The histogram is the tensor's: its finite non-zero values, binned by exponent.
  EXPECT_TRUE(page.histogram()->title().contains(QStringLiteral("model.layers.0.mlp.weight")));

  // Verdicts: FP16 names both overflowing tensors, with the hint to keep them in BF16.
  const QString verdicts = page.verdictPanel()->toPlainText();
  EXPECT_TRUE(verdicts.contains(QStringLiteral("model.layers.0.mlp.weight"))) << verdicts.toStdString();
  EXPECT_TRUE(verdicts.contains(QStringLiteral("lm_head.weight"))) << verdicts.toStdString();
  EXPECT_TRUE(verdicts.contains(QStringLiteral("BF16"))) << verdicts.toStdString();
  // The F8 tensor with no scale is an orphan; the other is shown with its scale.
  const ModelTensorModel* tm = page.tensorView()->tensorModel();
  EXPECT_TRUE(tm->isOrphan(indexOf(page, "model.layers.1.q.weight")));
  EXPECT_FALSE(tm->isOrphan(indexOf(page, "model.layers.1.k.weight")));
  EXPECT_TRUE(tm->scaleText(indexOf(page, "model.layers.1.k.weight"))
                  .contains(QStringLiteral("model.layers.1.k.weight_scale")));
  EXPECT_TRUE(verdicts.contains(QStringLiteral("orphan"))) << verdicts.toStdString();
  // The orphan's name is a link to its row.
  const std::size_t orphan = indexOf(page, "model.layers.1.q.weight");
  const QString href = QStringLiteral("tensor:%1").arg(orphan);
  EXPECT_TRUE(page.verdictPanel()->toHtml().contains(href));
  emit page.verdictPanel()->anchorClicked(QUrl(href));
  EXPECT_EQ(page.selectedTensor(), orphan);
  EXPECT_TRUE(page.formatTable()->title().contains(QStringLiteral("model.layers.1.q.weight")));
}

TEST_F(ModelPageTest, FilterShowsTheTensorsWhoseNameHoldsTheText) {
  ModelPage page;
  ASSERT_TRUE(open(page, path));
  for (const QString& text : {QStringLiteral("attn"), QStringLiteral("ATTN"), QStringLiteral("layers.1"),
                              QStringLiteral("nothing-like-this")}) {
    page.filterEdit()->setText(text);
    std::vector<std::string> expected, got;
    for (const Fixture& f : fixtures())
      if (QString::fromStdString(f.name).contains(text, Qt::CaseInsensitive))
        expected.push_back(f.name);
    for (std::size_t t : page.tensorView()->shownTensors())
      got.push_back(page.scan()->model->tensors()[t].name);
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, expected) << text.toStdString();
  }
  page.filterEdit()->clear();
  EXPECT_EQ(page.tensorView()->shownTensors().size(), fixtures().size());
}

TEST_F(ModelPageTest, SortingByAbsmaxOrdersTheRows) {
  ModelPage page;
  ASSERT_TRUE(open(page, path));
  // Descending by absmax: lm_head (1e5) first; then layer 0, whose largest
  // tensor holds 70000, with that tensor before its 0.33 neighbour; then
  // layer 1 (3.2 at most).
  page.tensorView()->sortByColumn(ModelTensorModel::AbsMax, Qt::DescendingOrder);
  std::vector<std::string> names;
  for (std::size_t t : page.tensorView()->shownTensors())
    names.push_back(page.scan()->model->tensors()[t].name);
  ASSERT_EQ(names.size(), fixtures().size());
  EXPECT_EQ(names[0], "lm_head.weight");
  EXPECT_EQ(names[1], "model.layers.0.mlp.weight");
  EXPECT_EQ(names[2], "model.layers.0.attn.weight");
  EXPECT_EQ(names[3], "model.layers.1.attn.weight");
  EXPECT_EQ(names.back(), "model.layers.1.k.weight_scale"); // 0.5
}

TEST_F(ModelPageTest, HostileFilesShowAnErrorAndKeepTheModel) {
  ModelPage page;
  ASSERT_TRUE(open(page, path));
  const auto before = page.scan();
  const int rows = page.tensorView()->model()->rowCount();

  // A safetensors file cut short: its last tensor ends past the file.
  std::string cut = safetensors(fixtures());
  cut.resize(cut.size() - 40);
  const QString truncated = dir.filePath(QStringLiteral("truncated.safetensors"));
  writeFile(truncated, cut);
  // A GGUF v3 header claiming 2^40 tensors in a 24-byte file.
  std::string gguf = "GGUF";
  putU32(gguf, 3);
  putU64(gguf, std::uint64_t(1) << 40);
  putU64(gguf, 0);
  const QString hostile = dir.filePath(QStringLiteral("hostile.gguf"));
  writeFile(hostile, gguf);

  for (const QString& bad : {truncated, hostile}) {
    SCOPED_TRACE(bad.toStdString());
    QSignalSpy failed(&page, &ModelPage::openFailed);
    page.openModel(bad);
    ASSERT_TRUE(QTest::qWaitFor([&] { return failed.count() == 1; }, 30000));
    EXPECT_TRUE(page.errorLabel()->isVisibleTo(&page));
    const QString message = page.errorLabel()->text();
    EXPECT_TRUE(message.contains(QFileInfo(bad).fileName())) << message.toStdString();
    EXPECT_EQ(page.scan(), before);
    EXPECT_EQ(page.tensorView()->model()->rowCount(), rows);
    EXPECT_FALSE(page.scanning());
  }
  // A good file again clears the error.
  ASSERT_TRUE(open(page, path));
  EXPECT_FALSE(page.errorLabel()->isVisibleTo(&page));
}

TEST_F(ModelPageTest, CancelStopsTheScanAndKeepsTheModel) {
  ModelPage page;
  ASSERT_TRUE(open(page, path));
  const auto before = page.scan();
  // 64 tensors of 1 Mi zeros each (256 MB, a sparse file: the data part is a hole).
  std::string header;
  {
    std::string h = "{";
    for (int i = 0; i < 64; ++i)
      h += std::string(i ? "," : "") + "\"model.layers." + std::to_string(i) +
           ".w\":{\"dtype\":\"F32\",\"shape\":[1024,1024],\"data_offsets\":[" +
           std::to_string(std::uint64_t(i) << 22) + "," + std::to_string(std::uint64_t(i + 1) << 22) + "]}";
    h += "}";
    while (h.size() % 8)
      h += ' ';
    putU64(header, h.size());
    header += h;
  }
  const QString large = dir.filePath(QStringLiteral("large.safetensors"));
  writeFile(large, header);
  std::filesystem::resize_file(large.toStdString(), header.size() + (std::uint64_t(64) << 22));

  QSignalSpy cancelled(&page, &ModelPage::scanCancelled);
  QSignalSpy shown(&page, &ModelPage::modelShown);
  page.openModel(large);
  EXPECT_TRUE(page.scanning());
  EXPECT_TRUE(page.progressBar()->isVisibleTo(&page));
  page.cancelScan();
  ASSERT_TRUE(QTest::qWaitFor([&] { return cancelled.count() == 1; }, 30000));
  EXPECT_EQ(shown.count(), 0);
  EXPECT_FALSE(page.scanning());
  EXPECT_FALSE(page.progressBar()->isVisibleTo(&page));
  EXPECT_EQ(page.scan(), before);

  // The job itself: cancelled after its first progress report, it never finishes.
  mantissa::ui::ModelScanJob job(large);
  QSignalSpy progressed(&job, &mantissa::ui::ModelScanJob::progressed);
  QSignalSpy jobCancelled(&job, &mantissa::ui::ModelScanJob::cancelled);
  QSignalSpy finished(&job, &mantissa::ui::ModelScanJob::finished);
  ASSERT_TRUE(QTest::qWaitFor([&] { return progressed.count() >= 1 || finished.count() == 1; }, 30000));
  job.cancel();
  ASSERT_TRUE(QTest::qWaitFor([&] { return jobCancelled.count() == 1 || finished.count() == 1; }, 30000));
  EXPECT_EQ(finished.count(), 0);
  EXPECT_EQ(jobCancelled.count(), 1);
}

TEST_F(ModelPageTest, ExportsTheShownRowsAndTheReport) {
  ModelPage page;
  ASSERT_TRUE(open(page, path));
  page.filterEdit()->setText(QStringLiteral("layers.0"));
  const QString csv = dir.filePath(QStringLiteral("tensors.csv"));
  ASSERT_EQ(mantissa::ui::exportChart(*page.tensorView(), csv), QString());
  QFile file(csv);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  const QStringList lines = QString::fromUtf8(file.readAll()).split(u'\n', Qt::SkipEmptyParts);
  ASSERT_EQ(lines.size(), 3); // the header and the two tensors of layer 0
  EXPECT_TRUE(lines[0].startsWith(QStringLiteral("name,layer,dtype")));
  QStringList names{lines[1].section(u',', 0, 0), lines[2].section(u',', 0, 0)};
  names.sort();
  EXPECT_EQ(names, (QStringList{QStringLiteral("model.layers.0.attn.weight"),
                                QStringLiteral("model.layers.0.mlp.weight")}));
  // The planted tensor's row: zeros and NaN as the loop counts them.
  for (const QString& line : lines)
    if (line.startsWith(QStringLiteral("model.layers.0.mlp.weight,"))) {
      const QStringList f = csvFields(line);
      const Expected e = expect(plantedValues());
      ASSERT_EQ(f.size(), 15);
      EXPECT_EQ(f[9].toDouble(), e.absmax);
      EXPECT_EQ(f[10].toULongLong(), e.zeros);
      EXPECT_EQ(f[11].toULongLong() + f[12].toULongLong() + f[13].toULongLong(), e.nonFinite);
    }

  // The per-format table exports one row per format.
  page.selectTensor(indexOf(page, "model.layers.0.mlp.weight"));
  const QString formats = dir.filePath(QStringLiteral("formats.csv"));
  ASSERT_EQ(mantissa::ui::exportChart(*page.formatTable(), formats), QString());
  QFile ff(formats);
  ASSERT_TRUE(ff.open(QIODevice::ReadOnly));
  EXPECT_EQ(QString::fromUtf8(ff.readAll()).split(u'\n', Qt::SkipEmptyParts).size(), 1 + inspect::kTargetCount);

  // The report, by suffix.
  for (const char* suffix : {"html", "json", "csv"}) {
    const QString report = dir.filePath(QStringLiteral("report.") + QLatin1String(suffix));
    ASSERT_EQ(page.exportReport(report), QString()) << suffix;
    QFile r(report);
    ASSERT_TRUE(r.open(QIODevice::ReadOnly));
    EXPECT_TRUE(r.readAll().contains("lm_head.weight")) << suffix;
  }
  EXPECT_FALSE(page.exportReport(dir.filePath(QStringLiteral("report.txt"))).isEmpty());
}

// E4M3 (OCP: bias 7, S.1111.111 NaN) decoded by hand.
double e4m3(std::uint8_t b) {
  const int e = (b >> 3) & 15, m = b & 7;
  const double mag = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
  return (b & 0x80) ? -mag : mag;
}

struct Quantized {
  std::string weight;                 // 200 x 300 E4M3 bytes
  std::vector<float> scales;          // 2 x 3
  double dequantized(std::size_t r, std::size_t c) const {
    return e4m3(std::uint8_t(weight[r * 300 + c])) * double(scales[(r / 128) * 3 + c / 128]);
  }
};

Quantized quantizedWeight() {
  Quantized q;
  std::uint32_t x = 12345;
  for (int i = 0; i < 200 * 300; ++i) {
    x = x * 1664525u + 1013904223u;
    std::uint8_t b = std::uint8_t(x >> 24);
    if ((b & 0x7f) == 0x7f)
      b = 0x38;
    q.weight.push_back(char(b));
  }
  q.scales = {0.5f, 0.25f, 1.0f / 1024.0f, 8.0f, 3.0e-3f, 1.5f};
  return q;
}

TEST_F(ModelPageTest, ScalesTabShowsAPairedBlockScaleTensorAndOpensItsBlocks) {
  const Quantized q = quantizedWeight();
  std::string sc;
  for (float v : q.scales)
    putU32(sc, std::bit_cast<std::uint32_t>(v));
  const QString file = dir.filePath(QStringLiteral("fp8.safetensors"));
  writeFile(file, safetensors({raw("model.layers.0.mlp.up.weight", "F8_E4M3", {200, 300}, q.weight),
                               raw("model.layers.0.mlp.up.weight_scale_inv", "F32", {2, 3}, sc),
                               f32("model.norm.weight", {32}, plantedValues())}));
  ModelPage page;
  ASSERT_TRUE(open(page, file));
  page.selectTensor(indexOf(page, "model.norm.weight"));
  EXPECT_FALSE(page.scaleMap()->hasData());
  page.selectTensor(indexOf(page, "model.layers.0.mlp.up.weight"));
  mantissa::ui::BlockScaleMap* map = page.scaleMap();
  ASSERT_TRUE(map->hasData());
  ASSERT_EQ(map->gridRows(), 2);
  ASSERT_EQ(map->gridCols(), 3);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) {
      SCOPED_TRACE(std::to_string(r) + ", " + std::to_string(c));
      const int b = map->blockAt(r, c);
      ASSERT_GE(b, 0);
      EXPECT_EQ(map->log2Scale(b), std::log2(double(q.scales[std::size_t(r * 3 + c)])));
      double amax = 0.0;
      for (std::size_t i = std::size_t(r) * 128; i < std::min<std::size_t>(200, std::size_t(r + 1) * 128); ++i)
        for (std::size_t j = std::size_t(c) * 128; j < std::min<std::size_t>(300, std::size_t(c + 1) * 128); ++j)
          amax = std::max(amax, std::fabs(q.dequantized(i, j)));
      EXPECT_EQ(map->block(b).amax, amax);
    }
  // The scales' histogram: one bar per binade of the six scales.
  const QString histCsv = dir.filePath(QStringLiteral("scales-hist.csv"));
  ASSERT_EQ(mantissa::ui::exportChart(*page.scaleHistogram(), histCsv), QString());
  QFile hf(histCsv);
  ASSERT_TRUE(hf.open(QIODevice::ReadOnly));
  const QString hist = QString::fromUtf8(hf.readAll());
  std::map<int, int> binades;
  for (float v : q.scales)
    ++binades[int(std::floor(std::log2(double(v))))];
  for (const auto& [e, n] : binades) {
    bool found = false;
    for (const QString& line : hist.split(u'\n'))
      found |= line.section(u',', 0, 0).toInt() == e && line.section(u',', 2, 2).toInt() == n;
    EXPECT_TRUE(found) << "binade " << e << " x " << n << " in\n" << hist.toStdString();
  }
  // The heat map exports one row per block.
  const QString mapCsv = dir.filePath(QStringLiteral("scales-map.csv"));
  ASSERT_EQ(mantissa::ui::exportChart(*map, mapCsv), QString());
  QFile mf(mapCsv);
  ASSERT_TRUE(mf.open(QIODevice::ReadOnly));
  EXPECT_EQ(QString::fromUtf8(mf.readAll()).split(u'\n', Qt::SkipEmptyParts).size(), 1 + 6);

  // A block opens in the block view: its first values, dequantized.
  QSignalSpy clicked(map, &mantissa::ui::BlockScaleMap::blockClicked);
  const int b11 = map->blockAt(1, 1);
  QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(1, 1).center().toPoint());
  ASSERT_EQ(clicked.count(), 1);
  mantissa::ui::BlockView* view = page.blockView();
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(clicked.first().first().toInt(), b11);
  const QStringList typed = view->valuesInput()->text().split(u',');
  ASSERT_EQ(typed.size(), 32);
  for (int j = 0; j < 32; ++j)
    EXPECT_EQ(typed[j].trimmed().toDouble(), q.dequantized(128, std::size_t(128 + j))) << j;
  EXPECT_TRUE(view->sourceLabel()->text().contains(QStringLiteral("row 128"))) << view->sourceLabel()->text().toStdString();
}

TEST_F(ModelPageTest, ActivatingATensorAsksTheExplorerForItsLargestValue) {
  ModelPage page;
  ASSERT_TRUE(open(page, path));
  QSignalSpy asked(&page, &ModelPage::explorerRequested);
  const QModelIndex row = rowOf(page.tensorView()->model(), qlonglong(indexOf(page, "model.layers.0.mlp.weight")));
  ASSERT_TRUE(row.isValid());
  emit page.tensorView()->activated(row);
  ASSERT_EQ(asked.count(), 1);
  EXPECT_EQ(asked.first().at(0).toString().toDouble(), expect(plantedValues()).min); // -70000: the largest |x|
  EXPECT_EQ(asked.first().at(1).toString(), QStringLiteral("fp16"));
}

TEST(ModelPageWindow, FileMenuOpensTheModelPage) {
  mantissa::ui::MainWindow window;
  auto* page = qobject_cast<ModelPage*>(window.page(QStringLiteral("Model")));
  ASSERT_NE(page, nullptr);
  QMenu* file = window.menuBar()->actions().first()->menu();
  ASSERT_NE(file, nullptr);
  EXPECT_TRUE(file->actions().contains(page->openAction()));
  // A value the Model page asks for shows in the Explorer.
  emit page->explorerRequested(QStringLiteral("-70000"), QStringLiteral("fp16"));
  auto* explorer = qobject_cast<mantissa::ui::FloatExplorer*>(window.page(QStringLiteral("Explorer")));
  ASSERT_NE(explorer, nullptr);
  EXPECT_EQ(window.pages()->currentWidget(), explorer);
  EXPECT_EQ(explorer->input()->text(), QStringLiteral("-70000"));
}

} // namespace
