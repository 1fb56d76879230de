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
  const highest = (await kernelPortsStart()) - 1;
  if (highest <= lowestPort) return anyPort();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = lowestPort + Math.floor(Math.random() * (highest - lowestPort + 1));
    if (await listensOn(port)) return port;
  }
  throw new Error("no free port");
}

/** The first port of the kernel's own range (Linux's `ip_local_port_range`; its default elsewhere). */
async function kernelPortsStart(): Promise<number> {
  const range = await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8").catch(() => "32768");
  return Number.parseInt(range, 10) || 32768;
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

/** A port of the kernel's own choosing, where it leaves no room below its range. */
async function anyPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no free port");
  return address.port;
}
