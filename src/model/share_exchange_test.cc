#include "model/share_exchange.h"

#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace grainscope {
namespace {

// Three shares on threads swap blobs twice: each gets what every share sent it, round by round.
TEST(LocalShareExchange, EveryShareGetsWhatEachSentItRoundByRound) {
  constexpr uint32_t kShares = 3;
  LocalShareExchange all(kShares);
  std::vector<std::vector<std::vector<std::string>>> got(kShares);
  std::vector<std::thread> threads;
  for (uint32_t me = 0; me < kShares; ++me)
    threads.emplace_back([&, me] {
      LocalShareExchange::Member member(all, me);
      for (int round = 0; round < 2; ++round) {
        std::vector<std::string> out;
        for (uint32_t to = 0; to < kShares; ++to) out.push_back(fmt::format("{}->{} #{}", me, to, round));
        Result<std::vector<std::string>> in = member.AllToAll(std::move(out));
        ASSERT_TRUE(in.ok()) << in.status().message();
        got[me].push_back(std::move(*in));
      }
    });
  for (std::thread& t : threads) t.join();
  for (uint32_t me = 0; me < kShares; ++me) {
    ASSERT_EQ(got[me].size(), 2u);
    for (int round = 0; round < 2; ++round)
      for (uint32_t from = 0; from < kShares; ++from)
        EXPECT_EQ(got[me][round][from], fmt::format("{}->{} #{}", from, me, round));
  }
}

// Blobs sent to a share arrive in order, each with its sender.
TEST(LocalShareExchange, SentBlobsArriveInOrderWithTheirSender) {
  LocalShareExchange all(2);
  LocalShareExchange::Member a(all, 0), b(all, 1);
  std::thread sender([&] {
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(a.Send(1, fmt::format("#{}", i)).ok());
  });
  for (int i = 0; i < 100; ++i) {
    Result<std::pair<uint32_t, std::string>> got = b.Receive();
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->first, 0u);
    EXPECT_EQ(got->second, fmt::format("#{}", i));
  }
  sender.join();
  EXPECT_FALSE(a.Send(2, "nowhere").ok());
}

TEST(LocalShareExchange, AWrongNumberOfBlobsIsAnError) {
  LocalShareExchange all(2);
  LocalShareExchange::Member member(all, 0);
  EXPECT_FALSE(member.AllToAll({"only one"}).ok());
}

// An exchange that hands back what it is given from share 0 and garbage from share 1.
class GarbledExchange : public ShareExchange {
 public:
  uint32_t index() const override { return 0; }
  uint32_t count() const override { return 2; }
  Result<std::vector<std::string>> AllToAll(std::vector<std::string> out) override {
    return std::vector<std::string>{out[0], "\x05\x00\x00"};
  }
  Status Send(uint32_t, std::string) override { return OkStatus(); }
  Result<std::pair<uint32_t, std::string>> Receive() override { return Internal("nothing to receive"); }
};

TEST(CompleteShare, ADamagedBlobIsAnErrorNamingItsShare) {
  TraceShare share;
  ShareMap map{{0, 1}, {}};
  GarbledExchange exchange;
  Result<std::vector<GhostEvent>> ghosts = CompleteShare(share, ShareFacts(), map, exchange);
  ASSERT_FALSE(ghosts.ok());
  EXPECT_NE(ghosts.status().message().find("from share 1"), std::string::npos) << ghosts.status().message();
}

}  // namespace
}  // namespace grainscope
