//go:build amd64 && !purego

#include "textflag.h"

// AVX-512 micro-kernels for mulPacked. A ZMM register holds a whole panel
// row (16 floats), so each k step is one load of the panel row and, per
// row of a, one FMA with the a value broadcast from memory. Blocks of 12
// and 8 rows keep enough independent accumulators to cover the FMA
// latency; the shorter blocks unroll k instead (two, four or eight steps
// in separate accumulators, added at the end).
//
// Arguments as in gemm_amd64.s. Registers: SI, R10, R11, R12 row pointers
// (rows 0-2, 3-5, 6-8, 9-11 via (reg), (reg)(R8*1), (reg)(R8*2)); R8 lda
// in bytes; DI panel; CX k countdown; DX c; R9 ldc in bytes; AX bias;
// Z31, Z30.. panel rows; Z29 zero for relu.

// PFDIST is how far ahead of the panel row in use the kernels prefetch.
// The panels of a matrix lie one after another, so this runs on into the
// next panel. The weights (18 MB) stream from L3 or DRAM for every text;
// prefetching 8 KB ahead hides that latency (1.9 -> 1.3 ms per sentence
// on the development machine; 1 KB ahead gave 1.7, 32 KB no more than 8).
#define PFDIST 8192

#define FMAB(src, b, acc) VFMADD231PS.BCST src, b, acc

#define LOADARGS \
	MOVQ a+0(FP), SI; \
	MOVQ lda+8(FP), R8; \
	SHLQ $2, R8; \
	MOVQ panel+16(FP), DI; \
	MOVQ k+24(FP), CX; \
	MOVQ c+32(FP), DX; \
	MOVQ ldc+40(FP), R9; \
	SHLQ $2, R9; \
	MOVQ bias+48(FP), AX

#define INITZ(acc) VPXORD acc, acc, acc

#define STOREZ(acc) VMOVUPS acc, (DX); ADDQ R9, DX

#define RELUZ(acc) VMAXPS Z29, acc, acc

// func gemm512x12(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)
TEXT ·gemm512x12(SB), NOSPLIT, $0-57
	LOADARGS
	LEAQ (SI)(R8*2), R10
	ADDQ R8, R10
	LEAQ (R10)(R8*2), R11
	ADDQ R8, R11
	LEAQ (R11)(R8*2), R12
	ADDQ R8, R12
	TESTQ AX, AX
	JZ   zero12
	VMOVUPS (AX), Z0
	JMP  init12
zero12:
	INITZ(Z0)
init12:
	VMOVAPS Z0, Z1
	VMOVAPS Z0, Z2
	VMOVAPS Z0, Z3
	VMOVAPS Z0, Z4
	VMOVAPS Z0, Z5
	VMOVAPS Z0, Z6
	VMOVAPS Z0, Z7
	VMOVAPS Z0, Z8
	VMOVAPS Z0, Z9
	VMOVAPS Z0, Z10
	VMOVAPS Z0, Z11
loop12:
	PREFETCHT0 PFDIST(DI)
	VMOVUPS (DI), Z31
	FMAB((SI), Z31, Z0)
	FMAB((SI)(R8*1), Z31, Z1)
	FMAB((SI)(R8*2), Z31, Z2)
	FMAB((R10), Z31, Z3)
	FMAB((R10)(R8*1), Z31, Z4)
	FMAB((R10)(R8*2), Z31, Z5)
	FMAB((R11), Z31, Z6)
	FMAB((R11)(R8*1), Z31, Z7)
	FMAB((R11)(R8*2), Z31, Z8)
	FMAB((R12), Z31, Z9)
	FMAB((R12)(R8*1), Z31, Z10)
	FMAB((R12)(R8*2), Z31, Z11)
	ADDQ $4, SI
	ADDQ $4, R10
	ADDQ $4, R11
	ADDQ $4, R12
	ADDQ $64, DI
	DECQ CX
	JNZ  loop12
	MOVBLZX relu+56(FP), BX
	TESTQ BX, BX
	JZ    store12
	INITZ(Z29)
	RELUZ(Z0)
	RELUZ(Z1)
	RELUZ(Z2)
	RELUZ(Z3)
	RELUZ(Z4)
	RELUZ(Z5)
	RELUZ(Z6)
	RELUZ(Z7)
	RELUZ(Z8)
	RELUZ(Z9)
	RELUZ(Z10)
	RELUZ(Z11)
