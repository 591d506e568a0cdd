/* gpu.h: what the Lua-facing files of the gpu module share (one file per Lua-visible type,
 * in the shape of liolib.c). They reach the machine only through backend.h's table and
 * turn its GpuResult into Lua errors (errors.c).
 *
 * Helpers that touch the Lua stack carry the manual's stack-effect tag [-o, +p, x]: o
 * values popped, p pushed, x what errors it may raise ('-' none, 'm' memory, 'e' any,
 * 'v' argument errors as luaL_check* raise). */
#ifndef GPUHOST_GPU_H
#define GPUHOST_GPU_H
#ifdef GPUHOST_NO_LUA
#error "a backend (or what backends share) includes gpu.h: backends know nothing of Lua"
#endif

#include <stddef.h>
#include <stdint.h>
#include "backend.h"
#include "util.h"
#include "lua.h"
#include "lauxlib.h"

/* ---- dtypes (dtype.c): this table is the one place a dtype is defined ----
 * X(ENUM, name, host type, kind, aliases, spellings):
 *   name       what Lua calls it; aliases: other names Lua accepts, '|' between;
 *   host type  what holds one element on the host (its size is the element's size;
 *              float16's is its bits: util.h's half_from_double and half_to_double convert);
 *   kind       'f' float, 'i' signed integer, 'u' unsigned integer, 'b' bool, 'c' complex
 *              (two floats: real, imaginary);
 *   spellings  the C types a kernel parameter may use for it, '|' between; the first is
 *              how gpuhost's own generated kernels spell it.
 * Everything else (gpu.dtypes, gpu.float32 ..., the C spellings lua/signature.lua reads,
 * conversions to and from Lua values) is derived from it. */
#define GPU_DTYPES(X) \
  X(FLOAT32, "float32", float,    'f', "",       "float") \
  X(FLOAT64, "float64", double,   'f', "double", "double") \
  X(INT8,    "int8",    int8_t,   'i', "", "signed char|char|int8_t") \
  X(INT16,   "int16",   int16_t,  'i', "", "short|short int|signed short|signed short int|int16_t") \
  X(INT32,   "int32",   int32_t,  'i', "", "int|signed|signed int|int32_t") \
  X(INT64,   "int64",   int64_t,  'i', "", "long long|long long int|signed long long|long|long int|" \
                                           "signed long|int64_t|ptrdiff_t|intptr_t") \
  X(UINT8,   "uint8",   uint8_t,  'u', "", "unsigned char|uint8_t") \
  X(UINT16,  "uint16",  uint16_t, 'u', "", "unsigned short|unsigned short int|uint16_t") \
  X(UINT32,  "uint32",  uint32_t, 'u', "", "unsigned int|unsigned|uint32_t") \
  X(UINT64,  "uint64",  uint64_t, 'u', "", "unsigned long long|unsigned long long int|unsigned long|" \
                                           "unsigned long int|uint64_t|size_t|uintptr_t") \
  X(BOOL,    "bool",    uint8_t,  'b', "", "bool") \
  X(COMPLEX64,  "complex64",  float _Complex,  'c', "", "gpu::complex64|gpu::complex<float>") \
  X(COMPLEX128, "complex128", double _Complex, 'c', "", "gpu::complex128|gpu::complex<double>") \
  X(FLOAT16, "float16", uint16_t, 'f', "half", "gpu::half|__half|half")

#define DTYPE_ENUM(E, name, T, kind, aliases, spellings) DT_##E,
typedef enum { GPU_DTYPES(DTYPE_ENUM) DT_COUNT } GpuDtype;
#undef DTYPE_ENUM

typedef struct DtypeInfo {
  const char *name;
  const char *aliases;
  const char *spellings;
  size_t size;
  char kind;
} DtypeInfo;
extern const DtypeInfo dtypes[DT_COUNT];

int dtype_from_name(const char *name);                 /* -1 when unknown (aliases too) */
GpuDtype dtype_check(lua_State *L, int idx, GpuDtype def);   /* [-0, +0, v] name at idx, or def if nil */
/* [-0, +0, -] Store the Lua value at idx into dst as dtype dt; NULL, or why not ("out of range": dtype_range [-0, +1, m] pushes " for int32: -2147483648 to 2147483647"). _value: also a boolean, as 1 or 0, into any dtype (a value assigned, an element of a table) */
const char *dtype_store(lua_State *L, int idx, GpuDtype dt, void *dst), *dtype_store_value(lua_State *L, int idx, GpuDtype dt, void *dst), *dtype_range(lua_State *L, GpuDtype dt);
void dtype_push(lua_State *L, GpuDtype dt, const void *src);   /* [-0, +1, -] */
void dtype_open(lua_State *L);   /* [-0, +0, m] gpu._dtypes, with the gpu table on top */

