//go:build amd64 && !purego

#include "textflag.h"

// AVX2/FMA micro-kernels for mulPacked. Each computes an R x 16 block of
// c = a·panel (+ bias, then max(0, ·) when relu), keeping the block in
// 2R YMM accumulators while it walks k once:
//   a     row-major, rows lda floats apart
//   panel k rows of 16 floats, contiguous
//   c     rows ldc floats apart
// Register use: SI, R10 row pointers into a; R8 lda in bytes; DI panel;
// CX k countdown; DX c; R9 ldc in bytes; AX bias (or 0);
// Y12, Y13 the panel row; Y14, Y15 broadcasts of a; Y0.. accumulators.

// PFDIST: see gemm512_amd64.s.
#define PFDIST 8192

#define LOADB VMOVUPS (DI), Y12; VMOVUPS 32(DI), Y13

#define ROW(src, t, acc0, acc1) VBROADCASTSS src, t; VFMADD231PS Y12, t, acc0; VFMADD231PS Y13, t, acc1

#define INIT(acc0, acc1) VMOVUPS (AX), acc0; VMOVUPS 32(AX), acc1

#define ZERO(acc0, acc1) VXORPS acc0, acc0, acc0; VXORPS acc1, acc1, acc1

#define RELU(acc0, acc1) VMAXPS Y15, acc0, acc0; VMAXPS Y15, acc1, acc1

#define STORE(acc0, acc1) VMOVUPS acc0, (DX); VMOVUPS acc1, 32(DX); ADDQ R9, DX

// func gemmAVX6(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)
TEXT ·gemmAVX6(SB), NOSPLIT, $0-57
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	SHLQ $2, R8
	MOVQ panel+16(FP), DI
	MOVQ k+24(FP), CX
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R9
	SHLQ $2, R9
	MOVQ bias+48(FP), AX
	LEAQ (SI)(R8*2), R10
	ADDQ R8, R10
	TESTQ AX, AX
	JZ   zero6
	INIT(Y0, Y1)
	INIT(Y2, Y3)
	INIT(Y4, Y5)
	INIT(Y6, Y7)
	INIT(Y8, Y9)
	INIT(Y10, Y11)
	JMP  loop6

zero6:
	ZERO(Y0, Y1)
	ZERO(Y2, Y3)
	ZERO(Y4, Y5)
	ZERO(Y6, Y7)
	ZERO(Y8, Y9)
	ZERO(Y10, Y11)

loop6:
	PREFETCHT0 PFDIST(DI)
	LOADB
	ROW((SI), Y14, Y0, Y1)
	ROW((SI)(R8*1), Y15, Y2, Y3)
	ROW((SI)(R8*2), Y14, Y4, Y5)
	ROW((R10), Y15, Y6, Y7)
	ROW((R10)(R8*1), Y14, Y8, Y9)
	ROW((R10)(R8*2), Y15, Y10, Y11)
	ADDQ $4, SI
	ADDQ $4, R10
	ADDQ $64, DI
	DECQ CX
	JNZ  loop6

	MOVBLZX relu+56(FP), BX
	TESTQ BX, BX
	JZ    store6
	VXORPS Y15, Y15, Y15
	RELU(Y0, Y1)
	RELU(Y2, Y3)
	RELU(Y4, Y5)
	RELU(Y6, Y7)
	RELU(Y8, Y9)
	RELU(Y10, Y11)

store6:
	STORE(Y0, Y1)
	STORE(Y2, Y3)
	STORE(Y4, Y5)
	STORE(Y6, Y7)
	STORE(Y8, Y9)
	STORE(Y10, Y11)
	VZEROUPPER
	RET

// func gemmAVX4(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)
TEXT ·gemmAVX4(SB), NOSPLIT, $0-57
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	SHLQ $2, R8
	MOVQ panel+16(FP), DI
	MOVQ k+24(FP), CX
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R9
	SHLQ $2, R9
	MOVQ bias+48(FP), AX
	LEAQ (SI)(R8*2), R10
	TESTQ AX, AX
	JZ   zero4
	INIT(Y0, Y1)
	INIT(Y2, Y3)
	INIT(Y4, Y5)
	INIT(Y6, Y7)
	JMP  loop4

