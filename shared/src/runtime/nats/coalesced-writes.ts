import type { Socket } from "node:net";
import { NodeTransport } from "nats/lib/src/node_transport.js";

/** the sockets whose writes wait for the end of this turn of the event loop */
const corked = new WeakSet<Socket>();

/**
 * nats.js 2.29.3 writes to its socket once per microtask checkpoint in which something was sent (`flushPending`), so
 * a process that answers many messages at once (turns running side by side) makes one write system call for each,
 * and each wakes nats-server on its own: 20–45 µs of CPU a write on this design's machines, the largest single cost
 * in the services' profiles (bench/README.md "A seventh pass", docs/nats.md). This
 * holds a connection's writes until the end of the event loop's turn (`setImmediate`, after the I/O callbacks of the
 * poll phase have run) and hands them to the kernel in one `writev`, as nats.go's flusher coalesces its writes. What
 * one callback sends waits for no other message: at most for the callbacks already ready beside it. A close still
 * sends what is held (nats.js ends by waiting for an empty write, which the uncork flushes behind them). To go when
 * nats.js coalesces across microtasks itself (check `NodeTransport._send` and `ProtocolHandler.flushPending` on an
 * upgrade).
 */
export function coalesceSocketWrites(): void {
  const prototype = NodeTransport.prototype as NodeTransport & { coalescedWrites?: true };
  if (prototype.coalescedWrites) return;
  const send = prototype._send;
  prototype._send = function (this: NodeTransport, frame: Uint8Array) {
    const { socket } = this as { socket?: Socket };
    if (socket && !socket.destroyed && !corked.has(socket)) {
      corked.add(socket);
      socket.cork();
      setImmediate(() => {
        corked.delete(socket);
        socket.uncork();
      });
    }
    return send.call(this, frame);
  };
  prototype.coalescedWrites = true;
}
