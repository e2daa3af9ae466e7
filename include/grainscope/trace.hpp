// grainscope recording API for C++: RAII scopes over the C API (grainscope/trace.h).
//
//   void Worker() {
//     GS_GRAIN("worker", 1);                // a grain with a constant grain id, until '}'
//     ...
//     {
//       GS_SEND("result", sizeof r, 5);     // message "result" to thread 5 (peer is optional)
//       queue.push(r);
//     }
//   }
//   for (const Task& t : tasks) {
//     GS_GRAIN_ID("task", t.id);            // a grain whose id is known at run time
//     t.run();
//   }
//   GS_SCOPE("merge phase");                // a code region
//   GS_RECV(in, "result");  double v = queue.pop();  in.received(sizeof v, 2);
//   GS_MARKER("converged");
//
// Every macro declares a static descriptor for its call site: the name is registered once and
// each event stores a 32-bit id. With GRAINSCOPE_DISABLE the macros compile to nothing.
#pragma once

#include <cstdint>

#include "grainscope/trace.h"

namespace grainscope {

// Begin on construction, end on destruction.
class RegionScope {
 public:
  explicit RegionScope(gs_region& region) noexcept : region_(region) { gs_region_begin(&region_); }
  ~RegionScope() { gs_region_end(&region_); }
  RegionScope(const RegionScope&) = delete;
  RegionScope& operator=(const RegionScope&) = delete;

 private:
  gs_region& region_;
};

// A grain whose id is known only at run time (GS_GRAIN_ID): begin on construction, end on
// destruction.
class GrainScope {
 public:
  GrainScope(gs_region& site, int64_t grain_id) noexcept : site_(site), grain_id_(grain_id) {
    gs_grain_begin_id(&site_, grain_id_);
  }
  ~GrainScope() { gs_grain_end_id(&site_, grain_id_); }
  GrainScope(const GrainScope&) = delete;
  GrainScope& operator=(const GrainScope&) = delete;

 private:
  gs_region& site_;
  int64_t grain_id_;
};

// The send of one message: begin on construction, end on destruction. Put the program's own
// send (queue push, MPI_Send, ...) inside the scope.
class SendScope {
 public:
  SendScope(uint32_t message, uint64_t bytes, int32_t peer = GS_NO_PEER) noexcept : message_(message) {
    gs_send_begin(message_, bytes, peer);
  }
  ~SendScope() { gs_send_end(message_); }
  SendScope(const SendScope&) = delete;
  SendScope& operator=(const SendScope&) = delete;

 private:
  uint32_t message_;
};

// The receive of one message. Call received() once the data is there, if its size or sender
// are known; the end is recorded on destruction.
class RecvScope {
 public:
  explicit RecvScope(uint32_t message) noexcept : message_(message) { gs_recv_begin(message_); }
  ~RecvScope() { gs_recv_end(message_, bytes_, peer_); }
  void received(uint64_t bytes, int32_t peer = GS_NO_PEER) noexcept {
    bytes_ = bytes;
    peer_ = peer;
  }
  RecvScope(const RecvScope&) = delete;
  RecvScope& operator=(const RecvScope&) = delete;

 private:
  uint32_t message_;
  uint64_t bytes_ = 0;
  int32_t peer_ = GS_NO_PEER;
};

// The id of a message name or marker label known only at run time (see gs_intern).
inline uint32_t Intern(const char* text) noexcept { return gs_intern(text); }

}  // namespace grainscope

#define GS_CONCAT_IMPL_(a, b) a##b
#define GS_CONCAT_(a, b) GS_CONCAT_IMPL_(a, b)
#define GS_UNIQUE_(prefix) GS_CONCAT_(prefix, __LINE__)

#ifndef GRAINSCOPE_DISABLE

// A code region from here to the end of the enclosing block.
#define GS_SCOPE(name)                                                                      \
  static gs_region GS_UNIQUE_(gs_region_) = GS_REGION_INIT(name, GS_ROLE_FUNCTION, GS_NO_EXTERNAL_ID); \
  ::grainscope::RegionScope GS_UNIQUE_(gs_scope_)(GS_UNIQUE_(gs_region_))

// A grain (task-graph node) with the program's grain id, to the end of the enclosing block. The
// descriptor is static, so one call site stands for one grain id, and the id must be a constant
// expression (a run-time id, `GS_GRAIN("task", t.id)`, does not compile: it would keep the first
// instance's id for all). Ids known only at run time: GS_GRAIN_ID.
#define GS_GRAIN(name, grain_id)                                                                      \
  static gs_region GS_UNIQUE_(gs_region_) = GS_REGION_INIT(name, GS_ROLE_GRAIN, GS_CONSTANT_GRAIN_ID_(grain_id)); \
  ::grainscope::RegionScope GS_UNIQUE_(gs_scope_)(GS_UNIQUE_(gs_region_))

// A grain whose id each instance gives (any int64_t expression), to the end of the enclosing
// block: every distinct id is a grain of its own in the reports (gs_grain_begin_id).
#define GS_GRAIN_ID(name, grain_id)                                                                  \
  static gs_region GS_UNIQUE_(gs_region_) = GS_REGION_INIT(name, GS_ROLE_GRAIN, GS_NO_EXTERNAL_ID); \
  ::grainscope::GrainScope GS_UNIQUE_(gs_scope_)(GS_UNIQUE_(gs_region_), static_cast<int64_t>(grain_id))

// The id of a message name or label given as a string literal, registered once per call site.
#define GS_NAME_ID(text)                             \
  ([]() noexcept -> uint32_t {                       \
    static gs_name gs_name_ = {(text), 0u};          \
    return gs_message_id(&gs_name_);                 \
  }())

// Sending message `name` (a string literal) to the end of the enclosing block.
#define GS_SEND(name, bytes, peer) ::grainscope::SendScope GS_UNIQUE_(gs_send_)(GS_NAME_ID(name), (bytes), (peer))

// Receiving message `name` to the end of the enclosing block; `var.received(bytes, peer)`.
#define GS_RECV(var, name) ::grainscope::RecvScope var(GS_NAME_ID(name))

// A point in time labelled with a string literal.
#define GS_MARKER(label) gs_marker(GS_NAME_ID(label))

#else

namespace grainscope {
struct DisabledRecvScope {
  void received(uint64_t, int32_t = GS_NO_PEER) noexcept {}
};
}  // namespace grainscope
#define GS_SCOPE(name) static_cast<void>(0)
// The id is still checked to be a constant, so that a program compiles alike either way.
#define GS_GRAIN(name, grain_id) static_cast<void>(GS_CONSTANT_GRAIN_ID_(grain_id))
#define GS_GRAIN_ID(name, grain_id) static_cast<void>(sizeof(grain_id))
#define GS_NAME_ID(text) 0u
#define GS_SEND(name, bytes, peer) static_cast<void>(0)
#define GS_RECV(var, name) [[maybe_unused]] ::grainscope::DisabledRecvScope var
#define GS_MARKER(label) static_cast<void>(0)

#endif