zero4:
	ZERO(Y0, Y1)
	ZERO(Y2, Y3)
	ZERO(Y4, Y5)
	ZERO(Y6, Y7)

loop4:
	PREFETCHT0 PFDIST(DI)
	LOADB
	ROW((SI), Y14, Y0, Y1)
	ROW((SI)(R8*1), Y15, Y2, Y3)
	ROW((R10), Y14, Y4, Y5)
	ROW((R10)(R8*1), Y15, Y6, Y7)
	ADDQ $4, SI
	ADDQ $4, R10
	ADDQ $64, DI
	DECQ CX
	JNZ  loop4

	MOVBLZX relu+56(FP), BX
	TESTQ BX, BX
	JZ    store4
	VXORPS Y15, Y15, Y15
	RELU(Y0, Y1)
	RELU(Y2, Y3)
	RELU(Y4, Y5)
	RELU(Y6, Y7)

store4:
	STORE(Y0, Y1)
	STORE(Y2, Y3)
	STORE(Y4, Y5)
	STORE(Y6, Y7)
	VZEROUPPER
	RET

// func gemmAVX2(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)
TEXT ·gemmAVX2(SB), NOSPLIT, $0-57
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	SHLQ $2, R8
	MOVQ panel+16(FP), DI
	MOVQ k+24(FP), CX
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R9
	SHLQ $2, R9
	MOVQ bias+48(FP), AX
	TESTQ AX, AX
	JZ   zero2
	INIT(Y0, Y1)
	INIT(Y2, Y3)
	JMP  loop2

zero2:
	ZERO(Y0, Y1)
	ZERO(Y2, Y3)

loop2:
	PREFETCHT0 PFDIST(DI)
	LOADB
	ROW((SI), Y14, Y0, Y1)
	ROW((SI)(R8*1), Y15, Y2, Y3)
	ADDQ $4, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop2

	MOVBLZX relu+56(FP), BX
	TESTQ BX, BX
	JZ    store2
	VXORPS Y15, Y15, Y15
	RELU(Y0, Y1)
	RELU(Y2, Y3)

store2:
	STORE(Y0, Y1)
	STORE(Y2, Y3)
	VZEROUPPER
	RET

// func gemmAVX1(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)
// One row has too few accumulators to hide the FMA latency, so it keeps
// two partial sums per half (even and odd k) and adds them at the end.
TEXT ·gemmAVX1(SB), NOSPLIT, $0-57
	MOVQ a+0(FP), SI
	MOVQ panel+16(FP), DI
	MOVQ k+24(FP), CX
	MOVQ c+32(FP), DX
	MOVQ bias+48(FP), AX
	TESTQ AX, AX
	JZ   zero1
	INIT(Y0, Y1)
	JMP  start1

zero1:
	ZERO(Y0, Y1)

start1:
	ZERO(Y2, Y3)
	CMPQ CX, $2
	JLT  tail1

loop1:
	PREFETCHT0 PFDIST(DI)
	PREFETCHT0 PFDIST+64(DI)
	VMOVUPS (DI), Y12
	VMOVUPS 32(DI), Y13
	VMOVUPS 64(DI), Y4
	VMOVUPS 96(DI), Y5
	VBROADCASTSS (SI), Y14
	VBROADCASTSS 4(SI), Y15
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VFMADD231PS Y4, Y15, Y2
	VFMADD231PS Y5, Y15, Y3
	ADDQ $8, SI
	ADDQ $128, DI
	SUBQ $2, CX
	CMPQ CX, $2
	JGE  loop1

tail1:
	TESTQ CX, CX
	JZ   done1
	LOADB
	ROW((SI), Y14, Y0, Y1)

done1:
	VADDPS Y2, Y0, Y0
	VADDPS Y3, Y1, Y1
	MOVBLZX relu+56(FP), BX
	TESTQ BX, BX
	JZ    store1
	VXORPS Y15, Y15, Y15
	RELU(Y0, Y1)

store1:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VZEROUPPER
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv0() (lo, hi uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, lo+0(FP)
	MOVL DX, hi+4(FP)
	RET
