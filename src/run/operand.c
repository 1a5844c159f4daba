/* Operand encodings (operand.h): plain C, so that the GPU backends' tiles
 * and the MFMA layout self-test encode alike. */
#include "operand.h"

#include <math.h>
#include <string.h>

int mcf_operand_bits(enum mcf_dtype t)
{
    switch (t) {
    case MCF_FP64: return 64;
    case MCF_TF32:
    case MCF_FP32: return 32;
    case MCF_FP16:
    case MCF_FP16_ACC16:
    case MCF_BF16: return 16;
    default: return 8;
    }
}

/* v in a binary format of ebits exponent bits, mbits mantissa bits and the
 * given bias, rounded to nearest even; no infinities (normal inputs stay below
 * 10, far from every format's largest value). */
static uint64_t minifloat(double v, int ebits, int mbits, int bias, int fnuz)
{
    uint64_t sign = v < 0 || (v == 0 && signbit(v) && !fnuz) ? 1 : 0;
    double a = fabs(v);
    int e2 = 0;
    if (a == 0) return sign << (ebits + mbits);
    double f = frexp(a, &e2); /* a = f * 2^e2, f in [0.5, 1) */
    int exp = e2 - 1 + bias;
    uint64_t mant;
    if (exp > 0) {
        mant = (uint64_t)nearbyint((2 * f - 1) * ldexp(1.0, mbits));
        if (mant >> mbits) {
            mant = 0;
            exp++;
        } /* rounded up to the next binade */
    } else { /* subnormal */
        mant = (uint64_t)nearbyint(a * ldexp(1.0, bias - 1 + mbits));
        exp = mant >> mbits ? 1 : 0;
        mant &= (1ull << mbits) - 1;
    }
    return sign << (ebits + mbits) | (uint64_t)exp << mbits | mant;
}

/* The value of a minifloat's bits (the formats above; fnuz: 0x80.. is NaN). */
static double minifloat_value(uint64_t bits, int ebits, int mbits, int bias, int fnuz)
{
    int sign = (int)(bits >> (ebits + mbits)) & 1, exp = (int)(bits >> mbits) & ((1 << ebits) - 1);
    uint64_t mant = bits & ((1ull << mbits) - 1);
    if (fnuz && sign && exp == 0 && mant == 0) return NAN;
    double v = exp == 0 ? ldexp((double)mant, 1 - bias - mbits)
                        : ldexp((double)(mant | 1ull << mbits), exp - bias - mbits);
    return sign ? -v : v;
}

uint64_t mcf_encode(enum mcf_dtype t, double v, enum mcf_fp8_kind fp8)
{
    int fnuz = fp8 == MCF_FP8_FNUZ;
    uint64_t bits = 0;
    switch (t) {
    case MCF_FP64: memcpy(&bits, &v, 8); break;
    case MCF_FP32: {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        bits = u;
        break;
    }
    /* tf32: fp32's sign and exponent, 10 significand bits; the tensor cores
     * ignore the low 13 bits of the word, so they are zero here */
    case MCF_TF32: bits = minifloat(v, 8, 10, 127, 0) << 13; break;
    case MCF_FP16:
    case MCF_FP16_ACC16: bits = minifloat(v, 5, 10, 15, 0); break;
    case MCF_BF16: bits = minifloat(v, 8, 7, 127, 0); break;
    case MCF_FP8_E4M3: bits = minifloat(v, 4, 3, fnuz ? 8 : 7, fnuz); break;
    case MCF_FP8_E5M2: bits = minifloat(v, 5, 2, fnuz ? 16 : 15, fnuz); break;
    case MCF_INT8: bits = (uint8_t)(int8_t)lrint(v * 8); break; /* int8 operands are j itself */
    default: break;
    }
    return bits;
}

double mcf_decode(enum mcf_dtype t, uint64_t bits, enum mcf_fp8_kind fp8)
{
    int fnuz = fp8 == MCF_FP8_FNUZ;
    switch (t) {
    case MCF_FP64: {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    case MCF_TF32:
    case MCF_FP32: {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case MCF_FP16:
    case MCF_FP16_ACC16: return minifloat_value(bits, 5, 10, 15, 0);
    case MCF_BF16: return minifloat_value(bits, 8, 7, 127, 0);
    case MCF_FP8_E4M3: return minifloat_value(bits, 4, 3, fnuz ? 8 : 7, fnuz);
    case MCF_FP8_E5M2: return minifloat_value(bits, 5, 2, fnuz ? 16 : 15, fnuz);
    case MCF_INT8: return (int8_t)(uint8_t)bits / 8.0;
    default: return NAN;
    }
}
