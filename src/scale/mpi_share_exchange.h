// The ShareExchange of grainscope-mpi's analysis ranks (model/share_exchange.h): one share per
// MPI rank of a communicator, blobs as MPI messages on a duplicate of it (so that the analysis's
// messages never meet the program's own).
#pragma once

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

#include "model/share_exchange.h"

namespace grainscope {

class MpiShareExchange : public ShareExchange {
 public:
  explicit MpiShareExchange(MPI_Comm comm);
  ~MpiShareExchange() override;  // waits for the blobs it sent to be received
  MpiShareExchange(const MpiShareExchange&) = delete;
  MpiShareExchange& operator=(const MpiShareExchange&) = delete;

  // After a failure: blobs sent and never to be received are not waited for (the job ends).
  void Abandon();

  uint32_t index() const override { return index_; }
  uint32_t count() const override { return count_; }
  Result<std::vector<std::string>> AllToAll(std::vector<std::string> out) override;
  Status Send(uint32_t to, std::string blob) override;
  Result<std::pair<uint32_t, std::string>> Receive() override;

 private:
  void ReapSent();

  MPI_Comm comm_ = MPI_COMM_NULL;
  uint32_t index_ = 0, count_ = 1;
  // Blobs sent and not yet known to be received: MPI reads them until their request completes.
  std::deque<std::pair<MPI_Request, std::string>> sent_;
};

}  // namespace grainscope
