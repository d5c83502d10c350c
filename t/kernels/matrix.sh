#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The binary, cast and ternary tables are complete per doc/KERNELS.md: every op
# for every dtype, the full 7x7 cast matrix, where_<I>_<T> for every ids
# dtype, each with the fixed kernel ABI (numel, num_dims, hr_layout by
# value, inputs, output); so are reduce (five ops, each one-pass, split and
# finish), norm (four ops, each one-pass, split and apply) and rope for
# f32 f64 f16 bf16, indexing (five ops for every ids and data dtype), sort,
# quantized (8 formats, q8_1 mat-vec at batch 1..8; the planar layout of
# the five 32-element formats) and conv (11 ops for
# f32 f64 f16 bf16, candle's info by value), in candle's argument order.
# The table is what precompile, the selftest and callers go by, so a
# dropped line would silently drop a kernel.
. "$top_srcdir/t/tap.sh"

K="$top_srcdir/kernels"
DT="f32 f64 f16 bf16 u8 u32 i64"
ctype() {
	case $1 in
	f32) echo float ;; f64) echo double ;; f16) echo hr_f16 ;; bf16) echo hr_bf16 ;;
	u8) echo uint8_t ;; u32) echo uint32_t ;; i64) echo int64_t ;;
	esac
}
L='size_t numel, size_t num_dims, hr_layout info'

