/* mpi.h: MPI for gpuhost's communicators, loaded with dlopen at first use (libmpi.so.40:
 * Open MPI, whose ABI this speaks) and shared by the Lua side (host/comm.c: the launcher,
 * the unique id's broadcast) and the backends (the CPU backend's collectives between
 * processes; peers' liveness for both). Knows nothing of Lua. Every call is made from the
 * thread that runs Lua. */
#ifndef GPUHOST_MPI_H
#define GPUHOST_MPI_H

#include <stddef.h>
#include <sys/types.h>
#include "backend.h"

/* This process's rank, size and rank within its node as the launcher (mpirun, srun)
 * tells them in the environment; GPU_ERR_COMM_FAILED (detail: what to do) when no
 * launcher started it. */
GpuResult mpi_launcher(int *rank, int *size, int *local_rank);
/* A failure of host/mpi.c or launcher.c: code, the call, the detail (printf) */
GpuResult mpi_fail(int code, const char *call, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* host/launcher.c: whether a process on this host has ended (a zombie not yet reaped
 * too); start(arg) (MPI_Init) run on a thread of its own and waited for, watched: a rank on
 * this host (the launcher's other children) that ends first, the timeout and Ctrl-C end
 * the wait with a failure (the thread is left where it waits). *ret: start's value. */
int process_ended(pid_t pid);
GpuResult launcher_wait(int (*start)(void *), void *arg, int *ret);
/* Loads libmpi and initializes MPI (once; finalized at exit), and checks that MPI's
 * world agrees with the launcher; exchanges every rank's process id and host so that a
 * peer that dies can be seen (mpi_peer_gone). A failure is kept: every later call
 * returns it. */
GpuResult mpi_start(void);
int mpi_started(void);
/* The world rank of a peer that has ended, or -1: a process on this host that is gone
 * (cheap: kill(pid, 0) and /proc), or a rank on any host whose script ended (its goodbye,
 * sent at exit before MPI_Finalize, came 2 s ago). A peer on another host that dies is
 * not seen (NCCL's transports and the timeout see it). mpi_gone_how: which of the two. */
int mpi_peer_gone(void);
const char *mpi_gone_how(void);
/* Whether that peer is gone by its goodbye (its process waits in MPI_Finalize): it breaks
 * only waits for calls it is part of (a send or recv between two others goes on), where a
 * peer whose process is gone breaks every communicator it was in */
int mpi_gone_alive(void);
/* After a broken communicator, MPI_Finalize at exit could wait for the dead: skip it. */
void mpi_skip_finalize(void);

/* n bytes from root to every rank (blocking; used once per communicator). */
GpuResult mpi_bcast(void *buf, size_t n, int root);

/* Each communicator of gpuhost's has an MPI communicator of its own, a duplicate of
 * MPI_COMM_WORLD (MPI_Comm_dup: collective, as ncclCommInitRank is), so that the calls of
 * two never pair with each other. mpi_comm_free does not wait for the other ranks. The
 * broadcast and the duplicate wait watched: a peer gone, the timeout or Ctrl-C end them
 * with a failure. */
GpuResult mpi_comm_dup(void **comm);
void mpi_comm_free(void *comm);

/* Nonblocking operations on such a communicator, with errors returned (not fatal). A
 * request is completed by mpi_test. */
typedef struct MpiRequest { void *handle; int active; } MpiRequest;
/* args->kind with host pointers send and recv (send == recv: in place). GPU_RED_AVG is
 * not MPI's: it sums, and the caller divides. */
GpuResult mpi_post(void *comm, const GpuCollArgs *args, void *send, void *recv, MpiRequest *req);
/* Posts an exchange of n bytes from every rank (all: nranks * n bytes). */
GpuResult mpi_post_allgather(void *comm, const void *mine, void *all, size_t n, MpiRequest *req);
/* The tags of messages between two ranks: the data of mpi_post's sends and recvs, and
 * before it the sender's and the receiver's headers (mpi_post_bytes) */
enum { GPU_TAG_DATA = 7, GPU_TAG_SENT = 8, GPU_TAG_WANTED = 9, GPU_TAG_BYE = 10 };
/* Posts n bytes to peer (sending) or from it, with tag */
GpuResult mpi_post_bytes(void *comm, void *buf, size_t n, int peer, int tag, int sending,
                         MpiRequest *req);
/* *done 1 when req has completed (it is then inactive). */
GpuResult mpi_test(MpiRequest *req, int *done);

/* GPUHOST_COMM_TIMEOUT: how long queued collective work may go unfinished before its
 * communicator is declared broken, in seconds (default 600); GPU_ERR_BAD_SETTING when the
 * variable is set to anything but a whole number from 1 to 10^6. */
GpuResult comm_timeout(double *seconds);
double mpi_now(void);           /* a monotonic clock, in seconds */

#endif
