import { createServer } from "node:net";

/**
 * A port on 127.0.0.1 that the OS reports free now (it picks one for a listener on port 0, which is closed at
 * once). Another process may take it before it is used: a listener that then fails to bind says so.
 */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
