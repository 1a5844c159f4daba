#include "h5queue.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int mcf_h5_queue_put(struct mcf_h5_queue *q, const void *item, size_t n)
{
    uint64_t len = n;
    if (q->len + sizeof len + n > q->cap) {
        size_t cap = q->cap ? q->cap : 4096;
        while (cap < q->len + sizeof len + n) cap *= 2;
        char *b = realloc(q->buf, cap);
        if (!b) return -1;
        q->buf = b;
        q->cap = cap;
    }
    memcpy(q->buf + q->len, &len, sizeof len);
    if (n) memcpy(q->buf + q->len + sizeof len, item, n);
    q->len += sizeof len + n;
    return 0;
}

int mcf_h5_queue_next(const char *buf, size_t len, size_t *pos, const char **item, size_t *n)
{
    uint64_t m;
    if (*pos + sizeof m > len) return -1;
    memcpy(&m, buf + *pos, sizeof m);
    if (m > len - *pos - sizeof m) return -1;
    *item = buf + *pos + sizeof m;
    *n = (size_t)m;
    *pos += sizeof m + (size_t)m;
    return 0;
}

uint32_t mcf_crc32(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}