# expected FAMILY: the table as it must be, name<TAB>signature, sorted
expected() {
	case $1 in
	binary)
		for t in $DT; do
			c=$(ctype $t)
			for op in badd bsub bmul bdiv bmaximum bminimum; do
				printf '%s_%s\t%s, const %s *lhs, const %s *rhs, %s *out\n' $op $t "$L" $c $c $c
			done
			for op in eq ne lt le gt ge; do
				printf '%s_%s\t%s, const %s *lhs, const %s *rhs, uint8_t *out\n' $op $t "$L" $c $c
			done
		done
		for t in f32 f64 f16 bf16; do
			c=$(ctype $t)
			printf 'silu_mul_%s\t%s, const %s *lhs, const %s *rhs, %s *out\n' $t "$L" $c $c $c
		done ;;
	cast)
		for s in $DT; do
			for d in $DT; do
				printf 'cast_%s_%s\t%s, const %s *inp, %s *out\n' $s $d "$L" $(ctype $s) $(ctype $d)
			done
		done ;;
	ternary)
		for i in u8 u32 i64; do
			for t in $DT; do
				c=$(ctype $t)
				printf 'where_%s_%s\t%s, const %s *ids, const %s *t, const %s *f, %s *out\n' \
					$i $t "$L" $(ctype $i) $c $c $c
			done
		done ;;
	reduce)
		R='size_t src_numel, size_t el_to_sum_per_block, size_t num_dims, hr_layout info'
		for t in f32 f64 f16 bf16; do
			c=$(ctype $t)
			for op in sum min max argmin argmax; do
				case $op in arg*) o=uint32_t ;; *) o=$c ;; esac
				printf 'fast_%s_%s\t%s, const %s *src, %s *dst\n' $op $t "$R" $c $o
				printf 'fast_%s_split_%s\t%s, const %s *src, void *ws\n' $op $t "$R" $c
				printf 'fast_%s_finish_%s\tsize_t rows, size_t splits, const void *ws, %s *dst\n' $op $t $o
			done
		done ;;
	norm)
		for t in f32 f64 f16 bf16; do
			c=$(ctype $t)
			printf 'softmax_%s\tconst %s *src, %s *dst, int ncols\n' $t $c $c
			printf 'rmsnorm_%s\tconst %s *x, %s *dst, const %s *alpha, int ncols, int block_size, float eps\n' $t $c $c $c
			printf 'layernorm_%s\tconst %s *x, %s *dst, const %s *alpha, const %s *beta, int ncols, int block_size, float eps\n' $t $c $c $c $c
			printf 'add_rmsnorm_%s\tconst %s *x, const %s *residual, %s *dst, %s *residual_out, const %s *alpha, int ncols, int block_size, float eps\n' $t $c $c $c $c $c
			W='const void *ws, int splits'
			printf 'softmax_split_%s\tconst %s *src, void *ws, int ncols\n' $t $c
			printf 'softmax_apply_%s\tconst %s *src, %s *dst, int ncols, %s\n' $t $c $c "$W"
			printf 'rmsnorm_split_%s\tconst %s *x, void *ws, int ncols\n' $t $c
			printf 'rmsnorm_apply_%s\tconst %s *x, %s *dst, const %s *alpha, int ncols, float eps, %s\n' $t $c $c $c "$W"
			printf 'layernorm_split_%s\tconst %s *x, void *ws, int ncols\n' $t $c
			printf 'layernorm_apply_%s\tconst %s *x, %s *dst, const %s *alpha, const %s *beta, int ncols, float eps, %s\n' $t $c $c $c $c "$W"
			printf 'add_rmsnorm_split_%s\tconst %s *x, const %s *residual, %s *residual_out, void *ws, int ncols\n' $t $c $c $c
			printf 'add_rmsnorm_apply_%s\tconst %s *residual_out, %s *dst, const %s *alpha, int ncols, float eps, %s\n' $t $c $c $c "$W"
		done ;;
	rope)
		for t in f32 f64 f16 bf16; do
			c=$(ctype $t)
			S="const $c *src, const $c *cos, const $c *sin, $c *dst"
			printf 'rope_i_%s\t%s, size_t bh, size_t td, size_t stride_b\n' $t "$S"
			printf 'rope_%s\t%s, size_t bh, size_t td, size_t d, size_t stride_b\n' $t "$S"
			printf 'rope_thd_%s\t%s, size_t b, size_t t, size_t h, size_t d, size_t stride_b\n' $t "$S"
			for v in rope_pos rope_i_pos; do
				printf '%s_%s\tconst int64_t *pos, %s *q, %s *k, const %s *cos, const %s *sin, size_t ntok, size_t nq_heads, size_t nk_heads, size_t head_dim, size_t rot_dim, size_t q_stride, size_t k_stride, size_t max_pos\n' \
					$v $t $c $c $c $c
			done
		done ;;
	indexing)
		for i in u8 u32 i64; do
			ic=$(ctype $i)
			for t in $DT; do
				c=$(ctype $t)
				D='size_t left_size, size_t src_dim_size'
				printf 'is_%s_%s\t%s, const %s *ids, const %s *inp, %s *out, %s, size_t ids_dim_size, size_t right_size\n' $i $t "$L" $ic $c $c "$D"
				printf 'gather_%s_%s\tsize_t numel, const %s *ids, const %s *inp, %s *out, %s, size_t ids_dim_size, size_t right_size\n' $i $t $ic $c $c "$D"
				printf 'ia_%s_%s\tconst %s *ids, size_t ids_dim_size, const %s *inp, %s *out, %s, size_t dst_dim_size, size_t right_size\n' $i $t $ic $c $c "$D"
				for op in s sa; do
					printf '%s_%s_%s\tconst %s *ids, const %s *inp, %s *out, %s, size_t dst_dim_size, size_t right_size\n' $op $i $t $ic $c $c "$D"
				done
			done
		done ;;
	sort)
		for t in $DT; do
			c=$(ctype $t)
			for dir in asc desc; do
				printf 'asort_%s_%s\tconst %s *x, uint32_t *dst, int ncols, int ncols_pad\n' $dir $t $c
				printf 'asort_%s_wide_%s\tconst %s *x, uint32_t *dst, int ncols, int ncols_pad, uint32_t *ws\n' $dir $t $c
			done
		done
		# the multi-block form: 1- to 4-byte keys
		for t in f32 f16 bf16 u8 u32; do
			c=$(ctype $t)
			for dir in asc desc; do
				printf 'asort_%s_multi_%s\tconst %s *x, uint32_t *dst, int ncols, int ncols_pad, uint32_t *ws, int pass\n' $dir $t $c
			done
		done ;;
	quantized)
		printf 'quantize_q8_1\tconst float *x, void *vy, int kx, int kx_padded\n'
		for q in q4_0 q4_1 q5_0 q5_1 q8_0 q4_K q5_K q6_K; do
			printf 'dequantize_block_%s_f32\tconst void *vx, float *y, int k\n' $q
			printf 'dequantize_block_%s_f16\tconst void *vx, hr_f16 *y, int k\n' $q
			printf 'get_rows_%s\tconst void *vx, const uint32_t *ids, float *dst, int ncols, int nids\n' $q
			printf 'dequantize_mul_mat_vec_%s\tconst void *vx, const float *y, float *dst, int ncols, int nrows\n' $q
			for b in 1 2 3 4 5 6 7 8; do
				printf 'mul_mat_vec_%s_q8_1_cuda%s\tconst void *vx, const void *vy, float *dst, int ncols_x, int nrows_x, int nrows_y, int nrows_dst\n' $q $b
			done
		done
		# the planar layout of the 32-element formats
		printf 'quantize_q8_1p\tconst float *x, void *vy, int kx, int kx_padded\n'
		for q in q4_0 q4_1 q5_0 q5_1 q8_0; do
			printf 'pack_%sp\tconst void *vx, void *vp, int k\n' $q
			printf 'unpack_%sp\tconst void *vp, void *vx, int k\n' $q
			printf 'dequantize_mul_mat_vec_%sp\tconst void *vx, const float *y, float *dst, int ncols, int nrows\n' $q
			for b in 1 2 3 4 5 6 7 8; do
				printf 'mul_mat_vec_%sp_q8_1p_cuda%s\tconst void *vx, const void *vy, float *dst, int ncols_x, int nrows_x, int nrows_y, int nrows_dst\n' $q $b
			done
		done ;;
	conv)
		for t in f32 f64 f16 bf16; do
			c=$(ctype $t)
			K="const $c *src, const $c *kernel, $c *dst"
			S="const $c *src, $c *dst"
			printf 'conv1d_%s\tsize_t src_numel, size_t l_out, size_t stride, size_t padding, size_t dilation, hr_layout info, %s\n' $t "$K"
			printf 'conv2d_%s\tsize_t src_numel, size_t w_out, size_t h_out, size_t stride, size_t padding, size_t dilation, hr_layout info, %s\n' $t "$K"
			printf 'conv_transpose1d_%s\tsize_t src_numel, size_t l_out, size_t stride, size_t padding, size_t out_padding, size_t dilation, hr_layout info, %s\n' $t "$K"
			printf 'conv_transpose2d_%s\tsize_t src_numel, size_t w_out, size_t h_out, size_t stride, size_t padding, size_t out_padding, size_t dilation, hr_layout info, %s\n' $t "$K"
			printf 'im2col1d_%s\tsize_t dst_numel, size_t l_out, size_t l_k, size_t stride, size_t padding, size_t dilation, hr_layout info, %s\n' $t "$S"
			printf 'col2im1d_%s\tsize_t dst_el, size_t l_out, size_t l_in, size_t c_out, size_t k_size, size_t stride, %s\n' $t "$S"
			printf 'im2col_%s\tsize_t dst_numel, size_t h_out, size_t w_out, size_t h_k, size_t w_k, size_t stride, size_t padding, size_t dilation, hr_layout info, %s\n' $t "$S"
			for op in avg max; do
				printf '%s_pool2d_%s\tsize_t src_numel, size_t w_k, size_t h_k, size_t w_stride, size_t h_stride, hr_layout info, %s\n' $op $t "$S"
			done
			printf 'upsample_nearest2d_%s\tsize_t w_out, size_t h_out, double w_scale, double h_scale, hr_layout info, %s\n' $t "$S"
			printf 'upsample_bilinear2d_%s\tsize_t w_out, size_t h_out, bool align_corners, bool has_scale_h, double scale_h_factor, bool has_scale_w, double scale_w_factor, hr_layout info, %s\n' $t "$S"
		done ;;
	esac | LC_ALL=C sort
}

for fam in binary cast ternary reduce norm rope indexing sort quantized conv; do
	expected $fam >"$T/$fam.want"
	grep -v -e '^#' -e '^@' -e '^[[:space:]]*$' "$K/$fam.list" | LC_ALL=C sort >"$T/$fam.got"
	cmp -s "$T/$fam.want" "$T/$fam.got"
	ok $? "$fam.list: $(wc -l <"$T/$fam.want") kernels, names and signatures as specified"
	diff "$T/$fam.want" "$T/$fam.got" | grep '^[<>]' | head -5 | sed 's/^/# /'
done

done_testing
