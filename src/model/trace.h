/* trace.h - the in-memory trace every loader fills and every analyzer reads.
 *
 * Events are stored compactly by kind, in typed arrays, with names interned
 * in one string table. All times are int64 nanoseconds on the trace's own
 * clock (Kineto: microseconds since the epoch, parsed exactly; so ts values
 * are large and must never go through a double). Durations are >= 0.
 *
 * Ownership: pc_trace_new returns a trace that pc_trace_free releases with
 * everything in it. Loaders append with the pc_trace_add_* helpers; after
 * loading, pc_trace_finish sorts every array by start time so analyzers can
 * sweep. Nothing here prints or exits.
 */
#ifndef PC_TRACE_H
#define PC_TRACE_H
#include <stdint.h>
#include <stddef.h>
#include "../util/strtab.h"

#define PC_NONE (-1) /* an absent integer field (ids, device, stream) */
#define PC_STACK_MARK '\x01' /* first byte of a call stack kept in pc_cpu_event.concrete */

/* Host-side ranges: operators, annotations, API calls. */
enum pc_cpu_kind {
    CPU_OP = 0,          /* cpu_op / Operator */
    CPU_USER_ANNOT,      /* user_annotation (ProfilerStep#N, record_function) */
    CPU_PYFUNC,          /* python_function (nn.Module frames) */
    CPU_RUNTIME,         /* cuda_runtime / Runtime */
    CPU_DRIVER,          /* cuda_driver */
    CPU_DATALOADER,      /* 2021 `DataLoader` category */
    CPU_KIND_COUNT
};

typedef struct pc_cpu_event {  /* 64 bytes */
    int64_t ts, dur;
    int64_t ext_id;       /* External id, or PC_NONE */
    int64_t corr;         /* correlation (runtime/driver), or PC_NONE */
    int32_t pid, tid;     /* numeric; non-numeric thread names map to negative string ids */
    int32_t seq;          /* autograd Sequence number, or PC_NONE */
    uint32_t name;        /* strtab id */
    uint32_t input_dims;  /* strtab id of compact JSON text of "Input Dims", 0 if none */
    uint32_t input_types; /* strtab id of compact JSON text of "Input type", then, when some
                           * input is expanded (a 0 in "Input Strides"), a newline and the
                           * compact "Input Strides"; 0 if none */
    uint32_t concrete;    /* strtab id of compact JSON text of "Concrete Inputs"; in traces without
                           * them, of PC_STACK_MARK and the op's "Call stack" (2021 schema with
                           * with_stack=True: frames innermost first, ';'-separated); 0 if neither */
    int16_t fwd_tid;      /* "Fwd thread id" (set on backward ops), PC_NONE if absent */
    uint8_t kind;         /* enum pc_cpu_kind */
    uint8_t flags;        /* PC_CPU_NVTX: an NVTX range (Nsight Systems, nvprof), kept as an operator */
} pc_cpu_event;
#define PC_CPU_NVTX 1u

/* Device-side activity: kernels, memcpy, memset, GPU copies of annotations. */
enum pc_gpu_kind { GPU_KERNEL = 0, GPU_MEMCPY, GPU_MEMSET, GPU_ANNOT, GPU_SYNC, GPU_KIND_COUNT };

/* memcpy direction and memory kinds, as Kineto and nvprof name them in a copy's name
 * ("Memcpy HtoD (Pageable -> Device)"): one enum and one table of names each; readers
 * parse names with pc_kind_find and writers print pc_copy_name / pc_mem_name */
enum pc_copy_kind { COPY_UNKNOWN = 0, COPY_HTOD, COPY_DTOH, COPY_DTOD, COPY_HTOH, COPY_PTOP, COPY_N };
enum pc_mem_attr { MEM_UNKNOWN = 0, MEM_PAGEABLE, MEM_PINNED, MEM_DEVICE, MEM_MANAGED, MEM_N };
extern const char *const pc_copy_name[COPY_N]; /* "Unknown", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP" */
extern const char *const pc_mem_name[MEM_N];   /* "Unknown", "Pageable", "Pinned", "Device", "Managed" */
/* The index of the name in names[0..n) that s[0..len) starts with (0, unknown, when none). */
int pc_kind_find(const char *const *names, int n, const char *s, size_t len);

