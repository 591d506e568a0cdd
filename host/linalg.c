/* linalg.c: gpu._linalg, the one call lua/linalg.lua makes of the backend's LAPACK routines
 * (cuSOLVER on the GPU, LAPACK on the CPU backend; host/backend.h, GpuLinalg, says what
 * each does): a batch of column-major matrices, one after another in C-ordered arrays,
 * one call a matrix, each writing its status to its element of an int32 array. The Lua
 * side makes the copies the routines overwrite, checks the statuses and shapes the
 * results; this file checks that each array is what the call will read and write. */
#include <string.h>
#include "gpu.h"

static const char *const op_names[] = {"getrf", "getrs", "potrf", "geqrf", "orgqr", "syevd", "gesvd", "geev",
                                       "inv", NULL};
enum { A_A, A_B, A_IPIV, A_TAU, A_W, A_U, A_VT, A_INFO, NARRAYS };
static const char *const fields[NARRAYS] = {"a", "b", "ipiv", "tau", "w", "u", "vt", "info"};

typedef struct Call {
  GpuLinalg l;
  int64_t batch;
  GpuArray *arr[NARRAYS];
  int64_t per[NARRAYS];          /* bytes a matrix of the batch takes in each */
} Call;

static int64_t int_field(lua_State *L, int t, const char *name) {
  lua_getfield(L, t, name);
  lua_Integer v = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
  lua_pop(L, 1);
  if (v < 0) luaL_error(L, "gpu._linalg: field '%s' must be a non-negative integer", name);
  return v;
}

/* [-0, +0, e] The shapes each op takes: square ones for getrs, potrf and syevd, k <= n <= m
 * for orgqr, m >= n for gesvd (cuSOLVER's rule); below 2^31 (LAPACK's and cuSOLVER's int).
 * LAPACK would print its own complaint (and read past a) otherwise. */
static void check_shape(lua_State *L, const Call *c) {
  const GpuLinalg *l = &c->l;
  if (l->m > INT32_MAX || l->n > INT32_MAX || l->k > INT32_MAX)
    luaL_error(L, "gpu._linalg: m, n and k must be below 2^31");
  int op = l->op, square = op == GPU_LA_GETRS || op == GPU_LA_POTRF || op == GPU_LA_SYEVD || op == GPU_LA_GEEV ||
               op == GPU_LA_INV;
  if (square && l->m != l->n) luaL_error(L, "gpu._linalg: %s takes a square matrix (m = n)", op_names[op]);
  if (op == GPU_LA_ORGQR && !(l->k <= l->n && l->n <= l->m)) luaL_error(L, "gpu._linalg: orgqr takes k <= n <= m");
  if (op == GPU_LA_GESVD && l->m < l->n) luaL_error(L, "gpu._linalg: gesvd takes m >= n");
}

/* x * y * z, setting *over when it does not fit in 63 bits */
static int64_t times(int *over, int64_t x, int64_t y, int64_t z) {
  int64_t r = 0;
  *over |= __builtin_mul_overflow(x, y, &r) | __builtin_mul_overflow(r, z, &r);
  return r;
}

/* [-0, +0, e] The bytes a matrix takes in each array the call uses (0: unused); the
 * batch's bytes in each must fit in 63 bits, so the checks of read_arrays cannot wrap */
static void per_matrix(lua_State *L, Call *c, int64_t es) {
  const GpuLinalg *l = &c->l;
  int64_t m = l->m, n = l->n, mn = m < n ? m : n, real = l->type >= GPU_NUM_C64 ? es / 2 : es;
  int over = 0;
  memset(c->per, 0, sizeof c->per);
  c->per[A_A] = times(&over, m, n, es);
  c->per[A_INFO] = 4;
  switch (l->op) {
    case GPU_LA_GETRF: c->per[A_IPIV] = 4 * mn; break;
    case GPU_LA_GETRS: c->per[A_IPIV] = 4 * n; c->per[A_B] = times(&over, n, l->k, es); break;
    case GPU_LA_INV: c->per[A_IPIV] = 4 * n; c->per[A_B] = times(&over, n, n, es); break;
    case GPU_LA_GEQRF: c->per[A_TAU] = mn * es; break;
    case GPU_LA_ORGQR: c->per[A_TAU] = l->k * es; break;
    case GPU_LA_SYEVD: c->per[A_W] = n * real; break;
    case GPU_LA_GESVD:
      c->per[A_W] = n * real;
      if (l->vectors) { c->per[A_U] = times(&over, m, l->full ? m : n, es); c->per[A_VT] = times(&over, n, n, es); }
      break;
    case GPU_LA_GEEV:   /* complex eigenvalues: two reals each */
      c->per[A_W] = 2 * n * real;
      if (l->vectors) c->per[A_VT] = times(&over, n, n, es);
      break;
  }
  for (int i = 0; i < NARRAYS; i++) times(&over, c->per[i], c->batch, 1);
  if (over) luaL_error(L, "gpu._linalg: the arrays of %I matrices of %I x %I would not fit in memory",
                       (lua_Integer)c->batch, (lua_Integer)m, (lua_Integer)n);
}

/* [-0, +1, e] Field name of table t, pushed: a device array (an error naming the field if not) */
static GpuArray *array_field(lua_State *L, int t, const char *name) {
  if (lua_getfield(L, t, name) != LUA_TUSERDATA)
    luaL_error(L, "gpu._linalg: field '%s' must be a device array, got %s", name, luaL_typename(L, -1));
  return array_operand(L, -1, "_linalg", 2);
}

