/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libhanzo-rocm: precompiled, cached GPU kernels for AMD (HIP) and NVIDIA GPUs.
 *
 * Every function returning int returns 0 (or a count) on success and a
 * negative errno on failure; hanzo_rocm_strerror() turns it into text.
 * A context is thread-safe: one may be shared by all threads of a process.
 * Layer: context (lib/layers).
 */
#ifndef HANZO_ROCM_H
#define HANZO_ROCM_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hanzo_rocm;
struct hanzo_rocm_kernel;

/* Priorities are syslog's: LOG_ERR 3, LOG_WARNING 4, LOG_INFO 6, LOG_DEBUG 7. */
typedef void (*hanzo_rocm_log_fn)(void *data, int priority, const char *file,
                                  int line, const char *fn, const char *format,
                                  va_list args);

/*
 * Options for hanzo_rocm_new_with_options().  Set .size to sizeof(struct
 * hanzo_rocm_options) so later versions can grow the struct; every field may
 * be left zero for the default.
 */
struct hanzo_rocm_options {
	size_t size;
	const char *root;       /* prefix for every system path; default $HANZO_ROCM_ROOT or "/" */
	const char *config;     /* main config file; default $HANZO_ROCM_CONF or /etc/hanzo-rocm.conf */
	hanzo_rocm_log_fn log_fn; /* receives messages from the very first one on */
	void *log_data;
	int log_priority;       /* 0 = default (silent unless $HANZO_ROCM_LOG) */
	/*
	 * Host (CPU) devices to add after the GPUs, e.g. "host-w64 host-w32";
	 * NULL = $HANZO_ROCM_HOST, else [targets] host, else none.
	 */
	const char *host;
	/*
	 * Plugin directories, searched in order: absolute paths separated by
	 * ':'; a '+' first keeps the default directory after them
	 * ("+/opt/app/plugins").  NULL = $HANZO_ROCM_PLUGIN_PATH, else
	 * [plugins] path, else the default.  Appended in 1.x: set size.
	 */
	const char *plugin_path;
};

/*
 * Reads the configuration.  A bad setting (in the main file, a drop-in or
 * the environment) does not fail: it is reported as a warning naming
 * FILE:LINE or the variable, and that setting is left out (the key keeps
 * its built-in default, or an earlier file's value).  With the default
 * logger that warning reaches standard error even when the context is
 * otherwise silent.  `hanzo-rocm config check` is the strict reading.
 * A config file named explicitly (.config, $HANZO_ROCM_CONF) that does not
 * exist is still -ENOENT.
 */
int hanzo_rocm_new(struct hanzo_rocm **ret);
int hanzo_rocm_new_with_options(const struct hanzo_rocm_options *opts,
                                struct hanzo_rocm **ret);
struct hanzo_rocm *hanzo_rocm_ref(struct hanzo_rocm *ctx);
/* Drops a reference; returns NULL when the context was freed. */
struct hanzo_rocm *hanzo_rocm_unref(struct hanzo_rocm *ctx);

/*
 * Safe while other threads log: fn and data change together, and when it
 * returns the previous function is no longer running.  A log function must
 * not call it.
 */
void hanzo_rocm_set_log_fn(struct hanzo_rocm *ctx, hanzo_rocm_log_fn fn,
                           void *data);
int hanzo_rocm_get_log_priority(const struct hanzo_rocm *ctx);
void hanzo_rocm_set_log_priority(struct hanzo_rocm *ctx, int priority);

/* Text for a negative errno returned by this library (never NULL). */
const char *hanzo_rocm_strerror(int err);

/* Devices, AMD first (KFD node order) then NVIDIA (CUDA ordinal order). */
enum hanzo_rocm_platform {
	HANZO_ROCM_PLATFORM_AMD = 1,
	HANZO_ROCM_PLATFORM_NVIDIA = 2,
	HANZO_ROCM_PLATFORM_HOST = 3,   /* the CPU, opt-in: see options.host */
};
int hanzo_rocm_device_count(struct hanzo_rocm *ctx);
/* Effective target after overrides, e.g. "gfx90a" or "sm_90"; owned by ctx. */
int hanzo_rocm_device_target(struct hanzo_rocm *ctx, unsigned device,
                             const char **target);
