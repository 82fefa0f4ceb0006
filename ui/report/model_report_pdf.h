// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A model report (inspect::reportHtml's text) laid out by QTextDocument on
// A4 landscape pages and written as PDF, atomically.

#include <string>

namespace mantissa::ui {

// Needs a QGuiApplication (HeadlessApp). Returns "" on success, else the message.
std::string writeModelReportPdf(const std::string& html, const std::string& path);

} // namespace mantissa::ui
