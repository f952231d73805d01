// Saving a file from the GUI (CSV exports, saved scenarios, chart PNGs and PDFs) through
// QSaveFile: the bytes go to a temporary file beside the target, which replaces the target only
// once all of them were written (commit()). A failed save leaves the old file, or none, never a
// truncated one. Failures are io_errors naming the path, never exceptions.
#pragma once

#include <QString>
#include <functional>
#include <string>
#include <string_view>

#include "core/base/status.h"

class QIODevice;

namespace kvsim::gui {

// Opens `path` for writing, lets `write` fill the device and commits when it returns true.
// `what` names the content in the error ("<path>: cannot write PNG").
Status save_file(const QString& path, std::string_view what,
                 const std::function<bool(QIODevice*)>& write);

// A whole text file.
Status write_text_file(const std::string& path, std::string_view contents);

}  // namespace kvsim::gui
