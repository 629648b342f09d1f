#!/usr/bin/env python3
"""Writes mixed.RANK.et and the bad Chakra files of tests/data/bad/chakra
in et_def.proto's wire format (varint-length-delimited GlobalMetadata then
Node messages, as Chakra's protolib encodeMessage frames them), by hand, so
that no protobuf package is needed: python3 make_mixed.py"""
import os

def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])

def field(num, wire, payload):
    return varint(num << 3 | wire) + payload

def lendelim(num, data):
    return field(num, 2, varint(len(data)) + data)

def attr_int(name, v):
    return lendelim(10, lendelim(1, name.encode()) + field(9, 0, varint(v)))

def attr_str(name, s):
    return lendelim(10, lendelim(1, name.encode()) + lendelim(29, s.encode()))

def node(id, ntype, name="n", deps=(), ctrl=(), dur=None, attrs=b""):
    m = field(1, 0, varint(id)) + lendelim(2, name.encode()) + field(3, 0, varint(ntype))
    if ctrl:
        m += lendelim(4, b"".join(varint(d) for d in ctrl))
    if deps:
        m += lendelim(5, b"".join(varint(d) for d in deps))
    if dur is not None:
        m += field(7, 0, varint(dur))
    return m + attrs

def meta(version="0.0.4", schema=None):
    m = lendelim(1, version.encode()) if version else b""
    if schema:  # GlobalMetadata.attr (field 2), as Chakra's converters write it
        m += lendelim(2, lendelim(1, b"schema") + lendelim(29, schema.encode()))
    return m

def framed(msgs):
    return b"".join(varint(len(m)) + m for m in msgs)

COMP, SEND, RECV, COLL, META = 4, 5, 6, 7, 1

def mixed(rank):
    """compute 100 us; an AllReduce of 16 MiB over pg 'dp'; a metadata node;
    compute 50 us; rank 0 sends 1 MiB to rank 1 (tag 7)."""
    ns = [node(1, COMP, "fwd", dur=100),
          node(2, COLL, "ar", deps=[1], attrs=attr_int("comm_type", 0) + attr_int("comm_size", 16 << 20) + attr_str("pg_name", "dp")),
          node(3, META, "meta", deps=[2]),
          node(4, COMP, "bwd", ctrl=[3], dur=50)]
    if rank == 0:
        ns.append(node(5, SEND, "send", deps=[4], attrs=attr_int("comm_dst", 1) + attr_int("comm_size", 1 << 20) + attr_int("comm_tag", 7)))
    else:
        ns.append(node(5, RECV, "recv", deps=[4], attrs=attr_int("comm_src", 0) + attr_int("comm_size", 1 << 20) + attr_int("comm_tag", 7)))
    return framed([meta(schema="1.0.2-chakra.0.0.4")] + ns)

here = os.path.dirname(os.path.abspath(__file__))
for r in (0, 1):
    open(os.path.join(here, "mixed.%d.et" % r), "wb").write(mixed(r))

bad = os.path.join(here, "..", "bad", "chakra")
os.makedirs(bad, exist_ok=True)
cases = [
    ("old_version.0.et", framed([meta("0.0.3"), node(1, COMP, dur=5)]), "Chakra schema version '0.0.3' is not supported"),
    ("truncated.0.et", framed([meta(), node(1, COMP, dur=5)])[:-3], "a message of 9 bytes, 6 left in the file"),
    ("cut_length.0.et", framed([meta()]) + b"\xff", "a message's length cut short"),
    ("not_metadata.0.et", framed([b"\x0a\xff\xff"]), "byte 0: not a Chakra GlobalMetadata message"),
    ("not_node.0.et", framed([meta(), b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"]), "node 0 is not a Chakra Node message"),
    ("unknown_dep.0.et", framed([meta(), node(1, COMP, dur=5, deps=[9])]), "node id 1 depends on id 9, which the file does not hold"),
    ("cycle.0.et", framed([meta(), node(1, COMP, dur=5, deps=[2]), node(2, COMP, dur=5, deps=[1])]), "the nodes' dependencies form a cycle"),
    ("same_id.0.et", framed([meta(), node(1, COMP, dur=5), node(1, COMP, dur=6)]), "node 1: id 1 again"),
    ("no_comm_type.0.et", framed([meta(), node(1, COLL, attrs=attr_int("comm_size", 64))]), "no integer comm_type attribute"),
    ("bad_comm_type.0.et", framed([meta(), node(1, COLL, attrs=attr_int("comm_type", 42) + attr_int("comm_size", 64))]), "comm_type 42: expected 0 to 9"),
    ("no_comm_size.0.et", framed([meta(), node(1, COLL, attrs=attr_int("comm_type", 0))]), "comm_size: expected an integer attribute of bytes"),
    ("send_no_peer.0.et", framed([meta(), node(1, SEND, attrs=attr_int("comm_size", 64))]), "no comm_dst attribute naming the peer's rank"),
    ("send_alone.0.et", framed([meta(), node(1, SEND, attrs=attr_int("comm_size", 64) + attr_int("comm_dst", 0))]), "1 sends, 0 receives"),
    ("huge_duration.0.et", framed([meta(), node(1, COMP, dur=1 << 62)]), "above 2^60 ps (13 days)"),
    ("empty.0.et", b"", "empty: expected a Chakra execution trace"),
    ("nothing.0.et", framed([meta(), node(1, META)]), "nothing to replay"),
]
with open(os.path.join(bad, "expect.txt"), "w") as f:
    f.write("# FILE<TAB>part of the message trc_workload_load_chakra must give (it also names the file)\n")
    for name, data, expect in cases:
        open(os.path.join(bad, name), "wb").write(data)
        f.write("%s\t%s\n" % (name, expect))