/* ---- shapes (dtype.c) ---- */
#define GPU_MAXDIM 8
typedef struct GpuShape {
  int ndim;           /* 0 (one element) to GPU_MAXDIM */
  int64_t dim[GPU_MAXDIM];
  int64_t size;       /* product of dims */
} GpuShape;
void shape_check(lua_State *L, int idx, GpuShape *s);      /* [-0, +0, v] a number or a table of them */
int64_t size_check(lua_State *L, int idx, const char *what); /* [-0, +0, v] a non-negative integral size */
int shape_fits(const GpuShape *s);   /* no negative dim, and the nonzero ones' product at most 2^48 */
void shape_push(lua_State *L, const GpuShape *s);          /* [-0, +1, m] */
/* [-0, +(0|1), m] Pushes array field k (shape, dtype, size, ndim, nbytes); 0 when k is
 * none of them. */
int field_push(lua_State *L, const char *k, const GpuShape *s, GpuDtype dt);
/* [-0, +(0|1), m] Pushes method k of the value at idx (from its metatable's "methods");
 * 0, with nothing pushed, when there is none. */
int method_push(lua_State *L, int idx, const char *k);

/* ---- layouts (layout.c): where a view's elements lie; arithmetic only, no Lua ----
 * Element (i1, ..., in) (0-based) of a view is at offset + i1*strides[0] + ... +
 * in*strides[n-1] elements from the start of the memory it shares with its owner. */
typedef struct GpuLayout {
  GpuShape shape;
  int64_t strides[GPU_MAXDIM];
  int64_t offset;
} GpuLayout;
void layout_init(GpuLayout *l, const GpuShape *s);          /* C order, offset 0 */
int layout_contiguous(const GpuLayout *l);                  /* C order: flat = memory order */
int layout_expanded(const GpuLayout *l);                    /* a stride 0 over more than one element */
int layout_same(const GpuLayout *a, const GpuLayout *b);    /* the same elements in the same places */
void layout_extent(const GpuLayout *l, int64_t *lo, int64_t *hi);   /* elements touched: [lo, hi) */
int layout_overlap(const GpuLayout *a, const GpuLayout *b);   /* extents meet (over one memory) */
int64_t layout_at(const GpuLayout *l, int64_t flat);       /* where flat element `flat` (C order) is */
/* Dimension d (0-based) becomes first, first + step, ... (len of them); select drops it. */
void layout_slice(GpuLayout *l, int d, int64_t first, int64_t len, int64_t step);
void layout_select(GpuLayout *l, int d, int64_t i);
void layout_permute(GpuLayout *l, const int *perm);         /* new dim k is old dim perm[k] */
void layout_insert(GpuLayout *l, int d);                    /* a new dim of size 1 at d */
/* The view of l with shape `to` when its strides allow one (1), else 0 (a copy is needed). */
int layout_reshape(const GpuLayout *l, const GpuShape *to, GpuLayout *out);
/* Broadcasting (NumPy's rules): the shape a and b broadcast to (0), or -1. */
int shape_broadcast(const GpuShape *a, const GpuShape *b, GpuShape *out);
/* The product of s's dims; INT64_MAX where it passes that (a broadcast or product of
 * expanded operands can: array_new then refuses the shape), 0 where a dim is 0 */
int64_t shape_count(const GpuShape *s);
/* l seen with shape `to` (which it broadcasts to): new and size-1 dims get stride 0. */
void layout_broadcast(GpuLayout *l, const GpuShape *to);
/* n layouts of one shape with their common dims merged and size-1 dims dropped (as CuPy
 * and NumPy's iterators do); returns the new ndim (at least 1). */
#define GPU_MAXOPS 16      /* operands (inputs and outputs) of one elementwise kernel */
int layout_collapse(int n, GpuLayout *ls);
/* The magic number and shift that divide a 31-bit index by d (ew::divide_by) */
void layout_magic(int64_t d, uint32_t *magic, uint32_t *shift);
void shape_format(const GpuShape *s, char *buf, size_t n);  /* "{2, 3}" */

