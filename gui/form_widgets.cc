#include "gui/form_widgets.h"

#include <QComboBox>
#include <QLabel>
#include <QSpinBox>

#include "core/model/dtype.h"

namespace kvsim::gui {

QComboBox* preset_combo(QWidget* parent, PresetKind kind, const QString& object_name,
                        const QString& current) {
  auto* combo = new QComboBox(parent);
  combo->setObjectName(object_name);
  combo->setEditable(true);
  for (const std::string& name : preset_names(kind)) combo->addItem(QString::fromStdString(name));
  combo->setCurrentText(current);
  combo->setToolTip(QString("a %1 preset, or the path of a YAML file")
                        .arg(QString::fromStdString(std::string(preset_kind_name(kind)))));
  return combo;
}

QComboBox* dtype_combo(QWidget* parent, const QString& object_name, const QString& current) {
  auto* combo = new QComboBox(parent);
  combo->setObjectName(object_name);
  for (DType dtype : all_dtypes()) {
    combo->addItem(QString::fromStdString(std::string(dtype_name(dtype))));
  }
  combo->setCurrentText(current);
  return combo;
}

QSpinBox* int_spin(QWidget* parent, const QString& object_name, int low, int high) {
  auto* box = new QSpinBox(parent);
  box->setObjectName(object_name);
  box->setRange(low, high);
  return box;
}

QLabel* error_label(QWidget* parent, const QString& object_name) {
  auto* label = new QLabel(parent);
  label->setObjectName(object_name);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setStyleSheet("color: #b00020;");
  return label;
}

bool show_status(QLabel* label, const Status& status) {
  if (status.is_ok()) {
    label->clear();
  } else {
    label->setText(QString::fromStdString(status.message()));
  }
  return status.is_ok();
}

}  // namespace kvsim::gui
