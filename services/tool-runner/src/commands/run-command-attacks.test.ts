import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { stat, symlink } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCommandFixture, type CommandFixture } from "../testing/command-fixture.js";

// docs/security.md "Commands", cases 293-300: what a command line the model wrote may try, and what stops it. The
// sandbox, not file permissions, must stop each; after each, the next command runs as before.
let fixture: CommandFixture;
beforeEach(async () => {
  fixture = await createCommandFixture();
});
afterEach(() => fixture.cleanup());

function processesNamed(marker: string): string[] {
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).split("\n").filter((line) => line.includes(marker) && !line.includes("ps -eo"));
}

async function stillWorks(): Promise<void> {
  expect(await fixture.run("echo still here")).toMatchObject({ exitCode: 0, stdout: "still here\n", limits: [] });
}

describe("a command reading the host (case 293)", () => {
  it("finds no host user, no /proc, none of the tool-runner's variables, no other folder and no host path", async () => {
    process.env["AO_COMMAND_CANARY"] = "canary-7373";
    try {
      const run = await fixture.run(
        `cat /etc/passwd; cat /etc/shadow; cat /proc/1/environ; ls /root /home /sys; cat ${fixture.outside}/secret; ls ${fixture.base}; env; pwd`,
      );
      expect(run.stdout).toContain("sandbox:x:1000:1000:sandbox:/tmp:/bin/sh\n");
      expect(run.stdout).not.toMatch(/^root:/m);
      for (const missing of ["/etc/shadow", "/proc/1/environ", "/root", "/home", "/sys", `${fixture.outside}/secret`]) {
        expect(run.stderr).toMatch(new RegExp(`'?${missing}'?: No such file or directory`));
      }
      expect(run.stdout + run.stderr).not.toContain("4242");
      expect(run.stdout + run.stderr).not.toContain("canary-7373");
      expect(run.stdout).not.toMatch(/NATS|OPENAI|AUTH_TOKENS/);
      expect(run.stdout).toMatch(/^PWD=\/project$/m);
      // the host's folders are never named: the tree is /project
      expect(run.stdout + run.stderr).not.toContain(fixture.tree);
    } finally {
      delete process.env["AO_COMMAND_CANARY"];
    }
  });
});