typedef struct pc_gpu_event {  /* 88 bytes */
    int64_t ts, dur;
    int64_t corr;        /* correlation id, PC_NONE if absent */
    int64_t ext_id;      /* External id, PC_NONE if absent */
    int64_t bytes;       /* memcpy/memset bytes, PC_NONE if absent */
    uint32_t name;
    int32_t device;      /* PC_NONE if unknown */
    int32_t stream;      /* PC_NONE if unknown */
    uint32_t grid[3];    /* 0 when absent */
    uint16_t block[3];   /* 0 when absent (at most 1024 threads a block) */
    int16_t regs;        /* registers per thread, PC_NONE if absent */
    int32_t smem;        /* shared memory bytes (static+dynamic), PC_NONE if absent */
    float blocks_per_sm; /* < 0 when absent */
    float occupancy;     /* "est. achieved occupancy %", < 0 when absent */
    uint8_t kind;        /* enum pc_gpu_kind */
    uint8_t copy_kind;   /* enum pc_copy_kind */
    uint8_t src_mem, dst_mem; /* enum pc_mem_attr */
} pc_gpu_event;

/* `[memory]` instant events (profile_memory=True). */
typedef struct pc_mem_event {
    int64_t ts;
    int64_t bytes;           /* + allocation, - free */
    int64_t total_allocated; /* PC_NONE if absent */
    int64_t total_reserved;  /* PC_NONE if absent */
    int64_t addr;            /* the block's address ("Addr"), PC_NONE if absent */
    int64_t tid;
    int32_t device_type;     /* 0 CPU, 1 CUDA (c10::DeviceType) */
    int32_t device_id;
} pc_mem_event;

/* Counter samples ("ph":"C"): one row per (event, series) value. */
typedef struct pc_counter {
    int64_t ts;
    double value;
    uint32_t name;   /* event name, e.g. "cpu" or "queue:train" */
    uint32_t series; /* args key, e.g. "user" */
    int64_t pid;
} pc_counter;

/* Phases given by the input itself (MindSpore's step trace), per step number. */
typedef struct pc_phase { int64_t number, interval, fp_bp, tail; } pc_phase;

/* A data-pipeline operator (MindSpore's minddata pipeline). */
typedef struct pc_pipe_op {
    int id, parent, workers;
    uint32_t type, children;   /* strtab ids: operator type, children list text */
    double avg_size, capacity, usage_rate;
} pc_pipe_op;

/* Pre-aggregated rows some inputs carry instead of events (MindSpore's
 * gpu_op_detail_info, gpu_activity_data, gpu_op_type_info). Times in ns. */
enum { AGG_OP = 0, AGG_KERNEL, AGG_TYPE };
typedef struct pc_agg {
    uint8_t what;          /* AGG_* */
    uint32_t name, op;     /* kernels: the operator (op_full_name) */
    int64_t calls, total, min, max;
    uint32_t grid, block;  /* strtab ids of "x,y,z" text, kernels only */
} pc_agg;

typedef struct pc_device {
    int id;
    uint32_t name;
    int64_t total_mem;
    int cc_major, cc_minor;
    int num_sms;
    int max_threads_per_sm, max_threads_per_block, regs_per_sm, regs_per_block;
    int smem_per_sm, smem_per_block, warp_size;
    uint32_t arch;           /* strtab id of the ISA target the input names (AMD's gcnArchName,
                              * "gfx942:sramecc+:xnack-"); 0 when it names none */
    int64_t clock_offset_ns; /* its clock minus the host's, subtracted from its events' times
                              * (clock.h); 0 when on the host's clock */
} pc_device;