store12:
	STOREZ(Z0)
	STOREZ(Z1)
	STOREZ(Z2)
	STOREZ(Z3)
	STOREZ(Z4)
	STOREZ(Z5)
	STOREZ(Z6)
	STOREZ(Z7)
	STOREZ(Z8)
	STOREZ(Z9)
	STOREZ(Z10)
	STOREZ(Z11)
	VZEROUPPER
	RET

// func gemm512x8(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)
TEXT ·gemm512x8(SB), NOSPLIT, $0-57
	LOADARGS
	LEAQ (SI)(R8*2), R10
	ADDQ R8, R10
	LEAQ (R10)(R8*2), R11
	ADDQ R8, R11
	TESTQ AX, AX
	JZ   zero8
	VMOVUPS (AX), Z0
	JMP  init8
zero8:
	INITZ(Z0)
init8:
	VMOVAPS Z0, Z1
	VMOVAPS Z0, Z2
	VMOVAPS Z0, Z3
	VMOVAPS Z0, Z4
	VMOVAPS Z0, Z5
	VMOVAPS Z0, Z6
	VMOVAPS Z0, Z7
loop8:
	PREFETCHT0 PFDIST(DI)
	VMOVUPS (DI), Z31
	FMAB((SI), Z31, Z0)
	FMAB((SI)(R8*1), Z31, Z1)
	FMAB((SI)(R8*2), Z31, Z2)
	FMAB((R10), Z31, Z3)
	FMAB((R10)(R8*1), Z31, Z4)
	FMAB((R10)(R8*2), Z31, Z5)
	FMAB((R11), Z31, Z6)
	FMAB((R11)(R8*1), Z31, Z7)
	ADDQ $4, SI
	ADDQ $4, R10
	ADDQ $4, R11
	ADDQ $64, DI
	DECQ CX
	JNZ  loop8
	MOVBLZX relu+56(FP), BX
	TESTQ BX, BX
	JZ    store8
	INITZ(Z29)
	RELUZ(Z0)
	RELUZ(Z1)
	RELUZ(Z2)
	RELUZ(Z3)
	RELUZ(Z4)
	RELUZ(Z5)
	RELUZ(Z6)
	RELUZ(Z7)
store8:
	STOREZ(Z0)
	STOREZ(Z1)
	STOREZ(Z2)
	STOREZ(Z3)
	STOREZ(Z4)
	STOREZ(Z5)
	STOREZ(Z6)
	STOREZ(Z7)
	VZEROUPPER
	RET

// func gemm512x4(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)
// Two k steps per iteration: Z0-Z3 take even steps, Z4-Z7 odd ones.
TEXT ·gemm512x4(SB), NOSPLIT, $0-57
	LOADARGS
	LEAQ (SI)(R8*2), R10
	ADDQ R8, R10
	TESTQ AX, AX
	JZ   zero4
	VMOVUPS (AX), Z0
	JMP  init4
zero4:
	INITZ(Z0)
init4:
	VMOVAPS Z0, Z1
	VMOVAPS Z0, Z2
	VMOVAPS Z0, Z3
	INITZ(Z4)
	INITZ(Z5)
	INITZ(Z6)
	INITZ(Z7)
	CMPQ CX, $2
	JLT  tail4
loop4:
	PREFETCHT0 PFDIST(DI)
	PREFETCHT0 PFDIST+64(DI)
	VMOVUPS (DI), Z31
	VMOVUPS 64(DI), Z30
	FMAB((SI), Z31, Z0)
	FMAB((SI)(R8*1), Z31, Z1)
	FMAB((SI)(R8*2), Z31, Z2)
	FMAB((R10), Z31, Z3)
	FMAB(4(SI), Z30, Z4)
	FMAB(4(SI)(R8*1), Z30, Z5)
	FMAB(4(SI)(R8*2), Z30, Z6)
	FMAB(4(R10), Z30, Z7)
	ADDQ $8, SI
	ADDQ $8, R10
	ADDQ $128, DI
	SUBQ $2, CX
	CMPQ CX, $2
	JGE  loop4
tail4:
	TESTQ CX, CX
	JZ   done4
	VMOVUPS (DI), Z31
	FMAB((SI), Z31, Z0)
	FMAB((SI)(R8*1), Z31, Z1)
	FMAB((SI)(R8*2), Z31, Z2)
	FMAB((R10), Z31, Z3)
done4:
	VADDPS Z4, Z0, Z0
	VADDPS Z5, Z1, Z1
	VADDPS Z6, Z2, Z2
	VADDPS Z7, Z3, Z3
	MOVBLZX relu+56(FP), BX
	TESTQ BX, BX
	JZ    store4
	INITZ(Z29)
	RELUZ(Z0)
	RELUZ(Z1)
	RELUZ(Z2)
	RELUZ(Z3)
