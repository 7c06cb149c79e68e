import { createConnection } from "node:net";

/** Sends `request` `times` in one write on one connection and reads until that many 200 answers came back. */
export async function readPipelined(address: string, request: string, times: number): Promise<void> {
  const { hostname, port } = new URL(address);
  const socket = createConnection(Number(port), hostname);
  let text = "";
  socket.setEncoding("latin1");
  socket.on("data", (d: string) => {
    text += d;
  });
  socket.write(request.repeat(times));
  while (text.split("HTTP/1.1 200").length - 1 < times) await new Promise((r) => setTimeout(r, 10));
  socket.destroy();
}

/**
 * Sends `request` `times` in one write on one connection that never reads, and waits until the server stops
 * running them (`runs` no longer grows), as it must once the socket's buffers are full.
 */
export async function floodUnread(
  address: string,
  request: string,
  times: number,
  runs: () => number,
): Promise<void> {
  const { hostname, port } = new URL(address);
  const idle = createConnection(Number(port), hostname);
  idle.pause();
  idle.on("error", () => {});
  idle.write(request.repeat(times));
  let last = -1;
  while (runs() !== last) {
    last = runs();
    await new Promise((r) => setTimeout(r, 300));
  }
  idle.destroy();
}
