#include "yamlinput.h"
#include "outpath.h" /* mcf_output_kind: what a path is, in the words of the output rule */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mcf_yaml_read(const char *path, const char *what, const char *noun, size_t max_bytes,
                  char **text, struct mcf_err *e)
{
    struct stat st;
    char *buf = NULL;
    size_t len = 0, size;
    /* O_NONBLOCK: opening a FIFO with no writer must not wait forever; it is
     * refused below like every other file that is not a regular one */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    *text = NULL;
    if (fd < 0) MCF_FAIL(e, MCF_EINPUT, "%s %s: %s", what, path, strerror(errno));
    if (fstat(fd, &st) != 0) MCF_FAIL(e, MCF_EINPUT, "%s %s: %s", what, path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        MCF_FAIL(e, MCF_EINPUT, "%s %s: %s, not %s (%s is a regular YAML file)", what, path,
                 mcf_output_kind(st.st_mode), noun, noun);
    if ((unsigned long long)st.st_size > max_bytes)
        MCF_FAIL(e, MCF_EINPUT, "%s %s: %lld bytes; %s is YAML text of at most %zu", what, path,
                 (long long)st.st_size, noun, max_bytes);
    size = (size_t)st.st_size;
    MCF_ALLOC(e, buf, size + 1);
    while (len < size) { /* a file that shrinks meanwhile is read as it is now */
        ssize_t n = read(fd, buf + len, size - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) MCF_FAIL(e, MCF_EINPUT, "%s %s: read failed: %s", what, path, strerror(errno));
        if (n == 0) break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    if (memchr(buf, '\0', len))
        MCF_FAIL(e, MCF_EINPUT, "%s %s: binary file, not %s", what, path, noun);
    close(fd);
    *text = buf;
    return MCF_OK;
fail:
    if (fd >= 0) close(fd);
    free(buf);
    return e->rc;
}

int mcf_yaml_prescan(const char *text, int max_depth, int max_anchors, yaml_mark_t *mark)
{
    yaml_parser_t p;
    yaml_token_t tok;
    int depth = 0, anchors = 0, rc = MCF_YAML_SCAN_OK;
    if (!yaml_parser_initialize(&p)) return MCF_YAML_SCAN_NOMEM;
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    while (rc == MCF_YAML_SCAN_OK && yaml_parser_scan(&p, &tok)) {
        yaml_token_type_t type = tok.type;
        *mark = tok.start_mark;
        yaml_token_delete(&tok);
        if (type == YAML_STREAM_END_TOKEN) break;
        if (type == YAML_FLOW_SEQUENCE_START_TOKEN || type == YAML_FLOW_MAPPING_START_TOKEN) {
            if (++depth > max_depth) rc = MCF_YAML_SCAN_DEEP;
        } else if (type == YAML_FLOW_SEQUENCE_END_TOKEN || type == YAML_FLOW_MAPPING_END_TOKEN) {
            depth--;
        } else if (type == YAML_ANCHOR_TOKEN && ++anchors > max_anchors) {
            rc = MCF_YAML_SCAN_ANCHORS;
        }
    }
    yaml_parser_delete(&p);
    return rc;
}

static int vat(const struct mcf_yaml_ctx *c, yaml_mark_t mark, const char *fmt, va_list ap)
{
    char text[768];
    vsnprintf(text, sizeof text, fmt, ap);
    for (char *p = text; *p; p++) /* a file's bytes never reach the terminal raw */
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    /* the end of a very long path, so that line:col and the message still fit */
    size_t n = strlen(c->path);
    return mcf_err_set(c->e, MCF_EINPUT, __FILE__, __LINE__, "%s%s:%lu:%lu: %s",
                       n > 200 ? "..." : "", n > 200 ? c->path + n - 200 : c->path,
                       (unsigned long)mark.line + 1, (unsigned long)mark.column + 1, text);
}

int mcf_yaml_at_mark(const struct mcf_yaml_ctx *c, yaml_mark_t mark, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vat(c, mark, fmt, ap);
    va_end(ap);
    return rc;
}

int mcf_yaml_at(const struct mcf_yaml_ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vat(c, n->start_mark, fmt, ap);
    va_end(ap);
    return rc;
}

const char *mcf_yaml_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

const char *mcf_yaml_node_kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE: return "a scalar";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

int mcf_yaml_limits(struct mcf_yaml_ctx *c, const char *text, int max_depth, int max_anchors,
                    const char *depth_need, const char *anchors_need)
{
    yaml_mark_t mark;
    switch (mcf_yaml_prescan(text, max_depth, max_anchors, &mark)) {
    case MCF_YAML_SCAN_DEEP:
        return mcf_yaml_at_mark(c, mark, "[ ] and { } nested more than %d deep (%s)", max_depth,
                                depth_need);
    case MCF_YAML_SCAN_ANCHORS:
        return mcf_yaml_at_mark(c, mark, "more than %d anchors (&name)%s", max_anchors,
                                anchors_need);
    case MCF_YAML_SCAN_NOMEM:
        return mcf_err_set(c->e, MCF_ERUNTIME, __FILE__, __LINE__, "yaml_parser_initialize failed");
    default: return MCF_OK;
    }
}
