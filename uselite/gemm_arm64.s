//go:build arm64 && !purego

#include "textflag.h"

// NEON micro-kernels for mulPacked: an R x 16 block of c = a·panel
// (+ bias) in 4R accumulators of four floats (V0..V23), walking k once.
// Per k step: the panel row is one 64-byte load into V24-V27, and each row
// of a contributes one broadcast load (LD1R, post-incremented) and four
// FMLAs. Register use: R10-R15 row pointers into a; R8 lda in bytes; R1
// panel; R2 k countdown; R3 c; R9 ldc in bytes; R5 bias (or 0).

#define ARGS \
	MOVD a+0(FP), R10; \
	MOVD lda+8(FP), R8; \
	LSL  $2, R8, R8; \
	MOVD panel+16(FP), R1; \
	MOVD k+24(FP), R2; \
	MOVD c+32(FP), R3; \
	MOVD ldc+40(FP), R9; \
	LSL  $2, R9, R9; \
	MOVD bias+48(FP), R5

#define ZERO4(a, b, c, d) \
	VEOR a.B16, a.B16, a.B16; \
	VEOR b.B16, b.B16, b.B16; \
	VEOR c.B16, c.B16, c.B16; \
	VEOR d.B16, d.B16, d.B16

#define COPY4(a, b, c, d) \
	VMOV V0.B16, a.B16; \
	VMOV V1.B16, b.B16; \
	VMOV V2.B16, c.B16; \
	VMOV V3.B16, d.B16

#define LOADB VLD1.P 64(R1), [V24.S4, V25.S4, V26.S4, V27.S4]

#define ROW(ptr, t, a, b, c, d) \
	VLD1R.P 4(ptr), [t.S4]; \
	VFMLA V24.S4, t.S4, a.S4; \
	VFMLA V25.S4, t.S4, b.S4; \
	VFMLA V26.S4, t.S4, c.S4; \
	VFMLA V27.S4, t.S4, d.S4

#define STORE(a, b, c, d) \
	VST1 [a.S4, b.S4, c.S4, d.S4], (R3); \
	ADD  R9, R3, R3

// INIT puts the bias (or zero) in V0-V3.
#define INIT(zero, done) \
	CBZ  R5, zero; \
	VLD1 (R5), [V0.S4, V1.S4, V2.S4, V3.S4]; \
	B    done; \
zero: \
	ZERO4(V0, V1, V2, V3); \
done:

// func gemmNEON6(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32)
TEXT ·gemmNEON6(SB), NOSPLIT, $0-56
	ARGS
	ADD  R8, R10, R11
	ADD  R8, R11, R12
	ADD  R8, R12, R13
	ADD  R8, R13, R14
	ADD  R8, R14, R15
	INIT(zero6, init6)
	COPY4(V4, V5, V6, V7)
	COPY4(V8, V9, V10, V11)
	COPY4(V12, V13, V14, V15)
	COPY4(V16, V17, V18, V19)
	COPY4(V20, V21, V22, V23)
loop6:
	LOADB
	ROW(R10, V28, V0, V1, V2, V3)
	ROW(R11, V29, V4, V5, V6, V7)
	ROW(R12, V30, V8, V9, V10, V11)
	ROW(R13, V31, V12, V13, V14, V15)
	ROW(R14, V28, V16, V17, V18, V19)
	ROW(R15, V29, V20, V21, V22, V23)
	SUBS $1, R2, R2
	BNE  loop6
	STORE(V0, V1, V2, V3)
	STORE(V4, V5, V6, V7)
	STORE(V8, V9, V10, V11)
	STORE(V12, V13, V14, V15)
	STORE(V16, V17, V18, V19)
	STORE(V20, V21, V22, V23)
	RET

// func gemmNEON4(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32)
TEXT ·gemmNEON4(SB), NOSPLIT, $0-56
	ARGS
	ADD  R8, R10, R11
	ADD  R8, R11, R12
	ADD  R8, R12, R13
	INIT(zero4, init4)
	COPY4(V4, V5, V6, V7)
	COPY4(V8, V9, V10, V11)
	COPY4(V12, V13, V14, V15)
loop4:
	LOADB
	ROW(R10, V28, V0, V1, V2, V3)
	ROW(R11, V29, V4, V5, V6, V7)
	ROW(R12, V30, V8, V9, V10, V11)
	ROW(R13, V31, V12, V13, V14, V15)
	SUBS $1, R2, R2
	BNE  loop4
	STORE(V0, V1, V2, V3)
	STORE(V4, V5, V6, V7)
	STORE(V8, V9, V10, V11)
	STORE(V12, V13, V14, V15)
	RET

// func gemmNEON2(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32)
TEXT ·gemmNEON2(SB), NOSPLIT, $0-56
	ARGS
	ADD  R8, R10, R11
	INIT(zero2, init2)
	COPY4(V4, V5, V6, V7)
loop2:
	LOADB
	ROW(R10, V28, V0, V1, V2, V3)
	ROW(R11, V29, V4, V5, V6, V7)
	SUBS $1, R2, R2
	BNE  loop2
	STORE(V0, V1, V2, V3)
	STORE(V4, V5, V6, V7)
	RET

// func gemmNEON1(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32)
TEXT ·gemmNEON1(SB), NOSPLIT, $0-56
	ARGS
	INIT(zero1, init1)
loop1:
	LOADB
	ROW(R10, V28, V0, V1, V2, V3)
	SUBS $1, R2, R2
	BNE  loop1
	STORE(V0, V1, V2, V3)
	RET
