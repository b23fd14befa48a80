//go:build amd64 && !purego

#include "textflag.h"

// func dot8AVX2(a, b *int8, n int) int32
//
// VPMADDUBSW multiplies unsigned by signed bytes, so a's signs move onto
// b first (|a| * sign(a)*b = a*b); adjacent pairs then sum to int16
// without saturating (2*127*127 < 32767), and VPMADDWD by ones widens
// them to int32. Two accumulators take 64 bytes a round; the tail goes a
// byte at a time.
TEXT ·dot8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR    Y0, Y0, Y0
	VPXOR    Y1, Y1, Y1
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15 // sixteen int16 ones

loop64:
	CMPQ       CX, $64
	JL         loop32
	VMOVDQU    (SI), Y2
	VMOVDQU    (DI), Y3
	VMOVDQU    32(SI), Y5
	VMOVDQU    32(DI), Y6
	VPSIGNB    Y2, Y3, Y3
	VPABSB     Y2, Y2
	VPSIGNB    Y5, Y6, Y6
	VPABSB     Y5, Y5
	VPMADDUBSW Y3, Y2, Y4
	VPMADDUBSW Y6, Y5, Y7
	VPMADDWD   Y15, Y4, Y4
	VPMADDWD   Y15, Y7, Y7
	VPADDD     Y4, Y0, Y0
	VPADDD     Y7, Y1, Y1
	ADDQ       $64, SI
	ADDQ       $64, DI
	SUBQ       $64, CX
	JMP        loop64

loop32:
	CMPQ       CX, $32
	JL         reduce
	VMOVDQU    (SI), Y2
	VMOVDQU    (DI), Y3
	VPSIGNB    Y2, Y3, Y3
	VPABSB     Y2, Y2
	VPMADDUBSW Y3, Y2, Y4
	VPMADDWD   Y15, Y4, Y4
	VPADDD     Y4, Y0, Y0
	ADDQ       $32, SI
	ADDQ       $32, DI
	SUBQ       $32, CX

reduce:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX

loop1:
	CMPQ    CX, $0
	JE      done
	MOVBLSX (SI), DX
	MOVBLSX (DI), BX
	IMULL   BX, DX
	ADDL    DX, AX
	INCQ    SI
	INCQ    DI
	DECQ    CX
	JMP     loop1

done:
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func prefetchRows(base *byte, stride int, ids *uint32, n, lines int)
//
// Asks for the first lines cache lines of each listed row, so that the
// misses of a node's neighbours overlap instead of queueing one by one
// behind each dot product.
TEXT ·prefetchRows(SB), NOSPLIT, $0-40
	MOVQ base+0(FP), SI
	MOVQ stride+8(FP), DX
	MOVQ ids+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ lines+32(FP), R8

row:
	TESTQ CX, CX
	JE    done
	MOVL  (DI), AX
	IMULQ DX, AX
	ADDQ  SI, AX
	MOVQ  R8, BX

line:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	DECQ       BX
	JNZ        line
	ADDQ       $4, DI
	DECQ       CX
	JMP        row

done:
	RET