/* Counts of what the loader saw, reported in run info. */
enum { PC_MAX_DEVICES = 1024 }; /* devices kept per trace (a node has at most tens) */

typedef struct pc_load_stats {
    int64_t events;          /* all elements of traceEvents */
    int64_t metadata;        /* ph M, and spans that only describe the trace */
    int64_t flows;           /* ac2g / async flow events (s, f, t) */
    int64_t unknown;         /* categories perfcard does not use */
    int64_t bad_fields;      /* events skipped: ts missing, a negative duration, a field of the wrong type or range */
    int64_t dur_sum;         /* durations taken so far (pc_trace_take_dur) */
    uint64_t bytes;          /* bytes of JSON parsed (decompressed) */
    uint64_t file_bytes;     /* bytes of the file on disk */
    int parts;               /* parts of the file read in parallel whose results were used (1 = serial) */
    uint64_t forecast;       /* the run's peak memory forecast while loading, bytes (0: none made) */
    int64_t devices_dropped; /* device descriptions past PC_MAX_DEVICES, not kept */
    int64_t files_skipped;   /* input files present but unreadable or malformed (directory inputs) */
    char first_skipped[96];  /* the first of them */
} pc_load_stats;

typedef struct pc_trace {
    pc_strtab strs;
    pc_cpu_event *cpu;   size_t ncpu, cap_cpu;
    pc_gpu_event *gpu;   size_t ngpu, cap_gpu;
    pc_mem_event *mem;   size_t nmem, cap_mem;
    pc_counter *ctr;     size_t nctr, cap_ctr;
    pc_device *dev;      size_t ndev, cap_dev;
    pc_phase *phase;     size_t nphase, cap_phase;
    pc_pipe_op *pipe;    size_t npipe, cap_pipe;
    pc_agg *agg;         size_t nagg, cap_agg;
    const char *clock_note; /* set when parts of the input use different clocks */
    uint32_t clock_aligned; /* strtab id of what pc_clock_align moved and by how much, or of host and device
                             * events hours apart with nothing to align them; 0 when neither */
    /* with clock_note: the span of the events on the input's second clock
     * (MindSpore's timeline); t_min and t_max then cover the first clock only */
    int64_t clock2_start, clock2_end;
    /* 1 when the input's only device events are communication spans (MindSpore's
     * step trace without its timeline): GPU busy time is unknown */
    int kernels_unknown;
    const char *step_source; /* what the input's own steps are, when a loader made them; NULL otherwise */
    int64_t count_cpu[CPU_KIND_COUNT];
    int64_t count_gpu[GPU_KIND_COUNT];
    /* top unknown categories, for run info */
    uint32_t unknown_cat[16]; int64_t unknown_cat_n[16]; int nunknown_cat;
    int64_t rank, world_size;  /* PC_NONE when the trace has no distributedInfo */
    /* from a perfcard capture's metadata block ("perfcard_capture"); 0 otherwise */
    int64_t capture_dropped, capture_incomplete;
    int capture_killed;        /* the captured process did not exit normally */
    uint32_t backend;          /* distributedInfo.backend */
    uint32_t source_format;    /* e.g. "kineto-json" */
    int schema_2021;           /* 1 when categories were of the 2021 schema */
    int64_t t_min, t_max;      /* span of all timed events (ns), host_start..host_end included */
    /* the program's host activity the input records but perfcard keeps no events of (Nsight
     * Systems' OS runtime calls, OSRT_API, of the processes that made CUDA calls): its first start
     * and last end, so that the trace starts with the process, not its first CUDA call (#32 class 3);
     * has_host_span 0 when absent */
    int64_t host_start, host_end;
    int has_host_span;
    /* the Unix epoch ns of the trace clock's 0, when the input relates its clock to
     * UTC (Kineto's baseTimeNanoseconds, Nsight Systems' session start); loaders set
     * it only within PC_EPOCH_MIN_NS..PC_EPOCH_MAX_NS (has_epoch 1) */
    int64_t epoch_ns;
    int has_epoch;
    int64_t prof_start, prof_end; /* the profiler's own span ("Trace" events), 0 if absent */
    pc_load_stats stats;
    /* set when the input ended before the document did */
    int truncated;
    uint64_t truncated_at;     /* byte offset where complete data ends */
    char truncated_why[200];   /* what ended it when that was damage, naming its byte ("gzip data error at byte 18931
                                * of the file: the CRC-32 does not match the data"); "" for data that simply ends */
    int sorted;                /* set by pc_trace_sort; nothing may be added after it but by absorb */
} pc_trace;

