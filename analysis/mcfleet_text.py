"""Names from files and inputs, printable on one line: the rule every
reader prints by (the C report's mcf_rd_clean(), src/report/text_safe.c),
in a module of its own so that the code that needs no HDF5 file
(mcfleet_hostlist, the node-name rule) uses it without importing h5py."""


def show(name):
    """a name from the file, printable: each byte in no well-formed UTF-8
    sequence (overlong forms, surrogates, beyond U+10FFFF) and each character
    str.isprintable() refuses (controls, bidi and other format characters,
    U+2028/U+2029, private use ...) replaced by one "?", the rule of the C
    report's mcf_rd_clean() (src/report/text_safe.c), so both show the same"""
    if isinstance(name, bytes):
        raw = name
    else:   # h5py's str: a byte it could not decode is a surrogate escape (U+DC80..U+DCFF)
        raw = b"".join(bytes([ord(c) - 0xDC00]) if "\udc80" <= c <= "\udcff" else
                       c.encode("utf-8", "surrogatepass") for c in name) if not name.isascii() else name.encode()
    name = raw.decode("utf-8", "surrogateescape")   # a bad byte: one escape, not printable
    if name.isprintable():   # the common case, at C speed
        return name
    return "".join(c if c.isprintable() else "?" for c in name)