int hanzo_rocm_device_platform(struct hanzo_rocm *ctx, unsigned device);

/*
 * The code object (raw AMDGPU ELF or cubin) of a family for a target, from
 * the first cache tier that has a valid one, compiling it on a miss when the
 * configuration allows.  The bytes are owned by ctx and stay valid until it
 * is freed.
 */
int hanzo_rocm_code_object(struct hanzo_rocm *ctx, const char *family,
                           const char *target, const void **data,
                           size_t *size);

/*
 * A loaded kernel function on a device.  The handle is owned by ctx and
 * cached: a second call with the same arguments is a hash lookup.
 */
int hanzo_rocm_kernel_get(struct hanzo_rocm *ctx, unsigned device,
                          const char *family, const char *kernel,
                          struct hanzo_rocm_kernel **ret);

/*
 * Launch: args is an array of pointers to each argument's value, as for
 * hipModuleLaunchKernel/cuLaunchKernel; stream is a hipStream_t/CUstream
 * (NULL = the default stream).  A host device refuses with -E2BIG a grid a
 * GPU would refuse (grid x <= 2^31 - 1 and grid x * block x <= 2^32 - 1,
 * grid y and z <= 65535).  A stream of another device than the kernel's is
 * -EXDEV, nothing launched (CUDA: cuStreamGetCtx; HIP: hipStreamGetDevice
 * where the runtime has it).
 */
int hanzo_rocm_kernel_launch(struct hanzo_rocm_kernel *kernel,
                             const unsigned grid[3], const unsigned block[3],
                             unsigned shared_mem_bytes, void *stream,
                             void **args);

/*
 * Launch by amount of work: the library derives grid, block and dynamic
 * shared memory from the kernel's launch metadata (the `#@launch` lines of
 * its family's list, carried by the plugin) and from the device
 * (multiprocessors, wave size, shared memory, the driver's occupancy), once
 * per (kernel, device); a launch after the first is a few integer operations
 * on top of hanzo_rocm_kernel_launch.
 *
 * Work is rows x cols.  Element-wise kernels (one grid-stride loop over n
 * items) take rows = n, cols = 1; row-wise kernels (reductions, norms,
 * sorts, mat-vec) take the number of rows and the row length.  Zero work
 * launches nothing and returns 0.  Errors: -EINVAL (NULL kernel),
 * -ENODATA (the plugin carries no launch metadata for the kernel: use
 * hanzo_rocm_kernel_launch), -EBADMSG (the plugin's metadata is malformed),
 * -E2BIG (the work does not fit one launch of this kernel on this device,
 * e.g. a row longer than shared memory, or more rows than the platform's
 * grid holds for a one-block-per-row kernel: use the family's wide/split
 * form; grid-stride kernels get a grid within the limits instead),
 * -EOVERFLOW (rows x cols overflows 64 bits), and the launch's own errors.
 */
int hanzo_rocm_kernel_launch_work(struct hanzo_rocm_kernel *kernel,
                                  uint64_t rows, uint64_t cols, void *stream,
                                  void **args);

/*
 * What hanzo_rocm_kernel_launch_work would launch for that work (the same
 * errors; -EINVAL for a NULL geometry; on any error *geometry is left
 * untouched).  Callers of kernels that take their
 * block size as an argument (norm's block_size) or size a scratch by the
 * number of splits (reduce's split form) read it here first.
 */
struct hanzo_rocm_geometry {
	unsigned grid[3];       /* all zero for zero work: nothing to launch */
	unsigned block[3];
	unsigned shared;        /* dynamic shared memory bytes per block */
	unsigned splits;        /* rows-split kernels: partials per row (grid[1]); else 1 */
};
int hanzo_rocm_kernel_geometry(struct hanzo_rocm_kernel *kernel, uint64_t rows,
                               uint64_t cols, struct hanzo_rocm_geometry *geometry);

