#include "scale/mpi_share_exchange.h"

#include <climits>
#include <cstdint>

#include <fmt/format.h>

namespace grainscope {
namespace {

constexpr int kBlobTag = 1;

Status MpiError(int rc, std::string_view what) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  return Internal(fmt::format("{}: {}", what, std::string_view(text, static_cast<size_t>(length))));
}

}  // namespace

MpiShareExchange::MpiShareExchange(MPI_Comm comm) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);  // errors come back as Status, not aborts
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  index_ = static_cast<uint32_t>(rank);
  count_ = static_cast<uint32_t>(size);
}

MpiShareExchange::~MpiShareExchange() {
  for (auto& [request, blob] : sent_) MPI_Wait(&request, MPI_STATUS_IGNORE);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiShareExchange::Abandon() {
  // The requests' buffers stay allocated (leaked): MPI may still read them until the job ends.
  for (auto& [request, blob] : sent_) {
    MPI_Request_free(&request);
    new std::string(std::move(blob));
  }
  sent_.clear();
}

Result<std::vector<std::string>> MpiShareExchange::AllToAll(std::vector<std::string> out) {
  if (out.size() != count_) return InvalidArgument(fmt::format("{} blobs for {} shares", out.size(), count_));
  std::vector<int> send_counts(count_), recv_counts(count_), send_at(count_), recv_at(count_);
  std::string sending;
  for (uint32_t k = 0; k < count_; ++k) {
    if (out[k].size() > INT_MAX || sending.size() > INT_MAX - out[k].size())
      return FailedPrecondition(fmt::format("share {}: {} bytes for share {}, more than one MPI call carries", index_,
                                         out[k].size(), k));
    send_at[k] = static_cast<int>(sending.size());
    send_counts[k] = static_cast<int>(out[k].size());
    sending += out[k];
  }
  int rc = MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm_);
  if (rc != MPI_SUCCESS) return MpiError(rc, "exchanging blob sizes");
  int64_t total = 0;
  for (uint32_t k = 0; k < count_; ++k) {
    recv_at[k] = static_cast<int>(total);
    total += recv_counts[k];
    if (total > INT_MAX) return FailedPrecondition(fmt::format("share {}: more than 2 GiB to receive at once", index_));
  }
  std::string receiving(static_cast<size_t>(total), '\0');
  rc = MPI_Alltoallv(sending.data(), send_counts.data(), send_at.data(), MPI_BYTE, receiving.data(), recv_counts.data(),
                     recv_at.data(), MPI_BYTE, comm_);
  if (rc != MPI_SUCCESS) return MpiError(rc, "exchanging blobs");
  std::vector<std::string> in(count_);
  for (uint32_t k = 0; k < count_; ++k) in[k] = receiving.substr(static_cast<size_t>(recv_at[k]), static_cast<size_t>(recv_counts[k]));
  return in;
}

Status MpiShareExchange::Send(uint32_t to, std::string blob) {
  if (to >= count_) return InvalidArgument(fmt::format("no share {} of {}", to, count_));
  if (blob.size() > INT_MAX) return InvalidArgument(fmt::format("a blob of {} bytes for share {}", blob.size(), to));
  ReapSent();
  sent_.emplace_back(MPI_REQUEST_NULL, std::move(blob));
  auto& [request, data] = sent_.back();
  const int rc = MPI_Isend(data.data(), static_cast<int>(data.size()), MPI_BYTE, static_cast<int>(to), kBlobTag, comm_,
                           &request);
  if (rc != MPI_SUCCESS) return MpiError(rc, fmt::format("sending to share {}", to));
  return OkStatus();
}

Result<std::pair<uint32_t, std::string>> MpiShareExchange::Receive() {
  MPI_Status status;
  int rc = MPI_Probe(MPI_ANY_SOURCE, kBlobTag, comm_, &status);
  if (rc != MPI_SUCCESS) return MpiError(rc, "waiting for a blob");
  int bytes = 0;
  MPI_Get_count(&status, MPI_BYTE, &bytes);
  std::string blob(static_cast<size_t>(bytes), '\0');
  rc = MPI_Recv(blob.data(), bytes, MPI_BYTE, status.MPI_SOURCE, kBlobTag, comm_, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return MpiError(rc, "receiving a blob");
  return std::make_pair(static_cast<uint32_t>(status.MPI_SOURCE), std::move(blob));
}

// Frees the blobs whose sends completed, oldest first.
void MpiShareExchange::ReapSent() {
  while (!sent_.empty()) {
    int done = 0;
    MPI_Test(&sent_.front().first, &done, MPI_STATUS_IGNORE);
    if (!done) return;
    sent_.pop_front();
  }
}

}  // namespace grainscope
