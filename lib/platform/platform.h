/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The platform table (layer: shared), pure: one row per platform (AMD,
 * NVIDIA, host), each defined in its own file (platform/amd.c,
 * platform/nvidia.c, platform/host.c) and collected once in
 * platform/platform.c; every other file loops over the table or looks a
 * target's row up through hr_platform_of() (doc/DESIGN.md §7).
 */
#ifndef HR_UTIL_PLATFORM_H
#define HR_UTIL_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Numbered as the public HANZO_ROCM_PLATFORM_* (hanzo-rocm.h). */
enum hr_platform {
	HR_PLATFORM_NONE = 0, HR_PLATFORM_AMD = 1, HR_PLATFORM_NVIDIA = 2,
	HR_PLATFORM_HOST = 3,   /* host-w64, host-w32: lib/backend/host/host.h */
};

/* The kind of compiler that builds a platform's code objects (toolchain/toolchain.h). */
enum hr_compiler { HR_COMPILER_HIPCC, HR_COMPILER_NVCC, HR_COMPILER_CXX /* host backend */ };

/*
 * A platform's launch limits: blocks per grid dimension, and threads per
 * grid dimension (grid[i] x block[i]).  CUDA: grid x <= 2^31 - 1, y and z
 * <= 65535.  HIP on AMD: the same block counts, and grid x x block x <=
 * 2^32 - 1 (HSA's grid size is a 32-bit count of work-items).  The host
 * backend takes both rows' limits at once, whatever wave size it emulates:
 * a geometry the host accepts is one every GPU accepts, so a result proven
 * on the host holds on the GPU.  HR_PLATFORM_NONE gets the host row.
 */
struct hr_grid_limits {
	uint32_t blocks[3];             /* grid x, y, z */
	uint64_t threads;               /* grid[i] x block[i], every i */
};

/*
 * What shared/elf.c read from a code object's header (bounds already
 * checked) and hands to its platform's row: the row decodes e_flags.
 */
struct hr_elf_ident {
	unsigned machine, type;         /* e_machine, e_type */
	uint32_t flags;                 /* e_flags */
	uint8_t osabi, abiversion;      /* EI_OSABI, EI_ABIVERSION */
};

/*
 * The compiler that builds a platform's code objects: its name and where
 * it is found, the files and arguments of one compile (build-toolchain-
 * compile.c: PROGRAM PRE ARCH-OPTION+TARGET plugin-flags config-flags POST -x LANGUAGE
 * SOURCE -o OUTPUT, or PROGRAM fixed-flags -x LANGUAGE SOURCE -o OUTPUT when
 * the platform's compile_flags fix them), and what its output is called.
 */
struct hr_compiler_facts {
	enum hr_compiler kind;
	const char *name;               /* "hipcc", "nvcc", "cxx": stamps, messages */
	const char *program;            /* run when [compiler] names none */
	const char *const *search_dirs; /* looked in after PATH (NULL-terminated) */
	const char *source_file, *output_file;  /* in the compile's temp dir */
	const char *language;           /* -x LANGUAGE */
	const char *const *pre;         /* after the program (NULL-terminated) */
	const char *arch_option;        /* the target ID follows it: one argument */
	const char *const *post;        /* after the flags, before -x (NULL-terminated) */
	const char *object_label;       /* "AMDGPU", "CUDA", "host": messages */
};

/*
 * The in-process compiler of caller source (hipRTC, NVRTC; source/hiprtc.c):
 * the libraries it is dlopen-ed from, in order, the prefix of its functions
 * (PREFIXCreateProgram, ...), the names of the two that return the code, its
 * target option, options it always gets, whether it takes -O flags, and the
 * text before the source (beside the common one of source/hiprtc.c).
 */
struct hr_rtc_facts {
	const char *const *libs;
	const char *prefix;
	const char *code_size_fn, *code_fn;
	const char *arch_option;        /* the target ID follows it */
	const char *const *options;     /* NULL-terminated */
	bool takes_opt_level;           /* false: the configuration's -O... are dropped */
	const char *preamble;
};