/*
 * The geometry with the workspace: what hanzo_rocm_kernel_geometry says,
 * the bytes of workspace the kernel's own launch needs for that work (its
 * family's "#@ws" rule: a split pass rows x splits x bytes per partial, a
 * wide form rows x padded cols x bytes per column; attention's decode with
 * one split none; 0: the kernel takes no workspace), and what
 * hanzo_rocm_op_run would do with it: its form ("single", "one-pass",
 * "split", "shared", "wide"; a kernel with a pre-pass the names its
 * family's #@pre line gives, the quantized mat-vec's "q8_1" or, for one
 * column of y, "f32"; a string that lives as long as the context), its
 * number of launches and
 * the workspace it needs (hanzo_rocm_op_workspace's bytes).  Set .size to
 * sizeof(struct hanzo_rocm_geometry_ex): the library fills only what size
 * covers (the struct may grow).  Where the kernel's own launch cannot take
 * the work (hanzo_rocm_kernel_geometry's -E2BIG: an argsort row longer than
 * shared memory) but hanzo_rocm_op_run can through another form ("wide",
 * "split"), it answers as op_run: 0, op_* as above, and geometry and
 * workspace those of the launch op_run makes (the wide kernel's, the split
 * pass's).  Errors as hanzo_rocm_kernel_geometry and hanzo_rocm_op_workspace
 * otherwise; -EINVAL for a NULL or too small struct.
 */
struct hanzo_rocm_geometry_ex {
	size_t size;
	struct hanzo_rocm_geometry geometry;
	size_t workspace;       /* this kernel's own launch */
	size_t op_workspace;    /* hanzo_rocm_op_run's */
	const char *op_form;
	unsigned op_passes;
};
int hanzo_rocm_kernel_geometry_ex(struct hanzo_rocm_kernel *kernel, uint64_t rows,
                                  uint64_t cols, struct hanzo_rocm_geometry_ex *geometry);

/*
 * The kernels' tensor layout, passed by value (no device copy of shapes):
 * v[0..8) dims, then the strides (in elements, 0 = broadcast) of operand 0
 * at v[8..16), operand 1 at v[16..24), operand 2 at v[24..32).  A kernel's
 * num_dims argument of 0 means every operand is contiguous; kernels given
 * num_dims > HANZO_ROCM_MAX_DIMS write nothing.  Element offsets (storage
 * offsets) are applied to the pointers by the caller.
 */
#define HANZO_ROCM_MAX_DIMS 8
#define HANZO_ROCM_MAX_OPERANDS 3
struct hanzo_rocm_layout {
	uint64_t v[(1 + HANZO_ROCM_MAX_OPERANDS) * HANZO_ROCM_MAX_DIMS];
};

/*
 * Fill a layout from num_dims dims and, for each of n_operands operands
 * (1..3), its strides (strides[i] == NULL: contiguous row-major).  Unused
 * entries are zeroed.  -EINVAL: NULL layout, num_dims > 8, n_operands out
 * of range, or NULL dims with num_dims > 0.
 */
int hanzo_rocm_layout_init(struct hanzo_rocm_layout *layout, size_t num_dims,
                           const size_t *dims, size_t n_operands,
                           const size_t *const *strides);
/*
 * From candle's packed dims_and_strides array: num_dims dims followed by
 * num_dims strides of each of n_operands operands (unary and affine 1,
 * binary 2, where 3), so a candle port passes the same array.  Errors as
 * hanzo_rocm_layout_init.
 */
int hanzo_rocm_layout_from_candle(struct hanzo_rocm_layout *layout,
                                  size_t num_dims, size_t n_operands,
                                  const size_t *dims_and_strides);
/* Back to candle's packed array ((1 + n_operands) * num_dims entries). */
int hanzo_rocm_layout_to_candle(const struct hanzo_rocm_layout *layout,
                                size_t num_dims, size_t n_operands,
                                size_t *dims_and_strides);
/*
 * The conv family's info (conv1d/2d, conv_transpose1d/2d, im2col, im2col1d,
 * the pools, the upsamplings - not the element-wise layout above): candle's
 * packed array, for each of n_tensors tensors (1: the source; 2 for the
 * convolutions: the source, then the kernel weights) its num_dims dims then
 * its num_dims strides in elements (strides NULL, or strides[t] NULL:
 * contiguous row-major), into layout->v in that order, the rest zeroed.
 * -EINVAL: NULL layout or dims, num_dims 0, or more than 32 values.
 * Since HANZO_ROCM_4.
 */
