! Every collective family and the wait/test families through the Fortran bindings of
! libgrainscope-mpi (4 ranks): gather, gatherv, scatter, scatterv, allgather, allgatherv,
! alltoall, alltoallv, scan (9 collectives on MPI_COMM_WORLD, one integer per rank and piece);
! then a ring exchange completed with test/testall/testany/testsome/waitany/waitsome (6 rounds,
! one 4-byte message tag 20+round to the next rank each), and a final barrier.
program collectives_fortran
  use mpi
  implicit none
  integer :: rank, nranks, ierr, i, round, next, prev, idx, outcount
  integer :: one, total
  integer :: all(4), counts(4), displs(4), piece, sbuf, rbuf
  integer :: reqs(2), indices(2)
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2)
  logical :: flag
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  one = rank
  counts = 1
  do i = 1, 4
    displs(i) = i - 1
  end do
  call MPI_Gather(one, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Gatherv(one, 1, MPI_INTEGER, all, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  all = 7
  call MPI_Scatter(all, 1, MPI_INTEGER, piece, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Scatterv(all, counts, displs, MPI_INTEGER, piece, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allgather(one, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Allgatherv(one, 1, MPI_INTEGER, all, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Alltoall(all, 1, MPI_INTEGER, counts, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  counts = 1
  call MPI_Alltoallv(all, counts, displs, MPI_INTEGER, all, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Scan(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= rank * (rank + 1) / 2) stop 2

  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  do round = 1, 6
    sbuf = round
    call MPI_Irecv(rbuf, 1, MPI_INTEGER, prev, 20 + round, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(sbuf, 1, MPI_INTEGER, next, 20 + round, MPI_COMM_WORLD, reqs(2), ierr)
    select case (round)
    case (1)
      flag = .false.
      do while (.not. flag)
        call MPI_Test(reqs(1), flag, status, ierr)
      end do
      call MPI_Wait(reqs(2), status, ierr)
    case (2)
      flag = .false.
      do while (.not. flag)
        call MPI_Testall(2, reqs, flag, statuses, ierr)
      end do
    case (3)
      do i = 1, 2
        flag = .false.
        do while (.not. flag)
          call MPI_Testany(2, reqs, idx, flag, status, ierr)
        end do
        if (idx < 1 .or. idx > 2) stop 3
      end do
    case (4)
      outcount = 0
      i = 0
      do while (i < 2)
        call MPI_Testsome(2, reqs, outcount, indices, statuses, ierr)
        if (outcount /= MPI_UNDEFINED) i = i + outcount
      end do
    case (5)
      do i = 1, 2
        call MPI_Waitany(2, reqs, idx, status, ierr)
        if (idx < 1 .or. idx > 2) stop 4
      end do
    case (6)
      i = 0
      do while (i < 2)
        call MPI_Waitsome(2, reqs, outcount, indices, statuses, ierr)
        i = i + outcount
      end do
    end select
    if (rbuf /= round) stop 5
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program collectives_fortran