/* ---- errors (errors.c) ---- */
#define GPU_ERROR_T "gpu.error"
/* [-0, +0, e] Raises the error object for a failed result; detail (or else r.detail) goes
 * into the object's detail or log. Does not return. */
int errors_raise(lua_State *L, GpuResult r, const char *detail);
#define GPU_CHECK(L, expr) do { GpuResult r_ = (expr); \
    if (r_.code != 0) errors_raise(L, r_, NULL); } while (0)
/* [-0, +0, v] "attempt to use a freed array" (what, or nothing, in parentheses); "what: cannot
 * write into an expanded view ...", into an array_shares() array (what may be NULL); an
 * argument past last not nil, "NAME takes N arguments, got ..." (NAME "a:m" counts after a) */
int errors_freed(lua_State *L, const char *what), errors_shared(lua_State *L, const char *what);
void errors_args(lua_State *L, int last, const char *name), errors_callable(lua_State *L, int idx, const char *name);
/* [-0, +1, m] The value at idx for messages: luaL_tolstring's, NaN "nan" (not "-nan"), a string quoted (a string
 * ("1")), errors_element's (a refused element) a gpu.complex as 1+2j; errors_integer: idx integral, into *v (not "1") */
const char *errors_value(lua_State *L, int idx), *errors_element(lua_State *L, int idx);
/* [-0, +0, -] A cleanup failed where nothing can be raised (__gc): a warning (lua_warning). */
void errors_warn(lua_State *L, GpuResult r, const char *what);
/* [-0, +0, v] Each key of the options table at idx one of known (names split by spaces, "" for
 * none), else "gpu.NAME: unknown option 'k' (it takes ...)" (NAME with a colon without "gpu."):
 * none ignored. errors_flag: option key of the table at opts (0: none) a boolean (dflt if absent),
 * else "gpu.NAME: option KEY must be a boolean, got TYPE" (Lua's 0 is true); errors_nil_options: idx, the last, a nil */
void errors_options(lua_State *L, int idx, const char *name, const char *known), errors_open(lua_State *L);
int errors_flag(lua_State *L, int opts, const char *name, const char *key, int dflt), errors_integer(lua_State *L, int idx, lua_Integer *v), errors_nil_options(lua_State *L, int idx, int last);

/* ---- device arrays (array.c) ----
 * An array owns its memory, or is a view of another's (a slice, a transpose, ...): a view
 * holds its owner as its user value, so the memory lives as long as any view does, and
 * freeing an owner while views of it are alive is an error. */
#define GPU_ARRAY_T "gpu.array"
#define GPU_ARRAY_MAGIC 0x6770756172726179ULL   /* "gpuarray": kernel.c's quick check */
typedef struct GpuArray {
  uint64_t magic;      /* GPU_ARRAY_MAGIC, set where arrays are made (array.c) */
  CUdeviceptr ptr;     /* element 0; 0 while unallocated, after free, and for size 0 */
  size_t nbytes;       /* size * element size */
  GpuShape shape;
  GpuDtype dtype;
  int device;
  int alive;           /* 0 once freed: any later use raises */
  int pins;            /* graphs that use it (graph.c): it cannot be freed while any does */
  int doomed;          /* freed or collected while pinned: released at the last unpin */
  int queued;          /* collectives of an open gpu.nccl.group that use it (collective.c):
                        * it cannot be freed until the group ends */
  int contiguous;      /* C order from ptr on */
  int nviews;          /* an owner's live views */
  int shares;          /* 1: an expanded view (a stride 0), or a view of one: its elements
                        * share memory, and nothing writes into it (NumPy's read-only
                        * broadcast views); array_shares() */
  int64_t strides[GPU_MAXDIM];   /* in elements; may be 0 (expand) or negative */
  int64_t offset;      /* elements from base to element 0 */
  struct GpuArray *owner;        /* a view's owner (its user value), NULL for an owner */
  CUdeviceptr base;    /* the owner's allocation */
  void (*release)(void *ud, CUdeviceptr p);   /* for memory an embedding program lent */
  void *release_ud;
  int lent;            /* 1: ptr is the program's (gpuhost_push_array): release, not freed */
  int header_ready;    /* header holds what a gpu::array<T> argument's bytes after the
                        * pointer are (kernel.c builds it at the first launch) */
  unsigned char header[144];   /* = ARRAY_ARG_SIZE - 8 (kernel.c checks) */
} GpuArray;
GpuArray *array_check(lua_State *L, int idx);                    /* [-0, +0, v] a live device array */
/* Whether Lua runs a finalizer (lua_gc answers -1, 5.4.4 on): a:free() there only marks the
 * array freed (its memory goes when collected): the call the collector interrupted may use it */
