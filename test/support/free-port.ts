import { readFile } from "node:fs/promises";
import { createServer } from "node:net";

/** Where picked ports start: above the well-known services a machine may run. */
const lowestPort = 10_000;

/**
 * A loopback port nothing listens on right now, for a server whose address must be known before it starts. It is
 * picked below the range the kernel hands out by itself (a port-0 listener, the local end of every outgoing
 * connection): a port from that range could be taken by any connection of the tests running in parallel before its
 * server binds it (a cluster member's nats-server once failed so: "bind: address already in use").
 */
export async function freePort(): Promise<number> {
  return freePorts(1);
}

/** A free port whose next one is free too (picked as `freePort` is), for a service given two in a row. */
export async function freePortPair(): Promise<number> {
  return freePorts(2);
}

/** The first of `count` ports in a row that nothing listens on, each checked by a listener. */
async function freePorts(count: number): Promise<number> {
  const kernelStart = await kernelPortsStart();
  // a kernel range that leaves no room below it: any ports above the well-known ones
  const highest = (kernelStart - count > lowestPort ? kernelStart : 65_536) - count;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = lowestPort + Math.floor(Math.random() * (highest - lowestPort + 1));
    if (await allListen(port, count)) return port;
  }
  throw new Error("no free port");
}

/** The first port of the kernel's own range (Linux's `ip_local_port_range`; its default elsewhere). */
async function kernelPortsStart(): Promise<number> {
  const range = await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8").catch(() => "32768");
  return Number.parseInt(range, 10) || 32768;
}

async function allListen(first: number, count: number): Promise<boolean> {
  for (let port = first; port < first + count; port++) if (!(await listensOn(port))) return false;
  return true;
}

/** Whether a listener can be opened on `port` (it is closed again at once). */
async function listensOn(port: number): Promise<boolean> {
  const server = createServer();
  const opened = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (opened) await new Promise<void>((resolve) => server.close(() => resolve()));
  return opened;
}
