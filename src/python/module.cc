// grainscope's Python extension (_grainscope): a trace read by our readers, its columns as numpy
// arrays filled from our storage (no Python object per event), and the CLI's commands run on it
// in this process with their JSON captured. grainscope/__init__.py builds the pandas side.
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "cli/common.h"
#include "cli/run_cli.h"
#include "cli/version.h"
#include "format/trace_reader.h"
#include "model/trace.h"
#include "model/trace_index.h"

namespace py = pybind11;

namespace grainscope::python {
namespace {

template <typename T>
py::array_t<T> Array(size_t n) {
  return py::array_t<T>(static_cast<py::ssize_t>(n));
}

// A column built in C++ as a numpy array of its own type (one copy).
template <typename T>
py::array_t<T> ToArray(const std::vector<T>& v) {
  auto a = Array<T>(v.size());
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
  return a;
}

// A trace and the name under which the CLI's commands find it while they run.
class PyTrace {
 public:
  PyTrace(Trace trace, std::string path) : trace_(std::move(trace)), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  int64_t origin_ns() const { return trace_.origin_ns(); }
  std::string format() const { return std::string(trace_.format()); }
  size_t event_count() const { return trace_.event_count(); }

  // Every location's events laid end to end, in location order: location, index (within the
  // location), time_ns (from the trace's origin, as every analysis counts), kind (EventKind
  // code), arg (region, message, collective, string or sync row, by kind).
  py::dict Events() const {
    const size_t n = trace_.event_count();
    auto location = Array<uint32_t>(n);
    auto index = Array<uint32_t>(n);
    auto time = Array<int64_t>(n);
    auto kind = Array<uint8_t>(n);
    auto arg = Array<uint32_t>(n);
    uint32_t* loc_p = location.mutable_data();
    uint32_t* idx_p = index.mutable_data();
    int64_t* time_p = time.mutable_data();
    uint8_t* kind_p = kind.mutable_data();
    uint32_t* arg_p = arg.mutable_data();
    const TimeNs origin = trace_.origin_ns();
    size_t at = 0;
    {
      py::gil_scoped_release unlocked;  // plain copies: other Python threads may run
      for (uint32_t l = 0; l < trace_.locations().size(); ++l) {
        const EventColumns& ev = trace_.events(LocationId(l));
        const size_t m = ev.size();
        std::memcpy(kind_p + at, ev.kind.data(), m * sizeof(uint8_t));
        std::memcpy(arg_p + at, ev.arg.data(), m * sizeof(uint32_t));
        for (size_t i = 0; i < m; ++i) {
          time_p[at + i] = ev.time[i] - origin;
          loc_p[at + i] = l;
          idx_p[at + i] = static_cast<uint32_t>(i);
        }
        at += m;
      }
    }
    py::dict d;
    d["location"] = location;
    d["index"] = index;
    d["time_ns"] = time;
    d["kind"] = kind;
    d["arg"] = arg;
    return d;
  }

  py::dict Locations() const {
    const auto& locs = trace_.locations();
    std::vector<std::string> name, kind;
    auto external = Array<int64_t>(locs.size());
    auto group = Array<uint32_t>(locs.size());
    auto events = Array<uint64_t>(locs.size());
    for (uint32_t l = 0; l < locs.size(); ++l) {
      name.emplace_back(trace_.str(locs[l].name));
      kind.emplace_back(LocationKindName(locs[l].kind));
      external.mutable_data()[l] = locs[l].external_id;
      group.mutable_data()[l] = locs[l].group;
      events.mutable_data()[l] = trace_.events(LocationId(l)).size();
    }
    py::dict d;
    d["name"] = name;
    d["kind"] = kind;
    d["id"] = external;
    d["group"] = group;
    d["events"] = events;
    return d;
  }

  py::dict Regions() const {
    const auto& regions = trace_.regions();
    std::vector<std::string> name, role;
    auto external = Array<int64_t>(regions.size());
    for (uint32_t r = 0; r < regions.size(); ++r) {
      name.emplace_back(trace_.str(regions[r].name));
      role.emplace_back(RegionRoleName(regions[r].role));
      external.mutable_data()[r] = regions[r].external_id;
    }
    py::dict d;
    d["name"] = name;
    d["role"] = role;
    d["id"] = external;
    return d;
  }

