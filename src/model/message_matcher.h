// How every reader pairs a message's send with its receive: FIFO per channel, the n-th send on a
// channel with the n-th receive on it (MPI's non-overtaking rule; the seed's "structure names may
// be reused, in order"). What a channel is differs per format (a structure name, a flow's
// (cat, id), (communicator, sender, receiver, tag)): the reader maps it to a dense integer id once
// per distinct key (ChannelIds), so the per-message path is an append to a vector.
//
//   ChannelIds<std::string_view> channels;
//   FifoMessageMatcher<uint32_t> matcher;          // End: whatever the reader needs back
//   matcher.AddSend(channels.Id(name), record);    // each side in its channel's order
//   matcher.AddReceive(channels.Id(name), record);
//   matcher.Group();
//   matcher.OrderEachChannel(by_completion);       // the order rule, when not the order added
//   matcher.MatchAll([](uint32_t channel, const uint32_t* send, const uint32_t* recv) { ... });
//
// The order rule is the reader's one parameter: which send is a channel's k-th. A text format
// gives its ends in file order (the order added: seed text, Chrome flows sorted by time); OTF2
// orders by posting (the Isend/Irecv request record, else the call: MPI's matching order); .gst
// by completion (a send's end, a receive's end: a rank file records no posting); a rank
// directory's parts by each end's completion time in its own part (model/trace_parts.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/diagnostics.h"

namespace grainscope {

// The messages a reader found no partner for: counts under the declared kinds, each with its first
// example, made only for the first (a message per unmatched end would cost a format call each).
class UnmatchedEnds {
 public:
  // A receive whose send no one recorded; `example()` says which, in the reader's words.
  template <typename Example>
  void NoSend(Example&& example) {
    if (no_send_++ == 0) first_no_send_ = example();
  }
  // A send whose receive no one recorded.
  template <typename Example>
  void NoReceive(Example&& example) {
    if (no_receive_++ == 0) first_no_receive_ = example();
  }
  // Adds the counts (receives_without_send, sends_without_receive) to `d`.
  void Report(Diagnostics& d) const {
    d.AddCount(Diag::kReceivesWithoutSend, no_send_, first_no_send_);
    d.AddCount(Diag::kSendsWithoutReceive, no_receive_, first_no_receive_);
  }

 private:
  uint64_t no_send_ = 0, no_receive_ = 0;
  std::string first_no_send_, first_no_receive_;
};

// A hash of a channel key of four 32-bit fields (a string or text id, sender, receiver, tag: an MPI
// channel), for ChannelIds' Hash.
inline size_t HashChannelFields(uint32_t text, int32_t sender, int32_t receiver, int32_t tag) {
  uint64_t h = text * 0x9E3779B97F4A7C15ull;
  h ^= (static_cast<uint64_t>(static_cast<uint32_t>(sender)) << 32 | static_cast<uint32_t>(receiver)) * 0xC2B2AE3D27D4EB4Full;
  h ^= static_cast<uint32_t>(tag) * 0x165667B19E3779F9ull;
  return static_cast<size_t>(h ^ (h >> 29));
}

// Dense ids 0, 1, 2, ... for channel keys, in order of first appearance.
template <typename Key, typename Hash = std::hash<Key>>
class ChannelIds {
 public:
  uint32_t Id(const Key& key) {
    auto [it, inserted] = ids_.try_emplace(key, static_cast<uint32_t>(keys_.size()));
    if (inserted) keys_.push_back(key);
    return it->second;
  }
  size_t size() const { return keys_.size(); }
  const Key& key(uint32_t id) const { return keys_[id]; }

 private:
  std::unordered_map<Key, uint32_t, Hash> ids_;
  std::vector<Key> keys_;
};

// Pairs sends and receives FIFO per channel. Add every end (each channel's sends in their order,
// its receives in theirs; channels may interleave), Group() once, then read the pairs.
template <typename End>
class FifoMessageMatcher {
 public:
  void Reserve(size_t sends, size_t receives) {
    sends_.in.reserve(sends);
    receives_.in.reserve(receives);
  }
  void AddSend(uint32_t channel, const End& end) { sends_.in.push_back({channel, end}); }
  void AddReceive(uint32_t channel, const End& end) { receives_.in.push_back({channel, end}); }

  // Orders the ends by channel, keeping each channel's order (a counting sort: O(ends + channels)).
  void Group() {
    channels_ = 0;
    for (const auto& e : sends_.in) channels_ = std::max(channels_, e.first + 1);
    for (const auto& e : receives_.in) channels_ = std::max(channels_, e.first + 1);
    sends_.Group(channels_);
    receives_.Group(channels_);
  }

  // After Group(): puts each side of every channel in the order `before` (a strict weak order on
  // End) gives, ties in the order added.
  template <typename Before>
  void OrderEachChannel(Before before) {
    for (uint32_t c = 0; c < channels_; ++c) {
      std::stable_sort(sends(c).begin(), sends(c).end(), before);
      std::stable_sort(receives(c).begin(), receives(c).end(), before);
    }
  }

  // After Group(): channels 0 .. channel_count()-1 (those never named hold nothing).
  uint32_t channel_count() const { return channels_; }
  std::span<End> sends(uint32_t channel) { return sends_.Of(channel); }
  std::span<End> receives(uint32_t channel) { return receives_.Of(channel); }

  // fn(channel, const End* send, const End* receive) for the k-th send and k-th receive of
  // `channel`, k = 0 .. max(sends, receives) - 1; the side a channel has fewer of is null.
  template <typename Fn>
  void Match(uint32_t channel, Fn&& fn) {
    std::span<End> s = sends(channel), r = receives(channel);
    const size_t n = std::max(s.size(), r.size());
    for (size_t k = 0; k < n; ++k) fn(channel, k < s.size() ? &s[k] : nullptr, k < r.size() ? &r[k] : nullptr);
  }

  // Match for every channel, in id order.
  template <typename Fn>
  void MatchAll(Fn&& fn) {
    for (uint32_t c = 0; c < channels_; ++c) Match(c, fn);
  }

 private:
  struct Side {
    std::vector<std::pair<uint32_t, End>> in;  // (channel, end) as added
    std::vector<End> grouped;                  // by channel, stable
    std::vector<uint32_t> first;               // channel c: grouped[first[c], first[c+1])

    void Group(uint32_t channels) {
      first.assign(channels + 1, 0);
      for (const auto& e : in) ++first[e.first + 1];
      for (uint32_t c = 0; c < channels; ++c) first[c + 1] += first[c];
      std::vector<uint32_t> next(first.begin(), first.end() - 1);
      grouped.resize(in.size());
      for (auto& e : in) grouped[next[e.first]++] = std::move(e.second);
      in.clear();
    }
    std::span<End> Of(uint32_t channel) {
      if (channel + 1 >= first.size()) return {};
      return std::span<End>(grouped).subspan(first[channel], first[channel + 1] - first[channel]);
    }
  };

  Side sends_, receives_;
  uint32_t channels_ = 0;
};

}  // namespace grainscope