int gpu_in_finalizer(lua_State *L);
GpuArray *array_test(lua_State *L, int idx);                     /* [-0, +0, -] NULL when not one */
/* [-0, +0, v] The array at idx as argument pos of gpu.name: a live device array on the current device
 * (kernels read only the current device's memory); array_out: as gpu.name's out, live, any device */
GpuArray *array_operand(lua_State *L, int idx, const char *name, int pos), *array_out(lua_State *L, int idx, const char *name);
int array_expected(lua_State *L, int idx, const char *name, int pos);   /* [-0, +1, v] what came instead */
/* [-0, +0, v] Raises, naming the operation (prefix "gpu.fft.", name "fft"), unless a is on
 * the current device */
void array_here(lua_State *L, const GpuArray *a, const char *prefix, const char *name);
GpuArray *array_new(lua_State *L, const GpuShape *s, GpuDtype dt);  /* [-0, +1, e] */
int array_shares(const GpuArray *a);   /* whether a is (a view of) an expanded view: not written */
void array_shape_fits(lua_State *L, const GpuShape *s);  /* [-0, +0, e] more than 2^48 elements: an error */
/* [-0, +1, e] An array over memory an embedding program lends (embedapi.c): it is not
 * freed here; its release callback is called instead. */
GpuArray *array_lend(lua_State *L, CUdeviceptr p, const GpuLayout *l, GpuDtype dt);
/* [-0, +1, e] A view of the array at idx with layout l (offsets from its owner's base). */
GpuArray *array_view(lua_State *L, int idx, const GpuLayout *l);
GpuLayout array_layout(const GpuArray *a);
void array_open(lua_State *L);

/* ---- host arrays (hostarray.c), with views as device arrays have ---- */
#define GPU_HOSTARRAY_T "gpu.hostarray"
#define GPU_PINNEDPOOL_T "gpu.pinnedpool"
typedef struct HostArray {
  void *data;          /* element 0 */
  size_t nbytes;       /* size * element size */
  GpuShape shape;
  GpuDtype dtype;
  size_t capacity;     /* bytes of the buffer, which may be larger (pooled) */
  int pinned;          /* 1: the backend's host_alloc; 0: malloc (no driver) */
  int alive;
  int contiguous;
  int nviews;
  int shares;          /* as GpuArray's: hostarray_shares() */
  int accounted;       /* 1: its buffer's bytes were told to the collector (gc_account) */
  int64_t strides[GPU_MAXDIM];
  int64_t offset;
  struct HostArray *owner;
  void *base;
} HostArray;
HostArray *hostarray_test(lua_State *L, int idx);   /* [-0, +0, -] NULL when not a host array */
HostArray *hostarray_check(lua_State *L, int idx);  /* [-0, +0, v] a live host array */
HostArray *hostarray_new(lua_State *L, const GpuShape *s, GpuDtype dt);   /* [-0, +1, e] */
HostArray *hostarray_view(lua_State *L, int idx, const GpuLayout *l);      /* [-0, +1, m] */
GpuLayout hostarray_layout(const HostArray *h);
int hostarray_shares(const HostArray *h);
/* A new array's raw bytes as bools: each nonzero one becomes 1, as every other way to a bool
 * makes it (kernels read the byte as a number: a 2 would convert to 2 and logical_not to false) */
void hostarray_bools(HostArray *h);
void hostarray_open(lua_State *L);

/* ---- tables <-> packed elements (table.c) ---- */
/* [-0, +0, e] Fills dst (s->size elements of dt) from the (nested) table at idx. */
void table_read(lua_State *L, int idx, const GpuShape *s, GpuDtype dt, void *dst);
void table_shape(lua_State *L, int idx, GpuShape *s);   /* [-0, +0, e] */
const char *table_not_list(lua_State *L, int idx, lua_Integer n);   /* [-0, +(0|1), e] a key past 1..n */
GpuDtype table_dtype(lua_State *L, int idx, int dtidx);   /* [-0, +0, e] the dtype at dtidx, else by idx's elements */
HostArray *table_host(lua_State *L, int idx, GpuDtype dt);   /* [-0, +1, e] the table at idx as a host array of dt */
void table_push(lua_State *L, const void *src, const GpuShape *s, GpuDtype dt);  /* [-0, +1, m] */

