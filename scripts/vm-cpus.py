#!/usr/bin/env python3
"""vm-cpus.py SOCKET [SYSTEM_MAP]: where a hung guest's vCPUs are.

Stops the guest on a QEMU's QMP socket (-qmp unix:SOCKET,server=on,
wait=off; it is left stopped, to be killed) and asks for each
vCPU's registers and the 4 KiB of stack above its stack pointer, and
prints, per vCPU, its RIP, RSP, flags and RDI (the first argument: the
lock a spinning CPU waits for) and the kernel text addresses found on
that stack, newest first, named through SYSTEM_MAP when given.  Our
kernels are built without frame pointers or ORC, so the stack list is a
guess: stale return addresses show up beside the live ones, but the
innermost frames of a hang are there (scripts/vm.sh prints it when a
guest hangs).
"""
import bisect
import json
import re
import socket
import sys


class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buf = b""
        self.reply()  # the greeting
        self.call("qmp_capabilities")

    def reply(self):
        while True:
            while b"\n" not in self.buf:
                data = self.sock.recv(65536)
                if not data:
                    raise EOFError("QMP socket closed")
                self.buf += data
            line, self.buf = self.buf.split(b"\n", 1)
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def call(self, cmd, **args):
        self.sock.sendall(json.dumps({"execute": cmd, "arguments": args}).encode() + b"\n")
        msg = self.reply()
        if "error" in msg:
            raise RuntimeError(f"{cmd}: {msg['error'].get('desc')}")
        return msg["return"]

    def hmp(self, line, cpu=None):
        args = {"command-line": line}
        if cpu is not None:
            args["cpu-index"] = cpu
        return self.call("human-monitor-command", **args)


def load_map(path, types):
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            # not the per-CPU offsets (fixed_percpu_data at 0, ...)
            if len(parts) >= 3 and parts[1] in types and parts[0] >= "ffff8":
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return syms


def namer(syms):
    addrs = [a for a, _ in syms]
    lo = addrs[0] if addrs else 0
    hi = addrs[-1] + 0x10000 if addrs else 0

    def name(v):
        if not lo <= v < hi:
            return None
        i = bisect.bisect_right(addrs, v) - 1
        a, n = syms[i]
        return f"{n}+{v - a:#x}" if v - a < 0x10000 else None
    return name


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    name = data = None
    if len(sys.argv) == 3:
        name = namer(load_map(sys.argv[2], "tTwW"))
        data = namer(load_map(sys.argv[2], "tTwWbBdDrR"))
    qmp = Qmp(sys.argv[1])
    qmp.call("stop")
    for cpu in sorted(c["cpu-index"] for c in qmp.call("query-cpus-fast")):
        regs = qmp.hmp("info registers", cpu)
        get = {k: int(v, 16) for k, v in re.findall(r"\b(RIP|RSP|RDI|RFL)=([0-9a-f]+)", regs)}
        if "RIP" not in get:  # an AP not brought up yet: real mode
            print(f"vCPU {cpu}: {' '.join(regs.split()[:2])} (not in long mode)")
            continue
        rip, rsp, rdi = get["RIP"], get.get("RSP", 0), get.get("RDI", 0)
        where = name(rip) if name else None
        print(f"vCPU {cpu}: RIP {rip:#x}{' ' + where if where else ''} RSP {rsp:#x} "
              f"RFL {get.get('RFL', 0):#x} RDI {rdi:#x}"
              + (f" ({data(rdi)})" if data and data(rdi) else ""))
        if not name or not rsp:
            continue
        dump = qmp.hmp(f"x/512gx {rsp:#x}", cpu)
        frames = []
        for line in dump.splitlines():
            for w in re.findall(r"0x([0-9a-f]{16})", line.split(":", 1)[-1]):
                n = name(int(w, 16))
                if n and not n.endswith("+0x0"):
                    frames.append(n)
        print("  stack:", " < ".join(frames[:24]) or "(no kernel text address)")


if __name__ == "__main__":
    main()