int hanzo_rocm_layout_packed(struct hanzo_rocm_layout *layout, size_t num_dims,
                             size_t n_tensors, const size_t *const *dims,
                             const size_t *const *strides);


/*
 * Element types named in the kernels' signatures (the catalogue,
 * hanzo-rocm-kernels(7)): f32 float, f64 double, u8 uint8_t, u32 uint32_t,
 * i64 int64_t, and the 16-bit floats below, stored as their bits (IEEE
 * binary16; bfloat16 = the high half of a float).  `hr_layout` is struct
 * hanzo_rocm_layout passed by value.
 */
typedef uint16_t hanzo_rocm_f16;        /* "hr_f16" in a signature */
typedef uint16_t hanzo_rocm_bf16;       /* "hr_bf16" in a signature */

/*
 * The catalogue: every kernel of every installed family (third-party
 * families included), read from the plugins' own metadata - the lines of
 * their lists - never from a table of the library.  `hanzo-rocm kernels`
 * prints it; hanzo-rocm-kernels(7) is the same text for this release's
 * families.  family NULL: every family.  -ENOENT: unknown or disabled
 * family.  The strings are owned by the catalogue.
 */
struct hanzo_rocm_catalogue;
/*
 * The kernel ABI of this release's catalogue (hanzo_rocm_kernel_desc.abi,
 * `kernels --json`).  2: hanzo_rocm_op_run on asort_{asc,desc}_T
 * (1- to 4-byte types) runs rows wider than shared memory with the
 * multi-block asort_{asc,desc}_multi_T - workspace 16 bytes a padded column,
 * was 12 - and asort_{asc,desc}_wide_T, unchanged, are kernels of one form.
 */
#define HANZO_ROCM_KERNEL_ABI 2
int hanzo_rocm_catalogue_new(struct hanzo_rocm *ctx, const char *family,
                             struct hanzo_rocm_catalogue **ret);
struct hanzo_rocm_catalogue *hanzo_rocm_catalogue_ref(struct hanzo_rocm_catalogue *cat);
/* Drops a reference; returns NULL when the catalogue was freed. */
struct hanzo_rocm_catalogue *hanzo_rocm_catalogue_unref(struct hanzo_rocm_catalogue *cat);
size_t hanzo_rocm_catalogue_count(const struct hanzo_rocm_catalogue *cat);
/*
 * One kernel.  Set .size to sizeof(struct hanzo_rocm_kernel_desc): the
 * library fills only the fields that size covers, so the struct may grow.
 * -ERANGE: index out of range; -EINVAL: NULL or a size too small.
 */
struct hanzo_rocm_kernel_desc {
	size_t size;
	const char *family;
	const char *name;
	const char *signature;  /* the argument list, as in the source */
	size_t n_args;          /* hanzo_rocm_catalogue_arg */
	const char *launch;     /* launch kind: "elementwise", "elementwise2d",
	                         * "rows", "rows-split"; NULL: raw launch only */
	const char *rows;       /* what rows and cols of hanzo_rocm_kernel_launch_work */
	const char *cols;       /*   mean for this kernel */
	/*
	 * "single" (one form), "one-pass" (it has a split form too:
	 * hanzo_rocm_op_run picks), "split" or "second" (the passes of the
	 * split form of the kernel named in op), "shared" (it has a wide form
	 * for rows its shared memory cannot hold: hanzo_rocm_op_run picks) or
	 * "wide" (that form of the kernel named in op).
	 */
	const char *form;
	const char *op;         /* the kernel hanzo_rocm_op_run takes; NULL: none */
	const char *split;      /* one-pass: the split form's passes; else NULL */
	const char *second;
	size_t ws_per_partial;  /* split: workspace bytes per partial (rows x splits) */
	const char *notes;      /* advisory or ignored arguments etc.; NULL: none */
	const char *wide;       /* shared: its wide form; else NULL */
	size_t ws_per_col;      /* wide, and a single kernel with a workspace of its own:
	                         * workspace bytes per (padded) column of each row */
	/* Since 1.3: the kernel ABI its contract belongs to (HANZO_ROCM_KERNEL_ABI):
	 * a kernel's name, argument list, meaning and workspace rule never change
	 * within one ABI version (kernels/abi/ holds them; `make check` holds them). */
	unsigned abi;
};
int hanzo_rocm_catalogue_kernel(const struct hanzo_rocm_catalogue *cat, size_t index,
                                struct hanzo_rocm_kernel_desc *desc);