/* ---- host-side strided loops (strided.c; no Lua) ----
 * Copies the elements of src (layout sl, dtype st, broadcast to dl's shape) into dst
 * (layout dl, dtype dt), converting as the generated kernels do (kernels/ops/ew.cuh). */
void strided_copy(void *dst, const GpuLayout *dl, GpuDtype dt, const void *src,
                  const GpuLayout *sl, GpuDtype st);
/* Converts one element; the rules of ew::cast. */
void element_convert(void *dst, GpuDtype dt, const void *src, GpuDtype st);

/* ---- views (view.c): indexing and the view methods of device and host arrays ---- */
/* [-0, +1, e] The view key (a table at idx 2) selects from the array at 1; for a host
 * array, a key of one number per dimension gives the element itself. */
int view_index(lua_State *L);
/* [-0, +0, e] a[key] = v for either kind of array (the array at 1, key at 2, v at 3). */
int view_assign(lua_State *L);
void view_transposed(lua_State *L, int idx);   /* [-0, +1, e] the view with dims reversed (.T) */
void view_open(lua_State *L);   /* adds the view methods to both metatables */

/* ---- elementwise operations (promote.c, ufunc.c, ops.c) ----
 * A ufunc ("gpu.ufunc": gpu.add, gpu.sqrt, what gpu.fuse and gpu.elementwise make) runs
 * one generated kernel over its operands: device arrays broadcast to one shape, and Lua
 * numbers (weak scalars, NEP 50) passed by value. */
#define GPU_UFUNC_T "gpu.ufunc"
enum { OPK_ARRAY, OPK_BOOL, OPK_INT, OPK_FLOAT };   /* weak kinds in rising order */
typedef struct Operand {
  int kind;              /* OPK_* */
  GpuDtype dtype;        /* an array's; a scalar's: what the kernel takes it as (its loop) */
  GpuDtype loop;         /* what the operation computes this operand in */
  int idx;               /* its stack index */
  GpuArray *a;           /* arrays */
  union { uint64_t u; double d; } value;   /* scalars: the value as dtype */
  GpuLayout lay;         /* arrays: broadcast to the result's shape */
} Operand;

/* How each operation finds its types (promote.c, resolve_types). */
enum {
  RULE_ARITH,      /* add multiply maximum minimum clip: the common type */
  RULE_SUB,        /* subtract negative: not bool */
  RULE_DIV,        /* divide: integers give float64 */
  RULE_INTDIV,     /* floor_divide remainder pow conj: bool gives int8 */
  RULE_BITWISE,    /* bitwise_* invert: integers and bool */
  RULE_SHIFT,      /* left_shift right_shift: integers; bool gives int8 */
  RULE_FLOAT,      /* sqrt exp ... atan2: integers give float16 (8 bits), float32 (16) or float64 */
  RULE_KEEP,       /* abs floor ceil trunc: the type itself */
  RULE_SIGN,       /* sign positive: not bool */
  RULE_ROUND,      /* round: bool gives float16 */
  RULE_INTEGER,    /* gcd lcm: integers only */
  RULE_FLOAT64,    /* float_power: float64, or complex128 */
  RULE_COMPARE,    /* eq ne lt le gt ge: bool; integers compared exactly */
  RULE_LOGICAL,    /* logical_*: bool */
  RULE_PREDICATE,  /* isnan isinf isfinite: bool */
  RULE_WHERE,      /* where(cond, x, y): the common type of x and y */
  RULE_CAST,       /* copies: the output's dtype */
  RULE_CUSTOM      /* gpu.fuse, gpu.elementwise: the declared dtypes */
};
GpuDtype promote_types(GpuDtype a, GpuDtype b);
int can_cast_same_kind(GpuDtype from, GpuDtype to);
GpuDtype result_type(int n, const Operand *ops);     /* NEP 50, weak scalars included */
/* Sets each input's loop type and *out, the output's; NULL, or why the types do not go. */
const char *resolve_types(int rule, int nin, Operand *ops, GpuDtype *out);

