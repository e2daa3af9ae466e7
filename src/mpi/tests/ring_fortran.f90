! Fortran ring (through the Fortran bindings of libgrainscope-mpi): 2 rounds, 10 integers
! (40 bytes, tag 11) to the next rank; then an MPI_Allreduce and an MPI_Barrier.
! 4 ranks: 8 messages, 2 collectives.
program ring_fortran
  use mpi
  implicit none
  integer :: rank, nranks, ierr, round, next, prev, one, total
  integer :: buf(10)
  integer :: status(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  buf = rank
  do round = 1, 2
    if (rank == 0) then
      call MPI_Send(buf, 10, MPI_INTEGER, next, 11, MPI_COMM_WORLD, ierr)
      call MPI_Recv(buf, 10, MPI_INTEGER, prev, 11, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_Recv(buf, 10, MPI_INTEGER, prev, 11, MPI_COMM_WORLD, status, ierr)
      call MPI_Send(buf, 10, MPI_INTEGER, next, 11, MPI_COMM_WORLD, ierr)
    end if
  end do
  one = 1
  call MPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program ring_fortran
