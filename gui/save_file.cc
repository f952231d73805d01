#include "gui/save_file.h"

#include <fmt/format.h>

#include <QSaveFile>

namespace kvsim::gui {

Status save_file(const QString& path, std::string_view what,
                 const std::function<bool(QIODevice*)>& write) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    return Status::io_error(fmt::format("{}: cannot open for writing ({})", path.toStdString(),
                                        file.errorString().toStdString()));
  }
  // Without commit() the destructor removes the temporary and the target stays as it was.
  if (!write(&file)) {
    return Status::io_error(fmt::format("{}: cannot write {}", path.toStdString(), what));
  }
  if (!file.commit()) {
    return Status::io_error(fmt::format("{}: cannot write {} ({})", path.toStdString(), what,
                                        file.errorString().toStdString()));
  }
  return Status::ok();
}

Status write_text_file(const std::string& path, std::string_view contents) {
  return save_file(QString::fromStdString(path), "the file", [contents](QIODevice* device) {
    const auto size = static_cast<qint64>(contents.size());
    return device->write(contents.data(), size) == size;
  });
}

}  // namespace kvsim::gui