store4:
	STOREZ(Z0)
	STOREZ(Z1)
	STOREZ(Z2)
	STOREZ(Z3)
	VZEROUPPER
	RET

// func gemm512x2(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)
// Four k steps per iteration, in accumulator pairs (Z0,Z1) (Z2,Z3) (Z4,Z5) (Z6,Z7).
TEXT ·gemm512x2(SB), NOSPLIT, $0-57
	LOADARGS
	TESTQ AX, AX
	JZ   zero2
	VMOVUPS (AX), Z0
	JMP  init2
zero2:
	INITZ(Z0)
init2:
	VMOVAPS Z0, Z1
	INITZ(Z2)
	INITZ(Z3)
	INITZ(Z4)
	INITZ(Z5)
	INITZ(Z6)
	INITZ(Z7)
	CMPQ CX, $4
	JLT  tail2
loop2:
	PREFETCHT0 PFDIST(DI)
	PREFETCHT0 PFDIST+64(DI)
	PREFETCHT0 PFDIST+128(DI)
	PREFETCHT0 PFDIST+192(DI)
	VMOVUPS (DI), Z31
	VMOVUPS 64(DI), Z30
	VMOVUPS 128(DI), Z28
	VMOVUPS 192(DI), Z27
	FMAB((SI), Z31, Z0)
	FMAB((SI)(R8*1), Z31, Z1)
	FMAB(4(SI), Z30, Z2)
	FMAB(4(SI)(R8*1), Z30, Z3)
	FMAB(8(SI), Z28, Z4)
	FMAB(8(SI)(R8*1), Z28, Z5)
	FMAB(12(SI), Z27, Z6)
	FMAB(12(SI)(R8*1), Z27, Z7)
	ADDQ $16, SI
	ADDQ $256, DI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  loop2
tail2:
	TESTQ CX, CX
	JZ   done2
	VMOVUPS (DI), Z31
	FMAB((SI), Z31, Z0)
	FMAB((SI)(R8*1), Z31, Z1)
	ADDQ $4, SI
	ADDQ $64, DI
	DECQ CX
	JMP  tail2
done2:
	VADDPS Z2, Z0, Z0
	VADDPS Z3, Z1, Z1
	VADDPS Z6, Z4, Z4
	VADDPS Z7, Z5, Z5
	VADDPS Z4, Z0, Z0
	VADDPS Z5, Z1, Z1
	MOVBLZX relu+56(FP), BX
	TESTQ BX, BX
	JZ    store2
	INITZ(Z29)
	RELUZ(Z0)
	RELUZ(Z1)
store2:
	STOREZ(Z0)
	STOREZ(Z1)
	VZEROUPPER
	RET

// func gemm512x1(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)
// Four k steps per iteration into Z0-Z3.
TEXT ·gemm512x1(SB), NOSPLIT, $0-57
	LOADARGS
	TESTQ AX, AX
	JZ   zero1
	VMOVUPS (AX), Z0
	JMP  init1
zero1:
	INITZ(Z0)
init1:
	INITZ(Z1)
	INITZ(Z2)
	INITZ(Z3)
	CMPQ CX, $4
	JLT  tail1
loop1:
	PREFETCHT0 PFDIST(DI)
	PREFETCHT0 PFDIST+64(DI)
	PREFETCHT0 PFDIST+128(DI)
	PREFETCHT0 PFDIST+192(DI)
	VMOVUPS (DI), Z31
	VMOVUPS 64(DI), Z30
	VMOVUPS 128(DI), Z28
	VMOVUPS 192(DI), Z27
	FMAB((SI), Z31, Z0)
	FMAB(4(SI), Z30, Z1)
	FMAB(8(SI), Z28, Z2)
	FMAB(12(SI), Z27, Z3)
	ADDQ $16, SI
	ADDQ $256, DI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  loop1
tail1:
	TESTQ CX, CX
	JZ   done1
	VMOVUPS (DI), Z31
	FMAB((SI), Z31, Z0)
	ADDQ $4, SI
	ADDQ $64, DI
	DECQ CX
	JMP  tail1
done1:
	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	VADDPS Z2, Z0, Z0
	MOVBLZX relu+56(FP), BX
	TESTQ BX, BX
	JZ    store1
	INITZ(Z29)
	RELUZ(Z0)
store1:
	VMOVUPS Z0, (DX)
	VZEROUPPER
	RET