typedef struct Ufunc {
  int nin, nout, rule;
  int cx;                           /* complex operands: UFUNC_CX_* (built-ins) */
  char name[40], expr[40];          /* expr: built-ins' function of kernels/ops/ew.cuh */
  GpuDtype declared[GPU_MAXOPS];    /* RULE_CUSTOM: each operand's dtype */
  int nentries, capacity, nprograms;
  struct UEntry *entries;           /* its kernels, by operand dtypes (ufunc.c) */
  struct UEntry *launched;          /* the entry of the last launch */
  /* the last call whose operands were all arrays and whose output was made: its input
   * dtypes, output dtype and kernels, for ufunc_quick (valid: 0 until one, and after the
   * entries move) */
  struct { int valid; GpuDtype in[GPU_MAXOPS], out; struct UEntry *entry; } quick;
} Ufunc;
enum { UFUNC_CX_YES, UFUNC_CX_NO, UFUNC_CX_REAL };   /* its rule; refused; a real result */
/* A built-in operation (opdefs.c): meta, the operator's metamethod or NULL; cx, what
 * complex operands do (UFUNC_CX_*), as in NumPy */
typedef struct OpDef {
  const char *name;
  int nin, rule;
  const char *expr, *meta;
  int cx;
} OpDef;
extern const OpDef ops_builtins[];
extern const int ops_nbuiltins;
extern const OpDef ops_special[];   /* gpu.special's */
extern const int ops_nspecial;
Ufunc *ufunc_check(lua_State *L, int idx);   /* [-0, +0, v] */
/* [-0, +1, m] A new ufunc (built-ins: expr names the function that computes it). */
Ufunc *ufunc_new(lua_State *L, const char *name, int nin, int nout, int rule, const char *expr);
/* [-0, +0, e] Runs u (at uidx) over ops (inputs, then outputs; arrays' layouts broadcast
 * to the outputs' shape, scalars' values set), generating its kernel on first use. */
void ufunc_launch(lua_State *L, int uidx, Ufunc *u, Operand *ops, CUstream stream);
void ufunc_open(lua_State *L);
/* [-0, +nout, e] u (at uidx) applied to the nargs arguments from first on (ops.c). */
int ops_call(lua_State *L, int uidx, Ufunc *u, int first, int nargs);
/* [-0, +(0|1), e] The common case at the cost of a launch: the nargs arguments from first
 * on are C-ordered arrays of one shape on the current device, of the dtypes of u's last
 * such call (u->quick). Pushes the output and returns 1, or returns 0 (nothing done). */
int ufunc_quick(lua_State *L, int uidx, Ufunc *u, int first, int nargs);
/* [-0, +0, e] dst (a device array at dst) = src (at src: a device array broadcast to
 * dst's shape, or a number or boolean), converted to dst's dtype, on stream. */
void ops_copy(lua_State *L, int dst, int src, CUstream stream);
void ops_open(lua_State *L);

/* ---- complex numbers as Lua values (complex.c): gpu.complex(re, im) ---- */
#define GPU_COMPLEX_T "gpu.complex"
void complex_push(lua_State *L, double re, double im);          /* [-0, +1, m] */
void complex_push_single(lua_State *L, float re, float im);     /* [-0, +1, m] a complex64 element */
/* [-0, +0, -] The complex value (or number) at idx: 1 and its parts, else 0. */
int complex_get(lua_State *L, int idx, double *re, double *im);
GpuDtype dtype_real(GpuDtype dt);   /* a complex dtype's parts' (float32, float64); others itself */
void complex_open(lua_State *L);

/* ---- products (blas.c): gpu.matmul, gpu.dot, gpu.outer; FFTs (fft.c): gpu.fft ---- */
void blas_open(lua_State *L);
void fft_open(lua_State *L);
void linalg_open(lua_State *L);

/* ---- copies (copy.c) ---- */
/* [-0, +1, e] The array at idx (device or host) when C-ordered, else a C-ordered copy. */
void copy_contiguous(lua_State *L, int idx);
void copy_packed(lua_State *L, int idx);   /* [-0, +1, e] a C-ordered copy, always */
/* [-0, +0, e] Assigns the value at v to the array (device or host) at dst: a scalar (dtype_store_value's
 * rule) or an array that broadcasts to dst's shape (view.c's assigned checks); what names the call. */
void copy_assign(lua_State *L, int dst, int v, const char *what);
void copy_open(lua_State *L);
/* [-0, +1, m] (hostarray.c) The host array at idx's elements packed in C order: its
 * memory, or a copy left on the stack (nil is pushed when none is needed). */
const void *hostarray_packed(lua_State *L, int idx);

