// Small builders for the views' input forms, so that every view offers presets, dtypes and
// error messages the same way. They create and configure widgets; they compute nothing.
#pragma once

#include <QString>

#include "core/base/status.h"
#include "core/config/presets.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QWidget;

namespace kvsim::gui {

// An editable combo box listing the embedded presets of `kind` (a YAML path may be typed),
// `current` selected.
QComboBox* preset_combo(QWidget* parent, PresetKind kind, const QString& object_name,
                        const QString& current);

// A combo box of the KV dtypes (core/model/dtype.h names), `current` selected.
QComboBox* dtype_combo(QWidget* parent, const QString& object_name, const QString& current);

// A spin box over [low, high].
QSpinBox* int_spin(QWidget* parent, const QString& object_name, int low, int high);

// A red, word-wrapped label for a Status message.
QLabel* error_label(QWidget* parent, const QString& object_name);

// Shows `status`'s message (or clears the label when ok); returns status.is_ok().
bool show_status(QLabel* label, const Status& status);

}  // namespace kvsim::gui
