# perfcard - see README.md. `make demo` and `make test` are the two commands (`make check`, the
# quick loop; `make test-all`, CI's: docs/testing.md).
CC        ?= cc
PKG_CONFIG ?= pkg-config
CUDA_HOME ?= /usr/local/cuda
VERSION   := 0.1.0
BUILD     ?= build
OPT       ?= -O2 -g
WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
SAN       ?=
# -Wformat-truncation follows the optimizer's value ranges (-O0 and -O3 see other bounds than -O2):
# an error at the default OPT, which every test builds, a warning at any other, so that any OPT builds
# (gcc's warning only: clang has no -Wformat-truncation and refuses the name under -Werror)
ifneq ($(OPT),-O2 -g)
ifeq ($(findstring clang,$(shell $(CC) --version 2>/dev/null | head -1)),)
  WARN    += -Wno-error=format-truncation
endif
endif

REQUIRED  := libcjson cairo zlib
HAVE_REQ  := $(shell $(PKG_CONFIG) --exists $(REQUIRED) 2>/dev/null && echo 1 || echo 0)
HAVE_SQLITE := $(shell $(PKG_CONFIG) --exists sqlite3 2>/dev/null && echo 1 || echo 0)
# the gzip inflater: ISA-L's igzip when libisal is there (libisal-dev), else zlib; INFLATE=zlib
# builds with zlib whatever is installed, INFLATE=isal fails without ISA-L (src/load/source.h)
INFLATE   ?= auto
HAVE_ISAL := $(if $(filter zlib,$(INFLATE)),0,$(shell $(PKG_CONFIG) --exists libisal 2>/dev/null && echo 1 || echo 0))
HAVE_LIBDEFLATE = $(shell $(PKG_CONFIG) --exists libdeflate 2>/dev/null && echo 1 || echo 0)
.DEFAULT_GOAL := all
HAVE_CUPTI := $(shell test -f $(CUDA_HOME)/include/cupti.h && \
                ( test -f $(CUDA_HOME)/lib64/libcupti.so || test -f $(CUDA_HOME)/extras/CUPTI/lib64/libcupti.so ) && echo 1 || echo 0)

ifeq ($(MAKECMDGOALS),)
  NEED_BUILD := 1
endif
ifneq ($(filter all demo test bench fuzz $(BUILD)/%,$(MAKECMDGOALS)),)
  NEED_BUILD := 1
endif
ifeq ($(NEED_BUILD),1)
ifeq ($(INFLATE)$(HAVE_ISAL),isal0)
  $(error perfcard: INFLATE=isal but no libisal.pc: install libisal-dev, or build with INFLATE=zlib)
endif
ifeq ($(MAKELEVEL),0)
  $(info perfcard: gzip inflater: $(if $(filter 1,$(HAVE_ISAL)),ISA-L igzip (libisal $(shell $(PKG_CONFIG) --modversion libisal)),zlib ($(if $(filter zlib,$(INFLATE)),INFLATE=zlib,no libisal.pc: install libisal-dev for a faster .json.gz read))))
endif
# the choice is recorded so that changing it rebuilds the reader
  $(shell mkdir -p $(BUILD) && { [ "$$(cat $(BUILD)/inflater 2> /dev/null)" = "$(HAVE_ISAL)" ] || echo "$(HAVE_ISAL)" > $(BUILD)/inflater; })
ifeq ($(HAVE_SQLITE),0)
  $(info perfcard: Nsight Systems / nvprof SQLite input: off (no sqlite3.pc; install libsqlite3-dev))
endif
ifeq ($(HAVE_CUPTI),0)
  $(info perfcard: no CUDA toolkit under CUDA_HOME=$(CUDA_HOME): the mock CUDA stack of tests/capture builds with its stand-in headers (tests/capture/mock/nocuda), without the check of src/capture/records.h against cupti.h)
endif
endif

PKGS      := $(REQUIRED) $(if $(filter 1,$(HAVE_SQLITE)),sqlite3) $(if $(filter 1,$(HAVE_ISAL)),libisal)
CPPFLAGS  += -D_GNU_SOURCE -DPC_VERSION=\"$(VERSION)\" -DPC_HAVE_SQLITE=$(HAVE_SQLITE) -DPC_HAVE_ISAL=$(HAVE_ISAL)
CFLAGS    += -std=c11 $(OPT) $(WARN) $(SAN) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDLIBS    += $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm -lpthread
LDFLAGS   += $(SAN)