describe("a command reaching the network (case 294)", () => {
  let server: Server;
  let port = 0;
  beforeEach(async () => {
    server = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const connect = (target: number) =>
    `python3 -c "import socket; print(socket.create_connection(('127.0.0.1', ${target}), timeout=3).recv(100).decode().strip())"`;

  it("is refused a port on 127.0.0.1 (NATS's 4222 too) and a name lookup while the project's network is off", async () => {
    const run = await fixture.run(`${connect(port)}; ${connect(4222)}; python3 -c "import socket; socket.getaddrinfo('example.com', 443)"`);
    expect(run.stdout).not.toContain("hello from the host");
    expect(run.stderr.match(/ConnectionRefusedError/g)).toHaveLength(2);
    expect(run.stderr).toContain("socket.gaierror");
  });

  it("reaches the host's network when the project allows it (repository.network)", async () => {
    const run = await fixture.run(connect(port), { network: true });
    expect(run).toMatchObject({ exitCode: 0, stdout: "hello from the host\n" });
  });
});

describe("a command past a limit (cases 295-298): stopped, the limit named, the tool-runner unaffected", () => {
  it("fork-bombs into the process limit and leaves no process behind (295)", async () => {
    const marker = `bomb${process.pid}x${Date.now()}`;
    const run = await fixture.run(`${marker}() { ${marker} | ${marker} & }; ${marker}; sleep 30`);
    expect(run.limits).toContain(fixture.runner.usesCgroups ? "processes" : "time");
    expect(run.exitCode).toBeNull();
    expect(processesNamed(marker)).toEqual([]);
    await stillWorks();
  });

  it("writes 2 GB in one file: stopped at the file size limit (296)", async () => {
    const run = await fixture.run("dd if=/dev/zero of=big bs=1M count=2048");
    expect(run.limits).toEqual(["file size"]);
    expect(run.exitCode).toBe(153);
    expect((await stat(path.join(fixture.tree, "big"))).size).toBe(32 * 1024 * 1024);
    await stillWorks();
  });

  it.runIf(process.getuid?.() === 0 || existsSync("/sys/fs/cgroup/cgroup.subtree_control"))(
    "writes 2 GB in many files: stopped at the disk limit (296)",
    async () => {
      const run = await fixture.run("i=0; while [ $i -lt 128 ]; do head -c 16M /dev/zero > f$i || exit 9; i=$((i+1)); done");
      expect(run.limits).toEqual(["disk"]);
      expect(run.exitCode).toBeNull();
      const written = execFileSync("du", ["-sm", fixture.tree], { encoding: "utf8" });
      // the budget is 64 MiB, checked every 100 ms
      expect(Number(written.split("\t")[0])).toBeLessThan(1024);
      await stillWorks();
    },
  );

  it("allocates 4 GB: the memory limit (297)", async () => {
    const run = await fixture.run(`python3 -c "b = b'x' * (4 << 30); print('allocated')"`);
    expect(run.stdout).not.toContain("allocated");
    if (fixture.runner.usesCgroups) expect(run.limits).toEqual(["memory"]);
    else expect(run.stderr).toContain("MemoryError");
    await stillWorks();
  });

  it("loops forever: stopped at its timeout_ms, and nothing of it survives (297)", async () => {
    const marker = `loop${process.pid}x${Date.now()}`;
    const run = await fixture.run(`${marker}=1; while :; do :; done & while :; do :; done`, { timeoutMs: 1500 });
    expect(run).toMatchObject({ exitCode: null, limits: ["time"] });
    expect(run.bounds.timeoutMs).toBe(1500);
    expect(processesNamed(marker)).toEqual([]);
    await stillWorks();
  });

  it("asks for more time than the server allows: it gets the maximum", async () => {
    expect((await fixture.run("true", { timeoutMs: 10 * 60_000 })).bounds.timeoutMs).toBe(20_000);
  });

  it("prints 100 MB: the head and tail are kept, truncated says so (298)", async () => {
    const run = await fixture.run("head -c 100000000 /dev/zero | tr '\\0' a; echo the end");
    expect(run).toMatchObject({ exitCode: 0, truncated: true, limits: [] });
    expect(Buffer.byteLength(run.stdout)).toBeLessThan(4096 + 100);
    expect(run.stdout).toMatch(/\[\.\.\. \d+ bytes omitted \.\.\.\]/);
    expect(run.stdout.endsWith("the end\n")).toBe(true);
    await stillWorks();
  });
});

describe("links in the working tree (case 299)", () => {
  it("never reach the host: a link to /etc, to .. and to a host file resolve inside the sandbox", async () => {
    await symlink(path.join(fixture.outside, "secret"), path.join(fixture.tree, "planted"));
    const run = await fixture.run("ln -s /etc etc-link; ln -s .. up; cat etc-link/passwd; ls up; cat planted; cat up/../etc/hostname");
    expect(run.stdout).toContain("sandbox:x:1000:1000");
    expect(run.stdout).not.toMatch(/^root:/m);
    expect(run.stdout.split("\n")).toContain("project");
    expect(run.stdout).not.toContain("outside");
    expect(run.stdout + run.stderr).not.toContain("4242");
    expect(run.stderr).toContain("planted: No such file or directory");
  });
});

describe("a command escaping its user (case 300)", () => {
  it("runs unprivileged: no setuid bit, no namespace, no mount; what it writes is the tool-runner's on the host", async () => {
    const run = await fixture.run(
      // unshare(CLONE_NEWUSER): -1 and errno 1 (EPERM)
      "id -u; touch mine; chmod u+s mine 2>&1 || echo setuid refused; python3 -c \"import ctypes; print('unshare', ctypes.CDLL(None, use_errno=True).unshare(0x10000000), ctypes.get_errno())\"; mount -t tmpfs x /tmp 2>&1",
    );
    expect(run.stdout.split("\n")[0]).toBe("1000");
    expect(run.stdout).toContain("setuid refused");
    expect(run.stdout).toContain("unshare -1 1\n");
    expect(run.stdout).toMatch(/mount: .*(permission denied|must be superuser)/i);
    const owner = await stat(path.join(fixture.tree, "mine"));
    expect({ uid: owner.uid, setuid: (owner.mode & 0o4000) !== 0 }).toEqual({ uid: process.getuid?.(), setuid: false });
  });
});