/* ---- devices and memory (device.c) ---- */
#define GPU_DEVICE_T "gpu.device"
void device_open(lua_State *L);
/* [-0, +0, e] dev current for work that cannot raise (device.c says why): the device before, -1 where
 * dev was current, which device_leave [-0, +0, -] makes current again; device_done (peer.c): so, then r raised */
int device_enter(lua_State *L, int dev);
GpuResult device_leave(int was); void device_done(lua_State *L, int was, GpuResult r);
int device_call(lua_State *L, int dev, int (*f)(lua_State *L, void *ud), void *ud);   /* [-0, +?, e] */
/* [-0, +0, v] A device id at idx (a number, or a gpu.device table: its id), checked */
int device_ordinal(lua_State *L, int idx);
/* [-0, +0, -] Tells the collector about bytes of memory it cannot see (in steps). */
void gc_account(lua_State *L, size_t bytes);
/* [-0, +0, -] The collector's step (or full collection) when gc_account's bytes call for
 * one: called before a new array's userdata is made */
void gc_due(lua_State *L);
void gc_release(size_t bytes);            /* [-0, +0, -] bytes freed that gc_account was told of */
/* [-0, +0, -] The backend's alloc (host = 0, *out a CUdeviceptr) or host_alloc (host = 1,
 * *out a void *); when memory is full, runs a full collection (which may free arrays Lua
 * no longer reaches) and tries once more. */
GpuResult mem_alloc(lua_State *L, int host, void *out, size_t n);
/* [-0, +0, -] Device memory's allocation, as mem_alloc (host = 0) tries it: within
 * GPUHOST_MEMORY_LIMIT (GPUHOST_MEMORY_LIMIT errors, with what was asked, held and
 * allowed), and when the device is full, after a full collection and after the backend's
 * trim; counted as held by the device's arrays until mem_free. */
GpuResult mem_free(CUdeviceptr p, int device, size_t n);   /* the backend's free, uncounted */

/* ---- the other Lua-visible types ---- */
#define GPU_STREAM_T "gpu.stream"
#define GPU_EVENT_T "gpu.event"
#define GPU_KERNEL_T "gpu.kernel"
#define GPU_PROGRAM_T "gpu.program"
CUstream stream_check(lua_State *L, int idx);   /* [-0, +0, v] a live stream */
void stream_push_borrowed(lua_State *L, CUstream s);   /* [-0, +1, m] the embedder's: never destroyed here */
CUstream stream_here(lua_State *L, int idx);    /* [-0, +0, v] a live stream of the current device */
CUstream stream_named(lua_State *L, int idx, const char *prefix, const char *name, int here);   /* errors name prefix..name */
void stream_in_group(lua_State *L, int idx);    /* [-0, +0, -] it has calls queued in the open gpu.nccl.group */
void stream_open(lua_State *L);
GpuResult stream_end_capture(void);   /* destroys the streams released while a graph recorded */
void event_open(lua_State *L);
void kernel_open(lua_State *L);
/* A launcher's C function: its upvalues 1 to 3 are its configuration, kernel and stream. */
int kernel_launcher_call(lua_State *L);
#define KERNEL_LAUNCHER_UPVALUES 3
void program_open(lua_State *L);
void profile_open(lua_State *L);
void npy_open(lua_State *L);
void npz_open(lua_State *L);
/* npy.c and npyhead.c: what a .npy file's header says (swap: big-endian elements) */
typedef struct NpyHeader { GpuDtype dtype; int swap, fortran; GpuShape shape; } NpyHeader;
void npy_push_header(lua_State *L, const HostArray *h);   /* [-0, +1, m] */
/* What a write puts in a file (npy.c): make(ud, fd, name) writes it into the new, empty
 * file name, open as fd, or, name NULL, into fd alone (a file written in place); by_name:
 * it writes by name alone (libzip) and is never given fd alone. 0, errno, or -1 (ud says). */
typedef struct NpyMaker { int (*make)(void *ud, int fd, const char *name); void *ud; int by_name; } NpyMaker;
int npy_write_file(const char *path, const NpyMaker *m);   /* path replaced by m's file */
const char *npy_target(lua_State *L, const char *path);   /* a link's target; NULL: a device */
/* A .npy being read, from a file or an archive's member: read puts n bytes in buf, fewer at
 * the end or on an error (then it sets error: why). */