  // One row per message: its ends (location, event, time from the origin; -1 when missing), tag,
  // bytes, communicator (-1: none) and name.
  py::dict Messages() const {
    const MessageTable& m = trace_.messages();
    const size_t n = m.size();
    const TimeNs origin = trace_.origin_ns();
    auto sender = Array<uint32_t>(n), receiver = Array<uint32_t>(n);
    auto send_event = Array<int64_t>(n), recv_event = Array<int64_t>(n);
    auto send_time = Array<int64_t>(n), recv_time = Array<int64_t>(n);
    auto tag = Array<int32_t>(n);
    auto bytes = Array<uint64_t>(n);
    auto comm = Array<int64_t>(n);
    std::vector<std::string> name(n);
    for (size_t i = 0; i < n; ++i) {
      sender.mutable_data()[i] = m.sender[i].value;
      receiver.mutable_data()[i] = m.receiver[i].value;
      const bool sent = m.send_event[i] != kNoEvent, received = m.recv_event[i] != kNoEvent;
      send_event.mutable_data()[i] = sent ? static_cast<int64_t>(m.send_event[i]) : -1;
      recv_event.mutable_data()[i] = received ? static_cast<int64_t>(m.recv_event[i]) : -1;
      send_time.mutable_data()[i] = sent ? trace_.events(m.sender[i]).time[m.send_event[i]] - origin : -1;
      recv_time.mutable_data()[i] = received ? trace_.events(m.receiver[i]).time[m.recv_event[i]] - origin : -1;
      tag.mutable_data()[i] = m.tag[i];
      bytes.mutable_data()[i] = m.bytes[i];
      comm.mutable_data()[i] = m.communicator[i].valid() ? static_cast<int64_t>(m.communicator[i].value) : -1;
      name[i] = trace_.str(m.name[i]);
    }
    py::dict d;
    d["sender"] = sender;
    d["receiver"] = receiver;
    d["send_event"] = send_event;
    d["recv_event"] = recv_event;
    d["send_time_ns"] = send_time;
    d["recv_time_ns"] = recv_time;
    d["tag"] = tag;
    d["bytes"] = bytes;
    d["communicator"] = comm;
    d["name"] = name;
    return d;
  }

  // One row per member of a collective instance (times from the origin).
  py::dict Collectives() const {
    const CollectiveTable& c = trace_.collectives();
    const TimeNs origin = trace_.origin_ns();
    const size_t n = c.member_location.size();
    auto collective = Array<uint32_t>(n), location = Array<uint32_t>(n);
    auto comm = Array<int64_t>(n), root = Array<int64_t>(n);
    auto begin = Array<int64_t>(n), end = Array<int64_t>(n);
    auto sent = Array<uint64_t>(n), received = Array<uint64_t>(n);
    std::vector<std::string> op(n);
    for (uint32_t k = 0; k < c.size(); ++k) {
      for (uint32_t row = c.first_member[k]; row < c.first_member[k + 1]; ++row) {
        const LocationId l = c.member_location[row];
        collective.mutable_data()[row] = k;
        location.mutable_data()[row] = l.value;
        op[row] = CollectiveOpName(c.op[k]);
        comm.mutable_data()[row] = c.communicator[k].valid() ? static_cast<int64_t>(c.communicator[k].value) : -1;
        root.mutable_data()[row] = c.root[k].valid() ? static_cast<int64_t>(c.root[k].value) : -1;
        begin.mutable_data()[row] = trace_.events(l).time[c.member_begin[row]] - origin;
        end.mutable_data()[row] = trace_.events(l).time[c.member_end[row]] - origin;
        sent.mutable_data()[row] = c.member_bytes_sent[row];
        received.mutable_data()[row] = c.member_bytes_received[row];
      }
    }
    py::dict d;
    d["collective"] = collective;
    d["op"] = op;
    d["communicator"] = comm;
    d["root"] = root;
    d["location"] = location;
    d["begin_ns"] = begin;
    d["end_ns"] = end;
    d["bytes_sent"] = sent;
    d["bytes_received"] = received;
    return d;
  }

