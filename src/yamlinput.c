#include "yamlinput.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

int mcf_yaml_read(const char *path, const char *what, const char *noun, size_t max_bytes, char **text,
                  struct mcf_err *e)
{
    struct stat st;
    char *buf = NULL;
    size_t len = 0, size;
    /* O_NONBLOCK: opening a FIFO with no writer must not wait forever; it is
     * refused below like every other file that is not a regular one */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    *text = NULL;
    if (fd < 0)
        MCF_FAIL(e, MCF_EINPUT, "%s %s: %s", what, path, strerror(errno));
    if (fstat(fd, &st) != 0)
        MCF_FAIL(e, MCF_EINPUT, "%s %s: %s", what, path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        MCF_FAIL(e, MCF_EINPUT, "%s %s: %s, not %s (%s is a regular YAML file)", what, path, file_kind(st.st_mode),
                 noun, noun);
    if ((unsigned long long)st.st_size > max_bytes)
        MCF_FAIL(e, MCF_EINPUT, "%s %s: %lld bytes; %s is YAML text of at most %zu", what, path,
                 (long long)st.st_size, noun, max_bytes);
    size = (size_t)st.st_size;
    MCF_ALLOC(e, buf, size + 1);
    while (len < size) {        /* a file that shrinks meanwhile is read as it is now */
        ssize_t n = read(fd, buf + len, size - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            MCF_FAIL(e, MCF_EINPUT, "%s %s: read failed: %s", what, path, strerror(errno));
        if (n == 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    if (memchr(buf, '\0', len))
        MCF_FAIL(e, MCF_EINPUT, "%s %s: binary file, not %s", what, path, noun);
    close(fd);
    *text = buf;
    return MCF_OK;
fail:
    if (fd >= 0)
        close(fd);
    free(buf);
    return e->rc;
}

int mcf_yaml_prescan(const char *text, int max_depth, int max_anchors, yaml_mark_t *mark)
{
    yaml_parser_t p;
    yaml_token_t tok;
    int depth = 0, anchors = 0, rc = MCF_YAML_SCAN_OK;
    if (!yaml_parser_initialize(&p))
        return MCF_YAML_SCAN_NOMEM;
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    while (rc == MCF_YAML_SCAN_OK && yaml_parser_scan(&p, &tok)) {
        yaml_token_type_t type = tok.type;
        *mark = tok.start_mark;
        yaml_token_delete(&tok);
        if (type == YAML_STREAM_END_TOKEN)
            break;
        if (type == YAML_FLOW_SEQUENCE_START_TOKEN || type == YAML_FLOW_MAPPING_START_TOKEN) {
            if (++depth > max_depth)
                rc = MCF_YAML_SCAN_DEEP;
        } else if (type == YAML_FLOW_SEQUENCE_END_TOKEN || type == YAML_FLOW_MAPPING_END_TOKEN) {
            depth--;
        } else if (type == YAML_ANCHOR_TOKEN && ++anchors > max_anchors) {
            rc = MCF_YAML_SCAN_ANCHORS;
        }
    }
    yaml_parser_delete(&p);
    return rc;
}
