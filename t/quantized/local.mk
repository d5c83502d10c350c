# t/quantized/local.mk: the quantized family beyond the selftest (which runs
# every kernel on both host targets through t/backend/host-selftest.sh).

# ggml block layouts against vectors made from the layouts alone by
# t/fixtures/quantized/make-vectors.py (rerun it to regenerate).
check_PROGRAMS += t/quantized/test-quantized
t_quantized_test_quantized_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/quantized/test-quantized
EXTRA_DIST += t/fixtures/quantized/make-vectors.py t/fixtures/quantized/vectors.txt
# ... and against ggml-vectors.txt, made by real ggml's reference quantizers
# (ggml-vectors.c, Debian sid's libggml-dev), which also checks vectors.txt
# bit for bit: as root, sh t/fixtures/quantized/ggml-in.sh SID_ROOT.tar DIR
EXTRA_DIST += t/fixtures/quantized/ggml-vectors.c t/fixtures/quantized/ggml-vectors.txt \
	t/fixtures/quantized/ggml-in.sh

# sdot4 on gfx90a, the scalar dot on gfx1010 (hipcc; skips without it).
EXTRA_DIST += t/quantized/isa.sh
TESTS += t/quantized/isa.sh