/* One argument of a kernel (.size as above); -ERANGE: out of range. */
struct hanzo_rocm_arg_desc {
	size_t size;
	const char *type;       /* e.g. "const float *", "int", "hr_layout" */
	const char *name;
	size_t bytes;           /* its size as a launch argument; 0: unknown type */
	/* Since 1.3: what it means (shape, layout, strides, units, conventions:
	 * the family's #@arg lines); NULL: not documented. */
	const char *doc;
	int may_be_null;        /* a pointer the kernel accepts as NULL (#@null) */
	/* Since 1.3: what hanzo_rocm_op_run gives it when the caller does not
	 * name it (the family's #@bind: "src", "dst", "ws", "cols", "rows",
	 * "rows*cols", "pow2(cols)", "block", "splits", "eps", ...); NULL: it
	 * must be named. */
	const char *bind;
};
int hanzo_rocm_catalogue_arg(const struct hanzo_rocm_catalogue *cat, size_t index,
                             size_t arg, struct hanzo_rocm_arg_desc *desc);

/*
 * Operations: a kernel run end to end, its form chosen by the library.
 * Where a kernel has a split (two-pass) form as well - the norms softmax,
 * rmsnorm, layernorm, add_rmsnorm and the reductions fast_{sum,min,max,
 * argmin,argmax} (form "one-pass" in the catalogue) - the library picks
 * the split form when the rows are too few to fill the device and long
 * (the split kernel's geometry has at least 4 splits: below that the
 * one-pass kernel was as fast on the GPU), else the one-pass kernel, and
 * runs every pass.  Attention's decode paged_attention_dD_T is its own
 * split pass (split-K): when its geometry splits the keys (few rows, long
 * context: rows = num_seqs x num_heads, cols = the longest context) the
 * call runs paged_attention_combine_T after it on a workspace of rows x
 * splits x (D + 1) x 4 bytes.  A kernel whose family declares a
 * pre-pass for it (a #@pre catalogue line) runs as the pre-pass then the
 * main pass for each batch of .batch columns of .src, on the workspace the
 * line sizes: the quantized mat-vec dequantize_mul_mat_vec_Q (rows = the
 * weight's rows, cols its columns, a multiple of its block: 32, 256 for
 * the K formats) as quantize_q8_1 of y then mul_mat_vec_Q_q8_1_cudaB (B =
 * 1..8 a launch; .src: batch x cols floats, .dst: batch x rows floats, the
 * weights the named pointer vx) on a workspace of 8 x cols / 32 x 36
 * bytes.  Where it has a wide form (the sorts, form
 * "shared"), rows that do not fit shared memory run the wide form: for 1-
 * to 4-byte keys asort_{asc,desc}_multi_T, a row spread over the blocks of
 * grid y (the rows-split geometry: several blocks a row when the rows are
 * too few to fill the device) in 2 launches a 4-bit radix digit (4 for u8,
 * 8 for f16/bf16, 16 for f32/u32: its family's #@passes line, argument pass
 * 0, 1, ...) on a workspace of rows x ncols_pad x 16 bytes; for f64 and i64
 * asort_{asc,desc}_wide_T, one block a row, on rows x ncols_pad x 12 bytes.
 * Work is rows x cols: rows of cols
 * contiguous elements (norms: ncols = cols; reductions: el_to_sum_per_block
 * = cols, src_numel = rows x cols).  Kernels of one form run too.
 *
 * The arguments are bound by name from the kernel's signature.  What the
 * call derives for an argument the caller does not name is its family's
 * "#@bind" catalogue lines (hanzo-rocm-kernels(7), `hanzo-rocm kernels`):
 * src, dst, alpha, beta, residual, residual_out and eps their fields; cols,
 * rows, rows*cols, pow2(cols) (the smallest power of two >= cols) the work;
 * zero 0 (a layout: contiguous); block the block the library launches; ws
 * and splits the workspace and the split pass's splits; partial_floats-1 a
 * second pass's size from the split pass's partials (the decode's combine
 * head_dim).  Any other argument takes the value of the same name in
 * .named; a named value also overrides a derived one, except ws and splits
 * (the call's own) and a size derived from the work, which must agree
 * (-EINVAL).  A named value's bytes must equal the argument's size, and
 * when its name is "TYPE NAME" (HANZO_ROCM_OP_ARG writes it from the C
 * type) its type must be the argument's - int vs float, width and
 * signedness (const aside; "void *" fits any pointer) - else -EINVAL; a
 * bare NAME is checked by size only (another type of that size is passed
 * as the argument's bytes, unconverted: name scalars with their type).  A
 * NULL pointer, named or derived, is -EINVAL unless the family's "#@null"
 * lines allow it (norms: alpha, beta; attention: lse, alibi_slopes; the
 * workspace where none is needed; such a pointer not named is NULL).  Where a kernel's "#@check rows=A*B"
 * says so (the decode: num_seqs x num_heads), rows must be that product
 * (-EINVAL).  A kernel with a pre-pass (the quantized mat-vec) binds the
 * named values to its own signature in either form, so they are checked
 * there too; otherwise named values no pass takes are ignored.  An
 * argument that has no value is -EINVAL; a size over an int argument's range is -E2BIG,
 * from hanzo_rocm_op_workspace and hanzo_rocm_kernel_geometry_ex as well.
 * Every refusal is logged naming the kernel and the argument, before
 * anything is launched.
 */