/* One row of the platform table: the platform's pure facts. */
struct hr_platform_facts {
	enum hr_platform id;
	const char *name;               /* "amd", "nvidia", "host": info, JSON */
	const char *label;              /* "AMD", "NVIDIA", "host": messages */
	const char *example;            /* a target ID, for messages */
	/* Every target ID of the platform begins with it ("gfx", "sm_",
	 * "host-"): the lookup compares it before asking the grammar, so a
	 * lookup calls into its own platform's file only. */
	const char *prefix;
	/* The target-ID grammar: t is one of this platform's IDs (t is a safe
	 * name shorter than HR_TARGET_MAX; target.c checks that first). */
	bool (*target_ok)(const char *t);
	/* A valid ID of this platform names a processor the library knows. */
	bool (*target_known)(const char *t);
	/* The wave size of a target when the device does not report it. */
	unsigned (*wave)(const char *t);
	/* Fixed compiler arguments every code object of t is built with and
	 * keyed by, in place of the plugin's and the configuration's
	 * (NULL-terminated, static); NULL: none, those flags apply. */
	const char *const *(*compile_flags)(const char *t);
	/* What builds its code objects (cc->kind: enum hr_compiler). */
	const struct hr_compiler_facts *cc;
	const char *compiler_need;      /* after the target: why another compiler cannot */
	const char *compiler_label;     /* "hipcc", "nvcc", "C++ ([compiler] cxx)" */
	const char *rtc_label;          /* the in-process compiler, NULL: none */
	const struct hr_rtc_facts *rtc; /* its facts (with rtc_label) */
	const char *rtc_need;           /* it and the libraries it is loaded from */
	/* Caller source (source/source.c): its compilers know <hip/hip_runtime.h>
	 * (else the include is dropped); the source follows the host prelude
	 * (kernels/source-prelude.c) and the caller's -D flags as #defines. */
	bool hip_runtime, source_prelude;
	unsigned elf_machine;           /* e_machine of its code objects; 0: none here */
	/* e_type they must have; ET_DYN (3): a shared object for dlopen,
	 * checked as one (shared/elf.c); 0: any. */
	unsigned elf_type;
	/* The processor e_flags names ("gfx90a", "sm_90", "host") into buf:
	 * 0, -ENOEXEC (none known), -ENOSPC. */
	int (*elf_processor)(const struct hr_elf_ident *e, char *buf, size_t n);
	/* 0 when e_flags serve target (one of this platform's IDs); else
	 * -ENOEXEC with a one-line reason in why. */
	int (*elf_check)(const struct hr_elf_ident *e, const char *target, char *why, size_t n);
	unsigned max_shared;            /* shared memory per block when unknown */
	/* HANZO_ROCM_ARCH, [targets] override and map, HSA_OVERRIDE_GFX_VERSION
	 * apply to its devices. */
	bool overridable;
	/* Its devices exist only when asked for (the host: [targets] host),
	 * never as a fallback; `info` lists its compiler only then. */
	bool opt_in;
	struct hr_grid_limits grid;
};

extern const struct hr_platform_facts hr_platform_amd, hr_platform_nvidia,
	hr_platform_host;

/* The i-th row, NULL past the last (the loop every platform list uses). */
const struct hr_platform_facts *hr_platform_at(size_t i);
/* The row of a platform, NULL for HR_PLATFORM_NONE and unknown values. */
const struct hr_platform_facts *hr_platform_facts(int p);
/* The row whose grammar accepts target t (only the grammar: target.c
 * validates the rest), NULL when none does.  The one lookup of target facts. */
const struct hr_platform_facts *hr_platform_of(const char *t);
/* The fixed flags of target t's row (compile_flags), NULL when none. */
const char *const *hr_platform_compile_flags(const char *t);
/* e_machine of this CPU (the host row's; shared objects for dlopen), 0: unknown. */
unsigned hr_platform_cpu_machine(void);
/* The compiler row of a kind (the row of the platform it builds for). */
const struct hr_compiler_facts *hr_compiler_facts(enum hr_compiler kind);
/* The row of an ELF e_machine, NULL when no platform's code objects have it. */
const struct hr_platform_facts *hr_platform_by_elf_machine(unsigned machine);

/* The platform's grid limits; the host row for NONE and unknown values. */
const struct hr_grid_limits *hr_platform_grid_limits(int p);
/* 0 when grid x block fits lim; else -E2BIG, why saying which dimension. */
int hr_grid_check(const struct hr_grid_limits *lim, const unsigned grid[3],
                  const unsigned block[3], char *why, size_t why_size);

#endif