pc_trace *pc_trace_new(void);
void pc_trace_free(pc_trace *t);  /* accepts NULL */
pc_cpu_event *pc_trace_add_cpu(pc_trace *t);  /* zeroed, ids set to PC_NONE */
pc_gpu_event *pc_trace_add_gpu(pc_trace *t);
/* Every reader passes each duration (and each table total) here before it
 * keeps an event: the durations of one trace sum to at most PC_DUR_BUDGET
 * (2^56 ns, 2.3 years), so no sum of them anywhere downstream can overflow,
 * even over 64 parts read in parallel. Returns 0 (and counts the event as
 * invalid) when the budget would be passed or dur is negative. */
#define PC_DUR_BUDGET ((int64_t)1 << 56)
/* Every time (ns) and size (bytes) a reader keeps lies within +-PC_TIME_LIMIT
 * (2^62), so no sum or difference of two of them can overflow downstream.
 * PC_TIME_LIMIT_D is the same bound for values still held as doubles. */
#define PC_TIME_LIMIT ((int64_t)1 << 62)
#define PC_TIME_LIMIT_D 4611686018427387904.0
/* wall-clock dates perfcard believes: 2000-01-01 to 2100-01-01 (Unix epoch ns) */
#define PC_EPOCH_MIN_NS ((int64_t)946684800 * 1000000000)
#define PC_EPOCH_MAX_NS ((int64_t)4102444800 * 1000000000)
int pc_trace_take_dur(pc_trace *t, int64_t dur);
pc_mem_event *pc_trace_add_mem(pc_trace *t);
pc_counter *pc_trace_add_counter(pc_trace *t);
pc_device *pc_trace_device(pc_trace *t, int id); /* finds or adds */
void pc_trace_note_unknown(pc_trace *t, uint32_t cat);
/* How many events of the unread category `cat` (by name) the trace had; 0 when none. */
int64_t pc_trace_unknown_count(const pc_trace *t, const char *cat);
/* Sorts the event arrays by (ts, -dur, kind), stably (ties stay in the order
 * they were added); a reader of one part of an input sorts its own trace so
 * that parts sort in parallel. */
void pc_trace_sort(pc_trace *t);
/* Moves everything of s (read from a later part of the same input) into t,
 * giving s's strings t's ids, and frees s. When both are sorted the arrays
 * are merged (t's elements first on ties) and t stays sorted. Run before
 * pc_trace_finish. */
void pc_trace_absorb(pc_trace *t, pc_trace *s);
/* How many of t's events absorbing s would move (those after s's first, in
 * each array; 0 when s follows t); SIZE_MAX when either is not sorted. */
size_t pc_trace_merge_moves(const pc_trace *t, const pc_trace *s);
/* Sorts (unless sorted), counts kinds and computes the span. */
void pc_trace_finish(pc_trace *t);
/* Approximate bytes held by the trace, for --verbose and the benchmark. */
size_t pc_trace_bytes(const pc_trace *t);
/* Bytes the trace will cost in memory, for the loader's forecast: its events
 * (counts times record sizes) and twice its names (interned, then copied
 * once more while parts are merged and rows are keyed by them); no spare
 * capacity. Names matter when nearly every event has its own (1,000,000
 * distinct names hold as much as their events). */
size_t pc_trace_held_bytes(const pc_trace *t);
#endif