  // One row per call (a matched Enter/Leave pair), calls of a location in the order they begin:
  // location, region, enter and leave (event indices), start_ns and end_ns (from the origin),
  // inclusive_ns, exclusive_ns (less the calls directly inside it), depth (0: top level) and
  // parent (the row of the call around it, -1 at top level); instance_id and has_instance_id: the
  // call's own id where the trace numbers instances (a grain site's executions). Nesting is the
  // trace index's.
  py::dict Calls() const {
    std::vector<uint32_t> location, region, enter, leave, depth;
    std::vector<int64_t> start, end, inclusive, exclusive, parent, instance;
    std::vector<bool> has_instance;
    {
      py::gil_scoped_release unlocked;
      const TimeNs origin = trace_.origin_ns();
      std::vector<uint32_t> row_of;  // per event of the location: the row of the call it enters
      for (uint32_t l = 0; l < trace_.locations().size(); ++l) {
        const EventColumns& ev = trace_.events(LocationId(l));
        const CallNesting nesting = trace_.index().nesting(LocationId(l));
        row_of.assign(ev.size(), 0);
        for (EventIndex i = 0; i < ev.size(); ++i) {
          if (ev.kind[i] != EventKind::kEnter) continue;
          const EventIndex up = nesting.Parent(i);
          row_of[i] = static_cast<uint32_t>(location.size());
          location.push_back(l);
          region.push_back(ev.arg[i]);
          enter.push_back(i);
          leave.push_back(i);  // set at the Leave; every call on a location ends (trace.h)
          start.push_back(ev.time[i] - origin);
          end.push_back(ev.time[i] - origin);
          depth.push_back(up == kNoEvent ? 0 : depth[row_of[up]] + 1);
          parent.push_back(up == kNoEvent ? -1 : static_cast<int64_t>(row_of[up]));
          inclusive.push_back(0);
          exclusive.push_back(0);
          const std::optional<int64_t> id = trace_.InstanceId(LocationId(l), i);
          instance.push_back(id.value_or(0));
          has_instance.push_back(id.has_value());
        }
        for (EventIndex i = 0; i < ev.size(); ++i) {
          if (ev.kind[i] != EventKind::kLeave) continue;
          const uint32_t row = row_of[nesting.EnterOf(i)];
          leave[row] = i;
          end[row] = ev.time[i] - origin;
          inclusive[row] = end[row] - start[row];
          exclusive[row] += inclusive[row];  // less its children's, subtracted as they ended
          if (parent[row] >= 0) exclusive[parent[row]] -= inclusive[row];
        }
      }
    }
    py::dict d;
    d["location"] = ToArray(location);
    d["region"] = ToArray(region);
    d["enter"] = ToArray(enter);
    d["leave"] = ToArray(leave);
    d["start_ns"] = ToArray(start);
    d["end_ns"] = ToArray(end);
    d["inclusive_ns"] = ToArray(inclusive);
    d["exclusive_ns"] = ToArray(exclusive);
    d["depth"] = ToArray(depth);
    d["parent"] = ToArray(parent);
    d["instance_id"] = ToArray(instance);
    py::array_t<bool> has(static_cast<py::ssize_t>(has_instance.size()));
    for (size_t k = 0; k < has_instance.size(); ++k) has.mutable_data()[k] = has_instance[k];
    d["has_instance_id"] = has;
    return d;
  }

  // `grainscope COMMAND <this trace> ARGS...` in this process: (exit code, stdout, stderr). The
  // trace is held in memory under its own path while the command runs, so that the command reads
  // it from there and names it as the CLI would.
  py::tuple Run(const std::string& command, const std::vector<std::string>& args) const {
    std::vector<std::string> argv{"grainscope", command, path_};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunArgv(argv, this);
  }

  static py::tuple RunArgv(std::vector<std::string> argv, const PyTrace* held = nullptr) {
    std::vector<char*> raw;
    for (std::string& a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    std::string out, err;
    int rc;
    {
      py::gil_scoped_release unlocked;
      static std::mutex one_at_a_time;  // the capture and the held trace are process-wide
      std::lock_guard lock(one_at_a_time);
      if (held != nullptr) PutMemoryTrace(held->path_, &held->trace_);
      cli::CaptureOutput(&out, &err);
      rc = cli::RunCli(static_cast<int>(argv.size()), raw.data());
      cli::CaptureOutput(nullptr, nullptr);
      if (held != nullptr) RemoveMemoryTrace(held->path_);
    }
    return py::make_tuple(rc, py::bytes(out), err);
  }

 private:
  Trace trace_;
  std::string path_;
};

PyTrace Read(const std::string& path, const std::string& format, bool strict) {
  Result<Trace> t = [&] {
    py::gil_scoped_release unlocked;
    return ReadTrace(path, format, ReadOptions{strict});
  }();
  if (!t.ok()) throw std::runtime_error(t.status().message());
  return PyTrace(std::move(*t), path);
}

std::vector<std::string> EventKindNames() {
  std::vector<std::string> names;
  for (int k = 0; k < kEventKindCount; ++k) names.emplace_back(EventKindName(static_cast<EventKind>(k)));
  return names;
}

}  // namespace
}  // namespace grainscope::python

PYBIND11_MODULE(_grainscope, m) {
  using grainscope::python::PyTrace;
  m.doc() = "grainscope's native module: use the grainscope package (grainscope.read)";
  py::class_<PyTrace>(m, "NativeTrace")
      .def_property_readonly("path", &PyTrace::path)
      .def_property_readonly("format", &PyTrace::format)
      .def_property_readonly("event_count", &PyTrace::event_count)
      .def_property_readonly("origin_ns", &PyTrace::origin_ns)
      .def("events", &PyTrace::Events)
      .def("locations", &PyTrace::Locations)
      .def("regions", &PyTrace::Regions)
      .def("messages", &PyTrace::Messages)
      .def("collectives", &PyTrace::Collectives)
      .def("calls", &PyTrace::Calls)
      .def("run", &PyTrace::Run, py::arg("command"), py::arg("args"));
  m.def("read", &grainscope::python::Read, py::arg("path"), py::arg("format") = "auto", py::arg("strict") = false);
  m.def("run_cli", [](std::vector<std::string> argv) { return PyTrace::RunArgv(std::move(argv)); }, py::arg("argv"));
  m.def("event_kind_names", &grainscope::python::EventKindNames);
  m.def("command_options", &grainscope::cli::CommandOptionNames, py::arg("command"));
  m.attr("__version__") = std::string(grainscope::cli::Version());
  m.attr("commit") = std::string(grainscope::cli::Commit());
}
