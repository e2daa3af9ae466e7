// Every report writer, for the CLI: one header per report (report/<name>_report.h), each its own
// library (gs_report_<name>); this umbrella is for code that wires them all up.
#pragma once

#include "report/compensate_report.h"
#include "report/critpath_report.h"
#include "report/gantt_report.h"
#include "report/info_report.h"
#include "report/notes.h"
#include "report/predict_report.h"
#include "report/profile_report.h"
#include "report/render_options.h"
#include "report/replay_report.h"
#include "report/schedule_report.h"
#include "report/taskgraph_report.h"
#include "report/units.h"
#include "report/waits_report.h"