typedef struct NpySource {
  size_t (*read)(struct NpySource *s, void *buf, size_t n);
  const char *error;
  const char *who;     /* for messages: "'f.npy'", "'x.npy' in 'f.npz'" */
  const char *what;    /* "the file", "the member" */
  int64_t size;        /* its bytes, or -1 when it cannot be known before (a pipe) */
} NpySource;
/* [-0, +1, e] The array in s (header, then the data its shape needs, no more allocated
 * whatever s holds, then the end of s), byte order swapped, bools 0 and 1; of the reversed
 * shape when the file is in Fortran order. Returns whether it is; raises "cannot read ...". */
int npy_read_array(lua_State *L, NpySource *s);
#define NPY_WHY 112   /* room for a message that names what is wrong */
/* npyhead.c: the dict of a .npy header (n bytes at text; format version major.0) into *h;
 * why not (maybe written in why), or NULL */
const char *npy_parse_header(const char *text, size_t n, int major, NpyHeader *h, char why[NPY_WHY]);
void jit_open(lua_State *L);   /* gpu.jit's dispatcher (jit.c) */
#include "graph.h"      /* gpu.graph: what the recording asks of the rest */

/* ---- programs (program.c), for kernel.c ---- */
typedef struct GpuProgram GpuProgram;
GpuProgram *program_check(lua_State *L, int idx);   /* [-0, +0, v] */
int program_debug(const GpuProgram *p);
int program_finalized(const GpuProgram *p);   /* its __gc ran: no launch may use it */
extern unsigned program_unloads;   /* programs finalized so far: a function kept before is stale */
void program_graphs_gone(lua_State *L);   /* unloads the modules kept for graphs (program.c) */
int program_nnames(const GpuProgram *p);
/* [-0, +0, e] The function `index` of the program at idx on the current device, compiling
 * and loading it there first if needed; *origin says where the code came from. */
CUfunction program_function(lua_State *L, int idx, int index, const char **origin);
CUdeviceptr program_oob(const GpuProgram *p, int device);   /* [-0, +0, e] a debug one's bounds */
int program_compile(lua_State *L);   /* p:compile(); k:compile() calls it too */

/* ---- communicators (comm.c), their collectives (collective.c) and groups (group.c) ---- */
#define GPU_COMM_T "gpu.nccl.comm"
typedef struct LuaComm {
  int n;                        /* ranks this process drives: one per device, or 1 */
  int size, rank;               /* all ranks; the first one this process drives */
  int alive, broken;
  int devices[GPU_MAX_DEVICES]; /* local rank i's device */
  GpuComm *h[GPU_MAX_DEVICES];  /* the backend's handles */
  unsigned group;               /* the gpu.nccl.group it was last called in (coll_queued) */
} LuaComm;
LuaComm *comm_check(lua_State *L, int idx);   /* [-0, +0, v] a live, unbroken communicator */
/* [-0, +0, e] c broke (r a GPU_ERR_COMM_FAILED): aborts it (at the open group's end when
 * the group has calls of it queued: NCCL holds them till then), raises r */
void comm_broke(lua_State *L, LuaComm *c, GpuResult r);
void comm_release_broken(LuaComm *c);   /* [-0, +0, -] aborts a broken one now */
void comm_open(lua_State *L);
/* What the open gpu.nccl.group's calls use (comm.c): kept alive (group_keep), arrays not
 * freed (group_hold), until the outermost group's end (group_let_go) */
void group_keep(lua_State *L, int idx);         /* [-0, +0, m] */
void group_hold(lua_State *L, GpuArray *a);     /* [-0, +0, m] */
void group_let_go(lua_State *L);                /* [-0, +0, -] */
/* [-0, +0, e] gpu.nccl.group's two ends (begin raises when the backend cannot open one;
 * finish raises unless failed) */
void coll_group_begin(lua_State *L);
void coll_group_finish(lua_State *L, int failed);
GpuResult coll_defer(LuaComm *c, const int *local, const GpuCollArgs *a, int n);   /* [-0, +0, -] all or none */
void coll_raise_failure(lua_State *L, LuaComm *c, GpuResult r, int was);   /* [-0, +0, e] c aborted if it broke */
int coll_queued(const LuaComm *c);   /* calls queued in the open group (run at its end): not freed before */
unsigned coll_open_group(void);   /* the open gpu.nccl.group's serial, 0 when none is open */
void coll_methods(lua_State *L);   /* [-0, +0, m] the collectives, into the table on top */
int stream_device(lua_State *L, int idx);   /* [-0, +0, v] the device a stream belongs to */

int luaopen_gpu(lua_State *L);

#endif