/* [-0, +0, e] The arrays of table t: each one the call uses C-ordered, on this device, of
 * the batch's size (the dtype of a, or int32 pivots, real values, int32 statuses) */
static void read_arrays(lua_State *L, int t, Call *c) {
  GpuDtype real = dtype_real(c->arr[A_A]->dtype);
  for (int i = 1; i < NARRAYS; i++) {
    c->arr[i] = NULL;
    if (!c->per[i]) continue;
    GpuArray *x = array_field(L, t, fields[i]);
    GpuDtype want = i == A_IPIV || i == A_INFO ? DT_INT32 : i == A_W ? real : c->arr[A_A]->dtype;
    if (i == A_W && c->l.op == GPU_LA_GEEV) want = real == DT_FLOAT32 ? DT_COMPLEX64 : DT_COMPLEX128;
    if (x->dtype != want || !x->contiguous || (int64_t)x->nbytes != c->per[i] * c->batch)
      luaL_error(L, "gpu._linalg: '%s' must be a C-ordered %s array of %I bytes", fields[i],
                 dtypes[want].name, (lua_Integer)(c->per[i] * c->batch));
    c->arr[i] = x;
    lua_pop(L, 1);
  }
}

/* [-0, +0, e] The call of op described by the table at t */
static void read_call(lua_State *L, int t, int op, Call *c) {
  memset(c, 0, sizeof *c);
  c->l.op = op;
  GpuArray *a = c->arr[A_A] = array_field(L, t, "a");
  lua_pop(L, 1);
  switch (a->dtype) {
    case DT_FLOAT32: c->l.type = GPU_NUM_F32; break;
    case DT_FLOAT64: c->l.type = GPU_NUM_F64; break;
    case DT_COMPLEX64: c->l.type = GPU_NUM_C64; break;
    case DT_COMPLEX128: c->l.type = GPU_NUM_C128; break;
    default: luaL_error(L, "gpu._linalg: 'a' must be float32, float64, complex64 or complex128");
  }
  c->l.m = int_field(L, t, "m");
  c->l.n = int_field(L, t, "n");
  c->l.k = int_field(L, t, "k");
  c->batch = int_field(L, t, "batch");
  c->l.vectors = lua_getfield(L, t, "vectors") != LUA_TNIL && lua_toboolean(L, -1);
  c->l.full = lua_getfield(L, t, "full") != LUA_TNIL && lua_toboolean(L, -1);
  c->l.trans = lua_getfield(L, t, "trans") != LUA_TNIL && lua_toboolean(L, -1);
  if (lua_getfield(L, t, "stream") != LUA_TNIL) c->l.stream = stream_check(L, -1);
  lua_pop(L, 4);
  check_shape(L, c);
  per_matrix(L, c, (int64_t)dtypes[a->dtype].size);
  if (!a->contiguous || (int64_t)a->nbytes != c->per[A_A] * c->batch)
    luaL_error(L, "gpu._linalg: 'a' must be a C-ordered array of %I bytes", (lua_Integer)(c->per[A_A] * c->batch));
  read_arrays(L, t, c);
}

/* gpu._linalg(op, {a =, b =, ipiv =, tau =, w =, u =, vt =, info =, m =, n =, k =, batch =,
 * vectors =, full =, trans =, stream =}): op ("getrf", ...) on each matrix of the batch: a
 * call a matrix, or one for all where the backend has a batched routine for it */
static int gpu_linalg(lua_State *L) {
  int op = luaL_checkoption(L, 1, NULL, op_names);
  luaL_checktype(L, 2, LUA_TTABLE);
  if (graph_capturing) graph_refuse(L, "gpu.linalg cannot be recorded in a graph (it reads its status back)");
  Call c;
  read_call(L, 2, op, &c);
  const GpuBackend *be = backend_get();
  c.l.batch = 1;
  int together = c.batch > 1 && be->linalg_batched && be->linalg_batched(&c.l, c.batch);
  if (together) c.l.batch = c.batch;
  size_t bytes = 0;
  GPU_CHECK(L, be->linalg_workspace(&c.l, &bytes));
  GpuShape ws = {.ndim = 1, .dim = {(int64_t)bytes}, .size = (int64_t)bytes};
  GpuArray *work = bytes ? array_new(L, &ws, DT_UINT8) : NULL;   /* kept on the stack until the calls are queued */
  /* the table's metamethods (the fields read after an array's) may have freed one */
  for (int j = 0; j < NARRAYS; j++)
    if (c.arr[j] && !c.arr[j]->alive) errors_freed(L, "gpu._linalg");
  for (int64_t i = 0; i < (together ? 1 : c.batch); i++) {
    GpuLinalg l = c.l;
    CUdeviceptr *ptr[NARRAYS] = {&l.a, &l.b, &l.ipiv, &l.tau, &l.w, &l.u, &l.vt, &l.info};
    for (int j = 0; j < NARRAYS; j++)
      if (c.arr[j]) *ptr[j] = c.arr[j]->ptr + (CUdeviceptr)(i * c.per[j]);
    l.work = work ? work->ptr : 0;
    l.work_bytes = bytes;
    GPU_CHECK(L, be->linalg(&l));
  }
  return 0;
}

/* Expects the gpu table on top. */
void linalg_open(lua_State *L) {
  lua_pushcfunction(L, gpu_linalg);
  lua_setfield(L, -2, "_linalg");
}