struct hanzo_rocm_op_arg {
	const char *name;       /* as in the kernel's signature, or "TYPE NAME" (checked) */
	const void *value;      /* the value (for a pointer argument: the pointer's address) */
	size_t bytes;           /* sizeof the value: must equal the argument's size */
};
struct hanzo_rocm_op_args {
	size_t size;            /* sizeof(struct hanzo_rocm_op_args) */
	const void *src;
	void *dst;
	const void *alpha;
	const void *beta;
	const void *residual;
	void *residual_out;
	float eps;
	void *workspace;        /* device memory of workspace_size bytes */
	size_t workspace_size;
	void *stream;           /* hipStream_t / CUstream; NULL: default */
	/* Since HANZO_ROCM_4: values by name for the arguments the call cannot
	 * derive (attention's q, caches, tables, scale, ...), checked against the
	 * signature's types; NULL / 0: none. */
	const struct hanzo_rocm_op_arg *named;
	size_t n_named;
	size_t batch;           /* quantized mat-vec: columns of y; 0: 1 */
};

/*
 * A typed named value from a C variable: { "float eps", &eps, sizeof eps },
 * its type spelled from var's C type (pointers and other types: the bare
 * name, checked by size).  name must be a string literal.
 */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define HANZO_ROCM_OP_ARG(name, var) \
	{ _Generic((var), \
	           float: "float " name, double: "double " name, \
	           int: "int " name, unsigned: "unsigned " name, \
	           long: "long " name, unsigned long: "unsigned long " name, \
	           long long: "long long " name, unsigned long long: "unsigned long long " name, \
	           default: (name)), &(var), sizeof(var) }
#endif

/*
 * Workspace bytes kernel needs for rows x cols on its device (0: none,
 * workspace may be NULL); the same number hanzo_rocm_op_run checks.
 */
int hanzo_rocm_op_workspace(struct hanzo_rocm_kernel *kernel, uint64_t rows,
                            uint64_t cols, size_t *bytes);
/*
 * Run kernel over rows x cols.  A workspace smaller than
 * hanzo_rocm_op_workspace says is -ENOSPC before anything is launched.
 * Zero work launches nothing.  Other errors as hanzo_rocm_kernel_launch_work.
 */
int hanzo_rocm_op_run(struct hanzo_rocm_kernel *kernel, uint64_t rows, uint64_t cols,
                      const struct hanzo_rocm_op_args *args);

