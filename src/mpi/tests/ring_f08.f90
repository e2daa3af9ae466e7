! The Fortran ring through the mpi_f08 bindings (`use mpi_f08`: Open MPI's mpi_send_f08_ etc.),
! some calls without their optional ierror: 2 rounds of 10 integers (40 bytes, tag 11) to the
! next rank, then a non-blocking exchange of 4 integers with both neighbours (tag 12, waited with
! MPI_Waitall), an MPI_Bcast from rank 1, an MPI_Allreduce and an MPI_Barrier.
! 4 ranks: 8 + 8 messages, 4 collectives besides MPI_Init.
program ring_f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, ierr, round, next, prev, one, total
  integer :: buf(10), left(4), right(4), mine(4)
  type(MPI_Status) :: status
  type(MPI_Request) :: requests(4)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  buf = rank
  do round = 1, 2
    if (rank == 0) then
      call MPI_Send(buf, 10, MPI_INTEGER, next, 11, MPI_COMM_WORLD, ierr)
      call MPI_Recv(buf, 10, MPI_INTEGER, prev, 11, MPI_COMM_WORLD, status)
    else
      call MPI_Recv(buf, 10, MPI_INTEGER, prev, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(buf, 10, MPI_INTEGER, next, 11, MPI_COMM_WORLD)
    end if
  end do
  mine = rank
  call MPI_Irecv(left, 4, MPI_INTEGER, prev, 12, MPI_COMM_WORLD, requests(1))
  call MPI_Irecv(right, 4, MPI_INTEGER, next, 12, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_Isend(mine, 4, MPI_INTEGER, next, 12, MPI_COMM_WORLD, requests(3))
  call MPI_Isend(mine, 4, MPI_INTEGER, prev, 12, MPI_COMM_WORLD, requests(4))
  call MPI_Waitall(4, requests, MPI_STATUSES_IGNORE)
  if (left(1) /= prev .or. right(1) /= next) stop 3
  one = rank
  call MPI_Bcast(one, 1, MPI_INTEGER, 1, MPI_COMM_WORLD)
  if (one /= 1) stop 4
  call MPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= nranks) stop 5
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program ring_f08