DEPFLAGS  := -MMD -MP
# the flags an object is built with, recorded in $(BUILD)/flags (rewritten only when they change, so
# that a build with another CC, OPT, SAN or CPPFLAGS rebuilds every object, and the same one nothing)
BUILD_FLAGS := $(CC) $(CPPFLAGS) $(CFLAGS)
ifeq ($(NEED_BUILD),1)
  $(shell mkdir -p $(BUILD) && { [ "$$(cat $(BUILD)/flags 2> /dev/null)" = '$(BUILD_FLAGS)' ] || printf '%s\n' '$(BUILD_FLAGS)' > $(BUILD)/flags; })
endif
$(BUILD)/flags:
	@mkdir -p $(dir $@)
	@printf '%s\n' '$(BUILD_FLAGS)' > $@

LIB_SRC   := $(filter-out src/cli/main.c src/capture/inject.c src/capture/cupti.c $(if $(filter 0,$(HAVE_SQLITE)),src/load/sqlite_in.c),$(wildcard src/*/*.c))
CUPTI_INC := $(if $(filter 1,$(HAVE_CUPTI)),-I$(CUDA_HOME)/include -I$(CUDA_HOME)/extras/CUPTI/include)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/embedded.o
EMBED     := $(sort $(wildcard templates/*) $(wildcard assets/*))
TEST_SRC  := $(wildcard tests/unit/*.c)

.PHONY: mock all demo test check-deps deps bench fuzz golden screenshots clean install uninstall deb
all: $(BUILD)/perfcard $(BUILD)/gentrace $(BUILD)/libperfcard_inject.so $(BUILD)/schemadoc mock

deps:
	@sh tools/setup.sh build

# each object depends on its source, the headers the compiler saw it include (-MMD -MP: $(BUILD)/.../X.d)
# and the recorded flags ($(BUILD)/flags)
$(BUILD)/%.o: %.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/src/load/source.o: $(BUILD)/inflater
$(BUILD)/inflater:
	@mkdir -p $(dir $@)
	@echo "$(HAVE_ISAL)" > $@

$(BUILD)/gen/embedded.c: $(EMBED) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $(EMBED) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/embedded.o: $(BUILD)/gen/embedded.c $(BUILD)/flags
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libperfcard.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/perfcard: $(BUILD)/src/cli/main.o $(BUILD)/libperfcard.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# the injection library: CUPTI is opened at run time (dlopen) and read through src/capture/records.h: no CUDA headers needed
INJECT_SRC := src/capture/inject.c src/capture/cupti.c src/capture/writer.c src/capture/cmdline.c
$(BUILD)/libperfcard_inject.so: $(INJECT_SRC) $(wildcard src/capture/*.h) src/util/apiname.h include/perfcard.h $(BUILD)/flags
	@mkdir -p $(dir $@)
	@echo "CC $@"
	@$(CC) $(CPPFLAGS) -std=c11 $(OPT) $(WARN) -fPIC -fvisibility=hidden -shared \
	    -o $@ $(INJECT_SRC) -ldl -lpthread

# the mock CUDA stack of tests/capture (driver, runtime, CUPTI) and its training program: capture tested end to end with no GPU
MOCK      := $(BUILD)/mock
# with no toolkit, the stand-in headers of tests/capture/mock/nocuda (the toolkit's values: checked by nocuda_check.c when it is there)
MOCK_INC  := $(if $(filter 1,$(HAVE_CUPTI)),$(CUPTI_INC),-Itests/capture/mock/nocuda)
MOCK_H    := tests/capture/mock/mock.h $(if $(filter 0,$(HAVE_CUPTI)),$(wildcard tests/capture/mock/nocuda/*.h tests/capture/mock/nocuda/nvtx3/*.h) src/capture/records.h)
MOCK_CC   = $(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-deprecated-declarations -fPIC $(MOCK_INC)
$(MOCK)/libcuda.so.1: tests/capture/mock/driver.c $(MOCK_H)
	@mkdir -p $(dir $@)
	@$(MOCK_CC) -shared -Wl,-soname,libcuda.so.1 -o $@ $< -ldl -lpthread
$(MOCK)/libcudart.so.13: tests/capture/mock/runtime.c $(MOCK_H)
	@mkdir -p $(dir $@)
	@$(MOCK_CC) -shared -Wl,-soname,libcudart.so.13 -o $@ $< -ldl -lpthread
$(MOCK)/libcupti.so: tests/capture/mock/cupti.c $(MOCK_H)
	@mkdir -p $(dir $@)
	@$(MOCK_CC) -shared -Wl,-soname,libcupti.so.13 -o $@ $< -ldl -lpthread
$(MOCK)/train: tests/capture/train.c $(MOCK)/libcudart.so.13 $(MOCK_H)
	@mkdir -p $(dir $@)
	@$(MOCK_CC) -o $@ $< -L$(MOCK) -l:libcudart.so.13 -Wl,-rpath,'$$ORIGIN' -ldl -lpthread
$(MOCK)/records_check.o: tests/capture/records_check.c src/capture/records.h
	@mkdir -p $(dir $@)
	@$(MOCK_CC) -c -o $@ $<
$(MOCK)/nocuda_check.o: tests/capture/nocuda_check.c tests/capture/mock/nocuda/values.h
	@mkdir -p $(dir $@)
	@$(MOCK_CC) -Itests/capture -c -o $@ $<
mock: $(if $(filter 1,$(HAVE_CUPTI)),$(MOCK)/records_check.o $(MOCK)/nocuda_check.o) $(MOCK)/libcuda.so.1 $(MOCK)/libcudart.so.13 $(MOCK)/libcupti.so $(MOCK)/train

# prints the tables' columns for docs/summary-schema.md and the rules table of README.md (tools/schemadoc.sh)
$(BUILD)/schemadoc: tools/schemadoc.c $(wildcard src/summary/tables*.def) src/summary/table.h src/analyze/rules.def src/analyze/rules.h $(BUILD)/libperfcard.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) -o $@ $< $(BUILD)/libperfcard.a $(LDLIBS)

$(BUILD)/gentrace: tools/gentrace.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $< -lm

# zlib, ISA-L's igzip and libdeflate side by side on a .gz (tools/inflate_bench.sh, docs/benchmarks-inflate.md)
$(BUILD)/inflate_bench: tools/inflate_bench.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 $(WARN) -DPC_HAVE_ISAL=$(HAVE_ISAL) -DPC_HAVE_LIBDEFLATE=$(HAVE_LIBDEFLATE) -o $@ $< \
	    $(if $(filter 1,$(HAVE_ISAL)),-lisal) $(if $(filter 1,$(HAVE_LIBDEFLATE)),-ldeflate) -lz
# the reader alone, for measuring it (docs/benchmarks-parse.md)
$(BUILD)/loadbench: tools/loadbench.c $(BUILD)/libperfcard.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) -o $@ $< $(BUILD)/libperfcard.a $(LDLIBS)

$(BUILD)/perfcard-tests: $(TEST_SRC:%.c=$(BUILD)/%.o) $(BUILD)/libperfcard.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/unit/%.o: tests/unit/%.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# the header dependencies the compiler wrote (none before the first build)
-include $(wildcard $(BUILD)/src/*/*.d $(BUILD)/tests/unit/*.d)

# ---- the two commands, and the test tiers (docs/testing.md) -----------
demo: deps
	@$(MAKE) --no-print-directory all
	@$(BUILD)/perfcard report examples/demo.pt.trace.json.gz -o out/demo

# the tiers: each builds what it needs, runs its suites (tests/run.sh, JOBS at a time) and ends with
# "N passed, N failed"; T=PATTERN runs only the unit tests, CLI cases and hostile cases whose
# names hold PATTERN. make check: the quick loop; make test: the README's; make test-all: CI's.
JOBS      ?= $(shell nproc 2> /dev/null || echo 2)
RUN_TESTS  = JOBS=$(JOBS) sh tests/run.sh $(if $(T),--only '$(T)')
ASAN_SAN  := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
FUZZ_SAN  := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
.PHONY: check test-asan test-tsan test-fuzz test-all build-plain build-asan build-tsan build-fuzz build-zlib
build-plain:
	@$(MAKE) --no-print-directory all $(BUILD)/perfcard-tests
build-asan:
	@$(MAKE) --no-print-directory BUILD=build/asan OPT="-O1 -g -fno-omit-frame-pointer" SAN="$(ASAN_SAN)" \
	    build/asan/perfcard-tests build/asan/perfcard
build-tsan:
	@$(MAKE) --no-print-directory BUILD=build/tsan OPT="-O1 -g" SAN="-fsanitize=thread" build/tsan/perfcard-tests build/tsan/perfcard
build-fuzz:
	@$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang OPT="-O1 -g" SAN="$(FUZZ_SAN)" build/fuzz/libperfcard.a
# the zlib fallback (a machine without libisal-dev): the gzip reader's unit tests and the hostile gzip cases
build-zlib:
	@$(MAKE) --no-print-directory BUILD=build/zlib INFLATE=zlib build/zlib/perfcard build/zlib/perfcard-tests

check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) build-plain
	@$(RUN_TESTS) check
test: deps
	@sh tools/setup.sh test
	@$(MAKE) --no-print-directory -j$(JOBS) build-plain
	@$(RUN_TESTS) test
test-asan: deps
	@sh tools/setup.sh test
	@$(MAKE) --no-print-directory -j$(JOBS) build-plain build-asan
	@$(RUN_TESTS) asan
test-tsan: deps
	@sh tools/setup.sh test
	@$(MAKE) --no-print-directory -j$(JOBS) build-plain build-tsan
	@$(RUN_TESTS) tsan
test-fuzz: deps
	@sh tools/setup.sh test
	@$(MAKE) --no-print-directory -j$(JOBS) build-plain build-fuzz
	@$(RUN_TESTS) fuzz
test-all: deps
	@sh tools/setup.sh test
	@$(MAKE) --no-print-directory -j$(JOBS) build-plain build-asan build-tsan build-fuzz build-zlib
	@$(RUN_TESTS) all

# ---- measurement -------------------------------------------------------
# rewrites tests/expected/ from this build, for a reviewed change to what the report says
golden: deps
	@$(MAKE) --no-print-directory all
	@sh tests/golden.sh $(BUILD)/perfcard --update

# rewrites docs/screenshots (the README's pictures) from this build's demo report, as tests/cli/report_full.sh
# makes it (a real browser: sh tools/setup.sh test installs chromium and playwright-core)
screenshots: deps
	@$(MAKE) --no-print-directory all
	@rm -rf $(BUILD)/screens && $(BUILD)/perfcard report examples/demo.pt.trace.json.gz -o $(BUILD)/screens --csv --email --email-to "perf-team@example.com" -q
	@SHOTS=docs/screenshots node tests/browser/check_report.js $(BUILD)/screens/report.html $(BUILD)/screens/screenshot.png screens_ > /dev/null
	@ls docs/screenshots/report-light.png docs/screenshots/report-dark.png docs/screenshots/report-phone.png

bench: deps
	@$(MAKE) --no-print-directory all
	@sh tools/bench.sh

FUZZ_TIME ?= 60
fuzz: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory build-fuzz
	@FUZZ_TIME=$(FUZZ_TIME) sh tools/fuzz.sh
# one target: FUZZ_SRC, FUZZ_BIN (set by tools/fuzz.sh)
build/fuzz/fuzz_%: $(FUZZ_SRC) $(wildcard tests/fuzz/*.h) build/fuzz/libperfcard.a
	clang $(CPPFLAGS) -Isrc -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    $(shell $(PKG_CONFIG) --cflags $(PKGS)) $(FUZZ_SRC) build/fuzz/libperfcard.a $(LDLIBS) -o $(FUZZ_BIN)

# ---- install: exactly these files; uninstall removes exactly them ------
PREFIX    ?= /usr/local
DESTDIR   ?=
TPL_DIR   := $(DESTDIR)$(PREFIX)/share/perfcard/templates
INSTALLED := $(DESTDIR)$(PREFIX)/bin/perfcard $(DESTDIR)$(PREFIX)/lib/perfcard/libperfcard_inject.so \
             $(DESTDIR)$(PREFIX)/share/man/man1/perfcard.1 $(addprefix $(TPL_DIR)/,$(notdir $(EMBED)))
install: all
	install -D -m 755 $(BUILD)/perfcard $(DESTDIR)$(PREFIX)/bin/perfcard
	install -D -m 755 $(BUILD)/libperfcard_inject.so $(DESTDIR)$(PREFIX)/lib/perfcard/libperfcard_inject.so
	install -D -m 644 docs/perfcard.1 $(DESTDIR)$(PREFIX)/share/man/man1/perfcard.1
	install -d $(TPL_DIR)
	install -m 644 $(EMBED) $(TPL_DIR)/
uninstall:
	rm -f $(INSTALLED)
	-rmdir $(TPL_DIR) $(DESTDIR)$(PREFIX)/share/perfcard $(DESTDIR)$(PREFIX)/lib/perfcard 2> /dev/null

# a Debian package of this build: BUILD/perfcard_VERSION_ARCH.deb, the files of make install under
# /usr, Depends from the binary's own libraries (tools/deb.sh); apt install ./build/perfcard_*.deb
deb: deps
	@$(MAKE) --no-print-directory all
	@sh tools/deb.sh $(BUILD) $(VERSION)

clean:
	rm -rf build out