/*
 * Source text: a caller's own HIP kernels, compiled for a device's target
 * and cached under the same rules as the families (key, tiers, validation,
 * one compile per key across threads and processes; user tier, or the
 * system and site tiers where an admin ran `hanzo-rocm precompile --source
 * FILE --name NAME`).  name (the one name grammar,
 * libhanzo-rocm(3) Names: [A-Za-z0-9_+:-], at most 40 characters here) names the entry; source is self-contained HIP
 * (it may include <hip/hip_runtime.h>; on host targets the library
 * supplies that header); flags are extra compiler flags, NULL-terminated
 * (NULL: none; on host targets only -D and -U apply), by an allow-list:
 * -D, -U, -O, -g, -std=, -w, -W and -f/-m options that name no file
 * (never -o, -MF/-MD/-MT, -save-temps, @file, -I or -Wl,...: -EINVAL).  Kernels are looked
 * up by their symbol name: declare them extern "C" __global__.  "#@launch
 * PATTERN KIND ..." lines in the source (as in a family's list, each on a
 * line of its own, e.g. inside a comment) give its kernels launch
 * metadata for hanzo_rocm_kernel_launch_work.
 *
 * A compile error is -HANZO_ROCM_ECOMPILE; when diagnostics is non-NULL,
 * *diagnostics is then the compiler's messages (malloc'd: free() it), and
 * NULL on success or any other error.
 */
#define HANZO_ROCM_ECOMPILE EILSEQ      /* the compiler rejected the source */

/*
 * Caller source compiled and loaded on one device, owned and cached by ctx:
 * the same (device, name, source, flags) again is a hash lookup.  Freed
 * with ctx.
 */
struct hanzo_rocm_module;
int hanzo_rocm_module_get(struct hanzo_rocm *ctx, unsigned device, const char *name,
                          const char *source, size_t source_len,
                          const char *const *flags, struct hanzo_rocm_module **ret,
                          char **diagnostics);
/*
 * A kernel of a module: a handle for hanzo_rocm_kernel_launch (and, with
 * launch metadata, hanzo_rocm_kernel_launch_work/_geometry), owned by the
 * module's context.  -ENOENT: no such kernel in the module.
 */
int hanzo_rocm_module_kernel(struct hanzo_rocm_module *module, const char *kernel,
                             struct hanzo_rocm_kernel **ret);
/*
 * The code object (raw AMDGPU ELF, cubin, or host shared object) of source
 * for target, for applications that load modules themselves: from the
 * first cache tier holding a valid one, else compiled and cached.  *data is
 * malloc'd (free() it).
 */
int hanzo_rocm_source_code_object(struct hanzo_rocm *ctx, const char *target,
                                  const char *name, const char *source,
                                  size_t source_len, const char *const *flags,
                                  void **data, size_t *size, char **diagnostics);

/*
 * The cache statistics of ctx, one counter at a time: index 0, 1, ... puts
 * its name into name (name_size >= HANZO_ROCM_STAT_NAME_MAX) and its value
 * into *value; -ENOENT past the last one, -EINVAL for NULL arguments.
 * Names are "TIER.COUNTER" -- TIER memory, system, site, package or user,
 * COUNTER lookups (on-disk tiers: each entry file read), hits, absent,
 * bad (corrupt, wrong target, untrusted), bytes (code-object bytes of the
 * hits), ns (time spent) -- then compile.count, compile.failures,
 * compile.ns, then the remote tier's: remote.lookups, remote.hits,
 * remote.bytes, remote.ns, remote.pushes, remote.leases, remote.waits,
 * remote.wait_hits, remote.wait_ns, remote.compiles and
 * remote.miss.REASON (not_found, bad_signature, untrusted_key, timeout,
 * ...).  Later versions may add counters at the end.  The counters are
 * the context's, since hanzo_rocm_new; reading them takes no lock on the
 * lookup path.  Since HANZO_ROCM_5.
 */
#define HANZO_ROCM_STAT_NAME_MAX 64
int hanzo_rocm_cache_stat(struct hanzo_rocm *ctx, unsigned index, char *name,
                          size_t name_size, uint64_t *value);

#ifdef __cplusplus
}
#endif
#endif
