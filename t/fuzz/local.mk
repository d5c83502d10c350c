# t/fuzz/local.mk: libFuzzer targets (doc/RELIABILITY.md).  `make fuzz` builds them with
# clang (ASan + UBSan + libFuzzer) from the library's sources, outside the
# normal build; `make fuzz-run FUZZ_SECONDS=60` runs each for that long on a
# copy of its seed corpus t/fuzz/seed/NAME.  Not part of `make check`.
FUZZ_CC = clang
FUZZ_SECONDS = 60
FUZZ_TARGETS = target elf config entry index manifest
FUZZ_CFLAGS = -g -O1 -std=gnu11 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all

EXTRA_DIST += t/fuzz/fuzz.h t/fuzz/fuzz-target.c t/fuzz/fuzz-elf.c \
	t/fuzz/fuzz-config.c t/fuzz/fuzz-entry.c t/fuzz/fuzz-index.c \
	t/fuzz/fuzz-manifest.c t/fuzz/seed

# The library's sources, and the generated ones (nodist_: in the build tree);
# an object is named by its source's path (lib/shared/targets.c and
# lib/precompile/targets.c are two).
fuzz: $(top_builddir)/config.h $(nodist_lib_libhanzo_rocm_internal_la_SOURCES)
	$(AM_V_at)mkdir -p t/fuzz/obj
	$(AM_V_at)for f in $(lib_libhanzo_rocm_internal_la_SOURCES) \
	    $(nodist_lib_libhanzo_rocm_internal_la_SOURCES:%=@build@/%); do \
	    case $$f in *.c) ;; *) continue ;; esac; \
	    case $$f in @build@/*) f=$${f#@build@/}; src=$$f ;; *) src="$(top_srcdir)/$$f" ;; esac; \
	    o=t/fuzz/obj/$$(printf '%s' "$${f%.c}" | tr / -).o; \
	    [ -f "$$o" ] && [ "$$o" -nt "$$src" ] && continue; \
	    echo "  FUZZCC   $$f"; \
	    $(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEFS) \
	        $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) $(INIH_CFLAGS) \
	        $(NETTLE_CFLAGS) -c "$$src" -o "$$o" || exit 1; \
	done
	$(AM_V_at)for t in $(FUZZ_TARGETS); do \
	    echo "  FUZZLD   t/fuzz/fuzz-$$t"; \
	    $(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(DEFS) $(DEFAULT_INCLUDES) \
	        $(AM_CPPFLAGS) $(CPPFLAGS) "$(top_srcdir)/t/fuzz/fuzz-$$t.c" \
	        t/fuzz/obj/*.o -o "t/fuzz/fuzz-$$t" $(INIH_LIBS) $(NETTLE_LIBS) \
	        -lpthread -ldl || exit 1; \
	done

# One rule a target, so that `make -jN fuzz-run` runs N of them at once
# (tools/test.sh: as many as the machine has cores).
fuzz-run: $(FUZZ_TARGETS:%=fuzz-run-%)
$(FUZZ_TARGETS:%=fuzz-run-%): fuzz-run-%: fuzz
	$(AM_V_at)t=$*; rm -rf "t/fuzz/corpus-$$t"; mkdir -p "t/fuzz/corpus-$$t"; \
	cp "$(top_srcdir)/t/fuzz/seed/$$t"/* "t/fuzz/corpus-$$t/"; \
	echo "  FUZZ     $$t ($(FUZZ_SECONDS) s)"; \
	"t/fuzz/fuzz-$$t" -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -print_final_stats=1 "t/fuzz/corpus-$$t" > "t/fuzz/fuzz-$$t.log" 2>&1 || \
	    { tail -40 "t/fuzz/fuzz-$$t.log"; exit 1; }; \
	grep -E '^stat::(number_of_executed_units|new_units_added)' "t/fuzz/fuzz-$$t.log" | \
	    sed "s/^/$$t: /"
.PHONY: fuzz fuzz-run $(FUZZ_TARGETS:%=fuzz-run-%)
