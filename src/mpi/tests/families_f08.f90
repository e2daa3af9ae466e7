! The call families beyond the common subset through the mpi_f08 bindings (issue 20 item 1), on
! 4 ranks, some calls without their optional ierror:
!  - persistent ring: MPI_Send_init / MPI_Recv_init (tag 21, 8 integers) to the next / from the
!    previous rank, 3 x MPI_Startall + MPI_Waitall, both freed: 12 messages of 32 bytes; and an
!    MPI_Ssend_init to the next rank started once, received by a plain MPI_Recv (tag 22, 1
!    integer): 4 messages of 4 bytes;
!  - probes: rank 1 -> 0 (tag 23, 2 integers) found with MPI_Probe, rank 2 -> 3 (tag 24) found by
!    polling MPI_Iprobe: 2 messages of 8 bytes;
!  - collectives: MPI_Exscan, MPI_Reduce_scatter, MPI_Reduce_scatter_block;
!  - non-blocking collectives, each completed by MPI_Wait: MPI_Ibarrier, MPI_Ibcast (root 2),
!    MPI_Ireduce (root 0), MPI_Iallreduce, MPI_Iallgather, MPI_Ialltoall, MPI_Iscan, MPI_Iexscan,
!    MPI_Ireduce_scatter_block;
!  - one-sided: MPI_Win_create, MPI_Win_fence, MPI_Put to the next rank, MPI_Win_fence, an
!    MPI_Barrier, MPI_Win_lock / MPI_Get / MPI_Accumulate / MPI_Win_unlock on the previous rank,
!    MPI_Win_free;
!  - communicators: MPI_Comm_split_type (shared memory), MPI_Cart_create (periodic ring),
!    MPI_Comm_create (all of MPI_COMM_WORLD's group), an MPI_Barrier on each, then freed.
! 3 + 9 + 1 collectives over MPI_COMM_WORLD, one barrier on each of the 3 new communicators.
program families_f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, ierr, i, next, prev, one, total, found_flag
  integer :: out(8), in(8), pair(2), each(4), back(4), counts(4), token
  logical :: flag, periods(1)
  integer :: dims(1)
  integer(kind=MPI_ADDRESS_KIND) :: window_size, disp
  integer, asynchronous :: window_memory(1)
  integer :: got
  type(MPI_Status) :: status
  type(MPI_Request) :: ring(2), single, request
  type(MPI_Win) :: win
  type(MPI_Comm) :: node, cart, copy
  type(MPI_Group) :: world_group

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)

  out = rank
  call MPI_Send_init(out, 8, MPI_INTEGER, next, 21, MPI_COMM_WORLD, ring(1), ierr)
  call MPI_Recv_init(in, 8, MPI_INTEGER, prev, 21, MPI_COMM_WORLD, ring(2))
  do i = 1, 3
    call MPI_Startall(2, ring)
    call MPI_Waitall(2, ring, MPI_STATUSES_IGNORE)
  end do
  if (in(1) /= prev) stop 2
  call MPI_Request_free(ring(1))
  call MPI_Request_free(ring(2), ierr)
  token = rank
  call MPI_Ssend_init(token, 1, MPI_INTEGER, next, 22, MPI_COMM_WORLD, single)
  call MPI_Start(single)
  call MPI_Recv(one, 1, MPI_INTEGER, prev, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Wait(single, MPI_STATUS_IGNORE)
  call MPI_Request_free(single)

  pair = rank
  if (rank == 1) call MPI_Send(pair, 2, MPI_INTEGER, 0, 23, MPI_COMM_WORLD)
  if (rank == 0) then
    call MPI_Probe(1, 23, MPI_COMM_WORLD, status)
    call MPI_Recv(pair, 2, MPI_INTEGER, status%MPI_SOURCE, 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if
  if (rank == 2) call MPI_Send(pair, 2, MPI_INTEGER, 3, 24, MPI_COMM_WORLD)
  if (rank == 3) then
    flag = .false.
    do while (.not. flag)
      call MPI_Iprobe(2, 24, MPI_COMM_WORLD, flag, status)
    end do
    call MPI_Recv(pair, 2, MPI_INTEGER, 2, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if

  one = 1
  each = rank
  counts = 1
  call MPI_Exscan(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Reduce_scatter(each, back, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Reduce_scatter_block(each, back, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)

  call MPI_Ibarrier(MPI_COMM_WORLD, request)
  call MPI_Wait(request, MPI_STATUS_IGNORE)
  call MPI_Ibcast(each, 4, MPI_INTEGER, 2, MPI_COMM_WORLD, request)
  call MPI_Wait(request, MPI_STATUS_IGNORE)
  call MPI_Ireduce(one, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, request, ierr)
  call MPI_Wait(request, MPI_STATUS_IGNORE)
  call MPI_Iallreduce(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request)
  call MPI_Wait(request, MPI_STATUS_IGNORE)
  if (total /= nranks) stop 3
  call MPI_Iallgather(one, 1, MPI_INTEGER, back, 1, MPI_INTEGER, MPI_COMM_WORLD, request)
  call MPI_Wait(request, MPI_STATUS_IGNORE)
  call MPI_Ialltoall(each, 1, MPI_INTEGER, back, 1, MPI_INTEGER, MPI_COMM_WORLD, request)
  call MPI_Wait(request, MPI_STATUS_IGNORE)
  call MPI_Iscan(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request)
  call MPI_Wait(request, MPI_STATUS_IGNORE)
  call MPI_Iexscan(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request)
  call MPI_Wait(request, MPI_STATUS_IGNORE)
  call MPI_Ireduce_scatter_block(each, back, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request)
  call MPI_Wait(request, MPI_STATUS_IGNORE)

  window_memory = 0
  window_size = 4
  disp = 0
  call MPI_Win_create(window_memory, window_size, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  call MPI_Put(rank, 1, MPI_INTEGER, next, disp, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win, ierr)
  call MPI_F_sync_reg(window_memory)  ! the compiler must not keep its own copy across the fence
  if (window_memory(1) /= prev) stop 4
  call MPI_Barrier(MPI_COMM_WORLD)  ! everybody read its window before the accumulates below
  call MPI_Win_lock(MPI_LOCK_SHARED, prev, 0, win)
  call MPI_Get(got, 1, MPI_INTEGER, prev, disp, 1, MPI_INTEGER, win)
  call MPI_Accumulate(one, 1, MPI_INTEGER, prev, disp, 1, MPI_INTEGER, MPI_SUM, win)
  call MPI_Win_unlock(prev, win)
  call MPI_Win_free(win)

  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node)
  call MPI_Barrier(node)
  dims(1) = nranks
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart)
  call MPI_Barrier(cart)
  call MPI_Comm_group(MPI_COMM_WORLD, world_group)
  call MPI_Comm_create(MPI_COMM_WORLD, world_group, copy)
  call MPI_Barrier(copy)
  call MPI_Group_free(world_group)
  call MPI_Comm_free(copy)
  call MPI_Comm_free(cart)
  call MPI_Comm_free(node)
  call MPI_Finalize()
end program families_f08
